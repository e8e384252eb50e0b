package io.mvproxy.crd;

import io.mvproxy.registry.impl.CrdApiSource;
import io.mvproxy.registry.impl.CrdSourceOptions;
import io.mvproxy.registry.impl.CrdManifests;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Schema validation, defaulting and transition rules over real HTTP: the gateway-api GatewayClass CRD (immutable
 * {@code controllerName} by CEL) through create, update, merge patch and server-side apply, with kube-apiserver's
 * complete 422 Status bodies; defaults of a CRD version loaded after the object was stored, visible on read.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("unit")
class SchemaHttpTest {
  static final Path DATA = Path.of("../../kernel/registry/src/test/resources/schema-crds");
  static final String GC = "/apis/gateway.networking.k8s.io/v1/gatewayclasses";
  @AutoClose
  TestNode node;
  Http http;

  @BeforeAll
  void start() throws Exception {
    node = TestNode.withOwnMember(CrdSourceOptions.DEFAULTS);
    node.add(CrdManifests.read(DATA.resolve("gateway-api-gatewayclasses.yaml")).get(0));
    http = new Http(node.base());
  }

  static JsonObject gatewayClass(String name, String controller) {
    return new JsonObject().put("apiVersion", "gateway.networking.k8s.io/v1").put("kind", "GatewayClass")
        .put("metadata", new JsonObject().put("name", name))
        .put("spec", new JsonObject().put("controllerName", controller));
  }

  @Test
  void invalidCreateGetsKubeApiserversStatus() throws Exception {
    Http.Res r = http.post(GC, gatewayClass("bad", "no-slash").put("spec", new JsonObject()
        .put("controllerName", "no-slash").put("description", "x".repeat(65))));
    assertEquals(422, r.code(), r.body());
    String pattern = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\\/"
        + "[A-Za-z0-9\\/\\-._~%!$&'()*+,;=:]+$";
    String c1 = "Invalid value: \"no-slash\": spec.controllerName in body should match '" + pattern + "'";
    String c2 = "Too long: may not be more than 64 bytes";
    String c3 = "Invalid value: \"null\": some validation rules were not checked because the object was invalid; "
        + "correct the existing errors to complete validation";
    JsonObject expected = new JsonObject().put("kind", "Status").put("apiVersion", "v1")
        .put("metadata", new JsonObject()).put("status", "Failure")
        .put("message", "GatewayClass.gateway.networking.k8s.io \"bad\" is invalid: [spec.controllerName: " + c1
            + ", spec.description: " + c2 + ", <nil>: " + c3 + "]")
        .put("reason", "Invalid")
        .put("details", new JsonObject().put("name", "bad").put("group", "gateway.networking.k8s.io")
            .put("kind", "GatewayClass").put("causes", new JsonArray()
                .add(new JsonObject().put("reason", "FieldValueInvalid").put("message", c1)
                    .put("field", "spec.controllerName"))
                .add(new JsonObject().put("reason", "FieldValueTooLong").put("message", c2)
                    .put("field", "spec.description"))
                .add(new JsonObject().put("reason", "FieldValueInvalid").put("message", c3).put("field", "<nil>"))))
        .put("code", 422);
    assertEquals(expected, r.json());
    assertEquals(404, http.get(GC + "/bad").code(), "nothing stored");
  }

  @Test
  void immutableFieldThroughUpdatePatchAndApply() throws Exception {
    Http.Res created = http.post(GC, gatewayClass("gc1", "example.com/one"));
    assertEquals(201, created.code(), created.body());
    // the status default of the schema is served (defaulting on read)
    assertEquals("Accepted", created.json().getJsonObject("status").getJsonArray("conditions").getJsonObject(0)
        .getString("type"));
    JsonObject cur = http.get(GC + "/gc1").json();
    String immutable = "Invalid value: \"string\": field is immutable";
    JsonObject changed = cur.copy();
    changed.getJsonObject("spec").put("controllerName", "example.com/two");
    Http.Res put = http.put(GC + "/gc1", changed);
    assertEquals(422, put.code(), put.body());
    assertEquals(new JsonArray().add(new JsonObject().put("reason", "FieldValueInvalid").put("message", immutable)
        .put("field", "spec.controllerName")), put.json().getJsonObject("details").getJsonArray("causes"));
    Http.Res merge = http.patch(GC + "/gc1", "application/merge-patch+json",
        "{\"spec\":{\"controllerName\":\"example.com/three\"}}");
    assertEquals(422, merge.code(), merge.body());
    Http.Res apply = http.patch(GC + "/gc1?fieldManager=tester&force=true", "application/apply-patch+yaml",
        "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata:\n  name: gc1\nspec:\n"
            + "  controllerName: example.com/four\n");
    assertEquals(422, apply.code(), apply.body());
    assertEquals("GatewayClass.gateway.networking.k8s.io \"gc1\" is invalid: spec.controllerName: " + immutable,
        apply.json().getString("message"));
    // an update leaving the field alone passes the transition rule
    Http.Res ok = http.patch(GC + "/gc1?fieldManager=tester", "application/apply-patch+yaml",
        "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata:\n  name: gc1\nspec:\n"
            + "  controllerName: example.com/one\n  description: fine\n");
    assertEquals(200, ok.code(), ok.body());
    assertEquals("example.com/one", http.get(GC + "/gc1").json().getJsonObject("spec").getString("controllerName"));
  }

  @Test
  void defaultsOfANewerSchemaAppearOnObjectsStoredBefore() throws Exception {
    JsonObject withDefault = CrdManifests.read(DATA.resolve("features-crd.yaml")).get(0);
    JsonObject withoutDefault = withDefault.copy();
    JsonObject specProps = withoutDefault.getJsonObject("spec").getJsonArray("versions").getJsonObject(0)
        .getJsonObject("schema").getJsonObject("openAPIV3Schema").getJsonObject("properties").getJsonObject("spec")
        .getJsonObject("properties");
    specProps.getJsonObject("mode").remove("default");
    CrdApiSource old = node.add(withoutDefault);
    String base = "/apis/fidelity.mvproxy.io/v1/namespaces/default/probes";
    JsonObject probe = new JsonObject().put("apiVersion", "fidelity.mvproxy.io/v1").put("kind", "Probe")
        .put("metadata", new JsonObject().put("name", "p-old")).put("spec", new JsonObject().put("min", 1));
    Http.Res created = http.post(base, probe);
    assertEquals(201, created.code(), created.body());
    assertFalse(created.json().getJsonObject("spec").containsKey("mode"));
    node.sources.remove(old);
    old.close().await(10, java.util.concurrent.TimeUnit.SECONDS);
    node.add(withDefault);
    JsonObject read = http.get(base + "/p-old").json();
    assertEquals("Open", read.getJsonObject("spec").getString("mode"), read.encode());
    assertEquals("Open", http.get(base).json().getJsonArray("items").getJsonObject(0).getJsonObject("spec")
        .getString("mode"));
  }
}
