package io.mvproxy.registry.impl.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.admission.Admission;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The AdmissionReview v1 codec: the request as kube-apiserver sends it, the response checks, the error texts. */
@Tag("unit")
class AdmissionReviewsTest {
  static final UserInfo ALICE = new UserInfo("alice", "uid-1", List.of("dev", "system:authenticated"),
      Map.of("scopes", List.of("a", "b")));

  @Test
  void requestCarriesEverythingUpstreamSends() {
    JsonObject obj = new JsonObject().put("apiVersion", "demo.io/v2").put("kind", "Widget")
        .put("metadata", new JsonObject().put("name", "w1"));
    Admission.Attributes a = new Admission.Attributes("demo.io", "v2", "widgets", "status", "Widget", "ns1", "w1",
        "UPDATE", obj, obj.copy(), new JsonObject().put("kind", "UpdateOptions").put("apiVersion", "meta.k8s.io/v1"),
        true, ALICE, true, List.of("v1"));
    JsonObject review = AdmissionReviews.request("u-1", a, "v1");
    assertEquals("admission.k8s.io/v1", review.getString("apiVersion"));
    assertEquals("AdmissionReview", review.getString("kind"));
    JsonObject r = review.getJsonObject("request");
    assertEquals("u-1", r.getString("uid"));
    assertEquals(new JsonObject().put("group", "demo.io").put("version", "v1").put("kind", "Widget"),
        r.getJsonObject("kind"));
    assertEquals(new JsonObject().put("group", "demo.io").put("version", "v1").put("resource", "widgets"),
        r.getJsonObject("resource"));
    assertEquals(new JsonObject().put("group", "demo.io").put("version", "v2").put("kind", "Widget"),
        r.getJsonObject("requestKind"));
    assertEquals("v2", r.getJsonObject("requestResource").getString("version"));
    assertEquals("status", r.getString("subResource"));
    assertEquals("status", r.getString("requestSubResource"));
    assertEquals("w1", r.getString("name"));
    assertEquals("ns1", r.getString("namespace"));
    assertEquals("UPDATE", r.getString("operation"));
    assertEquals(new JsonObject().put("username", "alice").put("uid", "uid-1")
        .put("groups", new JsonArray().add("dev").add("system:authenticated"))
        .put("extra", new JsonObject().put("scopes", new JsonArray().add("a").add("b"))), r.getJsonObject("userInfo"));
    assertEquals("demo.io/v1", r.getJsonObject("object").getString("apiVersion"));
    assertEquals("demo.io/v1", r.getJsonObject("oldObject").getString("apiVersion"));
    assertTrue(r.getBoolean("dryRun"));
    assertEquals("UpdateOptions", r.getJsonObject("options").getString("kind"));
    // the caller's object is not changed
    assertEquals("demo.io/v2", obj.getString("apiVersion"));
  }

  @Test
  void createOfClusterScopedObjectOmitsNamespaceAndOldObject() {
    Admission.Attributes a = new Admission.Attributes("", "v1", "namespaces", "", "Namespace", "", "", "CREATE",
        new JsonObject().put("metadata", new JsonObject()), null, null, false, ALICE, false, List.of());
    JsonObject r = AdmissionReviews.request("u", a, "v1").getJsonObject("request");
    assertFalse(r.containsKey("namespace"));
    assertFalse(r.containsKey("name"));
    assertFalse(r.containsKey("oldObject"));
    assertFalse(r.containsKey("subResource"));
    assertEquals("v1", r.getJsonObject("object").getString("apiVersion"));
  }

  static JsonObject answer(JsonObject response) {
    return new JsonObject().put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview")
        .put("response", response);
  }

