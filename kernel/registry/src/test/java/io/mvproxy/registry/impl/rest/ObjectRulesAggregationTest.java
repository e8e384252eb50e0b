package io.mvproxy.registry.impl.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.registry.impl.model.CrdDefinition;
import io.mvproxy.registry.impl.model.CrdParser;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A write with invalid metadata is answered with every error of the object, as kube's validation aggregates
 * ({@code customResourceStrategy.Validate}: {@code ValidateObjectMetaAccessor}, then the schema, then the kind's own
 * rules): a bad name no longer hides bad labels or the schema's errors.
 */
@Tag("unit")
class ObjectRulesAggregationTest {
  private static final JsonObject CRD = new JsonObject("""
      {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
       "metadata":{"name":"widgets.example.com"},
       "spec":{"group":"example.com","scope":"Namespaced",
        "names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},
        "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",
         "properties":{"spec":{"type":"object","required":["color"],"properties":{
          "replicas":{"type":"integer","minimum":0},"color":{"type":"string"}}},
          "status":{"type":"object","properties":{"ready":{"type":"boolean"}}}}}},
         "subresources":{"status":{}}}]}}""");
  private static final String SUBDOMAIN = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
      + "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
      + "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  private static final String LABEL_VALUE = "a valid label must be an empty string or consist of alphanumeric "
      + "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
      + "'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

  /**
   * A kind rule of its own: {@code spec.color} must not be {@code "none"}; when it fails it answers for the kind, as
   * a built-in kind's rules do (a code kind's {@code violations} carry its schema's errors first themselves).
   */
  private static final ObjectStrategy NO_NONE = new ObjectStrategy() {
    @Override
    public JsonArray violations(CrdRequest req, JsonObject obj, JsonObject oldView) {
      JsonObject spec = obj.getJsonObject("spec", new JsonObject());
      return "none".equals(spec.getValue("color"))
          ? new JsonArray().add(new JsonObject().put("reason", "FieldValueInvalid")
              .put("message", "Invalid value: \"none\": pick a color").put("field", "spec.color"))
          : new JsonArray();
    }
  };

  private static CrdRequest request(String method, String path) {
    CrdDefinition crd = CrdParser.parse(CRD);
    return new CrdRequest(null, RequestInfo.parse(method, path, null),
        new UserInfo("admin", "", List.of("system:masters"), Map.of()), crd, crd.storageVersion(), NO_NONE);
  }

  /** @return "field: message" of each cause */
  private static String causes(StatusException e) {
    List<String> seen = new ArrayList<>();
    e.toStatus().getJsonObject("details").getJsonArray("causes").forEach(o -> seen.add(
        ((JsonObject) o).getString("field") + ": " + ((JsonObject) o).getString("message")));
    return String.join(" | ", seen);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
      valid metadata, schema errors left to the schema step | {"name":"w"} | {"replicas":-1} | ``
      name and label                                        | {"name":"Bad_","labels":{"k":"bad value"}} | {"color":"red"} | `metadata.name: Invalid value: "Bad_": SUBDOMAIN | metadata.labels: Invalid value: "bad value": LABEL_VALUE`
      name, then the schema's errors                        | {"name":"Bad_"} | {"replicas":-1} | `metadata.name: Invalid value: "Bad_": SUBDOMAIN | spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0 | spec.color: Required value`
      label, then the kind's own rule                       | {"name":"w","labels":{"k":"bad value"}} | {"color":"none"} | `metadata.labels: Invalid value: "bad value": LABEL_VALUE | spec.color: Invalid value: "none": pick a color`
      missing name, the kind's rule answers for the schema  | {} | {"color":"none","replicas":-2} | `metadata.name: Required value: name or generateName is required | spec.color: Invalid value: "none": pick a color`
      a label of the wrong type is answered alone           | {"name":"Bad_","labels":{"k":5}} | {"replicas":-1} | `metadata.name: Invalid value: "Bad_": SUBDOMAIN | metadata.labels.k: Invalid value: must be a string`
      """)
  void aCreateListsEveryError(String what, String meta, String spec, String expected) {
    CrdRequest req = request("POST", "/apis/example.com/v1/namespaces/a/widgets");
    JsonObject o = new JsonObject().put("apiVersion", "example.com/v1").put("kind", "Widget")
        .put("metadata", new JsonObject(meta).put("namespace", "a")).put("spec", new JsonObject(spec));
    ObjectRules rules = new ObjectRules();
    String want = expected == null ? "" : expected.replace("SUBDOMAIN", SUBDOMAIN).replace("LABEL_VALUE",
        LABEL_VALUE);
    if (want.isEmpty()) {
      rules.prepareCreate(req, o);
      return;
    }
    StatusException e = assertThrows(StatusException.class, () -> rules.prepareCreate(req, o), what);
    assertEquals(422, e.code(), what);
    assertEquals(want, causes(e), what);
  }

  /** {@code customResourceStrategy.PrepareForCreate} drops the status before {@code Validate}: none of its errors. */
  @org.junit.jupiter.api.Test
  void aCreatesStatusIsDroppedBeforeItIsValidated() {
    CrdRequest req = request("POST", "/apis/example.com/v1/namespaces/a/widgets");
    JsonObject o = new JsonObject().put("apiVersion", "example.com/v1").put("kind", "Widget")
        .put("metadata", new JsonObject().put("name", "Bad_").put("namespace", "a"))
        .put("spec", new JsonObject().put("color", "red")).put("status", new JsonObject().put("ready", "x"));
    StatusException e = assertThrows(StatusException.class, () -> new ObjectRules().prepareCreate(req, o));
    assertEquals("metadata.name: Invalid value: \"Bad_\": " + SUBDOMAIN, causes(e));
  }

  /** An update lists the metadata's update errors, then the schema's with the stored object as ratcheting's old. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
      unchanged invalid value ratchets     | {"replicas":-1,"color":"red"} | `metadata.labels: Invalid value: "bad value": LABEL_VALUE`
      a new invalid value is listed        | {"replicas":-3,"color":"red"} | `metadata.labels: Invalid value: "bad value": LABEL_VALUE | spec.replicas: Invalid value: -3: spec.replicas in body should be greater than or equal to 0`
      """)
  void anUpdateListsEveryError(String what, String spec, String expected) {
    CrdRequest req = request("PUT", "/apis/example.com/v1/namespaces/a/widgets/w");
    JsonObject old = new JsonObject().put("apiVersion", "example.com/v1").put("kind", "Widget")
        .put("metadata", new JsonObject().put("name", "w").put("namespace", "a").put("uid", "u1")
            .put("resourceVersion", "5").put("generation", 1).put("creationTimestamp", "2026-12-07T10:00:00Z"))
        .put("spec", new JsonObject().put("replicas", -1).put("color", "red"));
    JsonObject next = old.copy().put("spec", new JsonObject(spec));
    next.getJsonObject("metadata").put("labels", new JsonObject().put("k", "bad value"));
    StatusException e = assertThrows(StatusException.class, () -> new ObjectRules().prepareUpdate(req, old, next),
        what);
    assertEquals(expected.replace("LABEL_VALUE", LABEL_VALUE), causes(e), what);
  }
}
