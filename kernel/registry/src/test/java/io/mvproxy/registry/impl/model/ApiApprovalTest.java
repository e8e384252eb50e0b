package io.mvproxy.registry.impl.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** API approval of protected groups, as apihelpers' GetAPIApprovalState and validation.go's validateAPIApproval. */
@Tag("unit")
class ApiApprovalTest {
  static JsonObject crd(String group, String annotation) {
    JsonObject md = new JsonObject().put("name", "foos." + group);
    if (annotation != null) {
      md.put("annotations", new JsonObject().put(ApiApproval.ANNOTATION, annotation));
    }
    return new JsonObject().put("metadata", md).put("spec", new JsonObject().put("group", group));
  }

  @ParameterizedTest(name = "{0} {1}: {2}")
  @CsvSource(delimiter = '|', nullValues = "null", value = {
      "example.com         | null                                       | n/a",
      "k8s.io              | https://github.com/kubernetes/kubernetes/pull/1 | APPROVED",
      "x.k8s.io            | null                                       | MISSING",
      "x.k8s.io            | ''                                         | MISSING",
      "kubernetes.io       | unapproved, experimental                   | BYPASSED",
      "a.b.kubernetes.io   | github.com/x                               | INVALID",
      "a.b.kubernetes.io   | https://                                   | INVALID",
      "a.b.kubernetes.io   | https://x:abc                              | INVALID",
      "a.b.kubernetes.io   | https://%41                                | INVALID",
      "a.b.kubernetes.io   | http://10.0.0.1:8080/pr/1                  | APPROVED",
      "notk8s.io           | null                                       | n/a",
  })
  void states(String group, String annotation, String want) {
    JsonObject c = crd(group, annotation);
    if ("n/a".equals(want)) {
      assertTrue(ApiApproval.problems(c, null).isEmpty());
      assertNull(ApiApproval.condition(c, "2026-12-07T00:00:00Z"));
      return;
    }
    assertEquals(ApiApproval.State.valueOf(want), ApiApproval.state(c));
  }

  @Test
  void createsNeedApprovalUpdatesOnlyWhenTheStateChanges() {
    List<JsonObject> missing = ApiApproval.problems(crd("x.k8s.io", null), null);
    assertEquals(1, missing.size());
    assertEquals("FieldValueRequired", missing.get(0).getString("reason"));
    assertEquals("metadata.annotations[api-approved.kubernetes.io]", missing.get(0).getString("field"));
    assertEquals("Required value: protected groups must have approval annotation \"api-approved.kubernetes.io\", see "
        + "https://github.com/kubernetes/enhancements/pull/1111", missing.get(0).getString("message"));
    List<JsonObject> invalid = ApiApproval.problems(crd("x.k8s.io", "soon"), null);
    assertEquals("Invalid value: \"soon\": protected groups must have approval annotation \"api-approved.kubernetes.io\""
        + " with either a URL or a reason starting with \"unapproved\", see "
        + "https://github.com/kubernetes/enhancements/pull/1111", invalid.get(0).getString("message"));
    assertTrue(ApiApproval.problems(crd("x.k8s.io", "unapproved"), null).isEmpty());
    // an update that leaves the state as it was (a stored CRD from before the rule) passes
    assertTrue(ApiApproval.problems(crd("x.k8s.io", null), crd("x.k8s.io", "")).isEmpty());
    assertEquals(1, ApiApproval.problems(crd("x.k8s.io", null), crd("x.k8s.io", "https://x.io/1")).size());
  }

  @Test
  void theControllersCondition() {
    JsonObject approved = ApiApproval.condition(crd("k8s.io", "https://x.io/1"), "2026-12-07T00:00:00Z");
    JsonObject cond = CrdConditions.find(approved, ApiApproval.CONDITION);
    assertEquals("True", cond.getString("status"));
    assertEquals("ApprovedAnnotation", cond.getString("reason"));
    assertEquals("approved in https://x.io/1", cond.getString("message"));
    assertNull(ApiApproval.condition(approved, "2026-12-07T00:00:09Z"), "no change, no write");
    JsonObject bypassed = CrdConditions.find(ApiApproval.condition(crd("k8s.io", "unapproved, testing"),
        "2026-12-07T00:00:00Z"), ApiApproval.CONDITION);
    assertEquals("False", bypassed.getString("status"));
    assertEquals("UnapprovedAnnotation", bypassed.getString("reason"));
    assertEquals("not approved: \"unapproved, testing\"", bypassed.getString("message"));
  }
}