  @Test
  void responsePatchDecoded() {
    String patch = "[{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{\"a\":\"b\"}}]";
    AdmissionReviews.Response r = AdmissionReviews.parse(answer(new JsonObject().put("uid", "u").put("allowed", true)
        .put("patchType", "JSONPatch").put("patch", Base64.getEncoder().encodeToString(
            patch.getBytes(StandardCharsets.UTF_8))).put("warnings", new JsonArray().add("w1"))), "u", true);
    assertTrue(r.allowed());
    assertEquals(new JsonArray(patch), r.patch());
    assertEquals(List.of("w1"), r.warnings());
  }

  @Test
  void responseChecksAsUpstream() {
    assertEquals("expected response.uid=\"u\", got \"x\"", assertThrows(IllegalArgumentException.class,
        () -> AdmissionReviews.parse(answer(new JsonObject().put("uid", "x").put("allowed", true)), "u", false))
        .getMessage());
    assertEquals("webhook response was absent", assertThrows(IllegalArgumentException.class,
        () -> AdmissionReviews.parse(answer(null), "u", false)).getMessage());
    assertEquals("expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got "
        + "admission.k8s.io/v1beta1, Kind=AdmissionReview", assertThrows(IllegalArgumentException.class,
        () -> AdmissionReviews.parse(answer(new JsonObject()).put("apiVersion", "admission.k8s.io/v1beta1"), "u",
            false)).getMessage());
    assertEquals("webhook returned response.patch but not response.patchType",
        assertThrows(IllegalArgumentException.class, () -> AdmissionReviews.parse(answer(new JsonObject()
            .put("uid", "u").put("allowed", true).put("patch", "W10=")), "u", true)).getMessage());
    assertEquals("validating webhook may not return response.patch or response.patchType",
        assertThrows(IllegalArgumentException.class, () -> AdmissionReviews.parse(answer(new JsonObject()
            .put("uid", "u").put("allowed", true).put("patch", "W10=").put("patchType", "JSONPatch")), "u", false))
            .getMessage());
    assertEquals("webhook returned invalid response.patchType of \"Merge\"",
        assertThrows(IllegalArgumentException.class, () -> AdmissionReviews.parse(answer(new JsonObject()
            .put("uid", "u").put("allowed", true).put("patch", "W10=").put("patchType", "Merge")), "u", true))
            .getMessage());
    AdmissionReviews.Response denied = AdmissionReviews.parse(answer(new JsonObject().put("uid", "u")), "u", false);
    assertFalse(denied.allowed());
    assertNull(denied.patch());
  }

  @Test
  void deniedTextsAndCodesAsWebhookErrors() {
    StatusException e = AdmissionReviews.denied("deny.example.com", new JsonObject().put("message", "no red")
        .put("code", 403).put("reason", "Forbidden"));
    assertEquals(403, e.code());
    assertEquals("admission webhook \"deny.example.com\" denied the request: no red", e.getMessage());
    assertEquals("Forbidden", e.toStatus().getString("reason"));
    StatusException low = AdmissionReviews.denied("d.example.com", new JsonObject().put("code", 200)
        .put("reason", "TooRed"));
    assertEquals(400, low.code());
    assertEquals("admission webhook \"d.example.com\" denied the request: TooRed", low.getMessage());
    assertEquals("TooRed", low.toStatus().getString("reason"));
    StatusException none = AdmissionReviews.denied("d.example.com", null);
    assertEquals(400, none.code());
    assertEquals("admission webhook \"d.example.com\" denied the request without explanation", none.getMessage());
    assertFalse(none.toStatus().containsKey("reason"));
  }

  @Test
  void callFailureIsInternalError() {
    StatusException e = AdmissionReviews.callFailed("w.example.com", "failed to call webhook: Post \"https://x\": "
        + "context deadline exceeded");
    assertEquals(500, e.code());
    assertEquals("InternalError", e.toStatus().getString("reason"));
    assertEquals("Internal error occurred: failed calling webhook \"w.example.com\": failed to call webhook: Post "
        + "\"https://x\": context deadline exceeded", e.getMessage());
  }
}
