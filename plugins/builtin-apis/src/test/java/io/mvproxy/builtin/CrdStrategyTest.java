package io.mvproxy.builtin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.StatusException;
import io.mvproxy.registry.impl.model.CrdConditions;
import io.mvproxy.registry.impl.rest.CrdRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The CRD strategy on its own (strategy.go, validation.go, etcd.go Delete); the fleet test covers it through
 * kubectl.
 */
@Tag("unit")
class CrdStrategyTest {
  static final String CRDS = "customresourcedefinitions.apiextensions.k8s.io";
  static final String PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  final CrdStrategy s = new CrdStrategy();

  static JsonObject crd() {
    return new JsonObject("""
        {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
         "metadata":{"name":"foos.example.com","uid":"u1","generation":1},
         "spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"foos","kind":"Foo"},
          "versions":[{"name":"v1","served":true,"storage":true,
            "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}""");
  }

  /** The create path: prepare, then the validation the REST layer runs on a worker thread. */
  JsonObject create(CrdRequest req, JsonObject obj) {
    assertTrue(s.validatesBlocking());
    JsonObject out = s.prepareCreate(req, obj);
    s.validateBlocking(req, null, out);
    return out;
  }

  /** The update path: prepare, then the validation the REST layer runs on a worker thread. */
  JsonObject update(CrdRequest req, JsonObject old, JsonObject next) {
    JsonObject out = s.prepareUpdate(req, old, next);
    s.validateBlocking(req, old, out);
    return out;
  }

  CrdRequest req(String method, String path) {
    return StrategiesTest.request(CRDS, method, path, s);
  }

  @Test
  void createValidatesWithTheManifestValidatorAndSetsStoredVersions() {
    JsonObject in = crd().put("status", new JsonObject().put("storedVersions", new JsonArray().add("x")));
    JsonObject out = create(req("POST", PATH), in);
    assertEquals(new JsonObject().put("storedVersions", new JsonArray().add("v1")), out.getJsonObject("status"));
    JsonObject bad = crd();
    bad.getJsonObject("metadata").put("name", "bars.example.com");
    bad.getJsonObject("spec").put("scope", "Everywhere");
    StatusException e = assertThrows(StatusException.class, () -> create(req("POST", PATH), bad));
    assertEquals(422, e.code());
    assertTrue(e.getMessage().contains("metadata.name: Invalid value: \"bars.example.com\": must be "
        + "spec.names.plural+\".\"+spec.group"), e.getMessage());
    assertTrue(e.getMessage().contains("spec.scope: Unsupported value: \"Everywhere\""), e.getMessage());
    JsonObject served = crd();
    served.getJsonObject("metadata").put("annotations", new JsonObject().put(CrdObjects.SERVED_BY, "{}"));
    assertEquals(422, assertThrows(StatusException.class, () -> create(req("POST", PATH), served)).code());
  }

  /**
   * A generateName is held to the CRD's name rule too, on create only (apiextensions
   * {@code ValidateCustomResourceDefinition} passes {@code nameValidationFn} to {@code ValidateObjectMeta}: the
   * generateName cause first, then the name's; {@code ValidateCustomResourceDefinitionUpdate} does not).
   */
  @Test
  void aGenerateNameMustBePluralDotGroupOnCreateOnly() {
    JsonObject gen = crd();
    gen.getJsonObject("metadata").put("name", "foos-x7k2p").put("generateName", "foos-");
    StatusException e = assertThrows(StatusException.class, () -> create(req("POST", PATH), gen));
    assertEquals(422, e.code());
    JsonArray causes = e.toStatus().getJsonObject("details").getJsonArray("causes");
    assertEquals("metadata.generateName", causes.getJsonObject(0).getString("field"));
    assertEquals("Invalid value: \"foos-\": must be spec.names.plural+\".\"+spec.group",
        causes.getJsonObject(0).getString("message"));
    assertEquals("metadata.name", causes.getJsonObject(1).getString("field"));
    JsonObject exact = crd();
    exact.getJsonObject("metadata").put("generateName", "foos.example.com");
    create(req("POST", PATH), exact);
    JsonObject old = create(req("POST", PATH), crd());
    JsonObject next = old.copy();
    next.getJsonObject("metadata").put("generateName", "foos-");
    update(req("PUT", PATH + "/foos.example.com"), old, next);
  }

  @Test
  void conversionDefaultedAsV1AndValidated() {
    JsonObject out = create(req("POST", PATH), crd());
    assertEquals(new JsonObject().put("strategy", "None"), out.getJsonObject("spec").getJsonObject("conversion"));
    JsonObject hook = crd();
    hook.getJsonObject("spec").put("conversion", new JsonObject().put("strategy", "Webhook").put("webhook",
        new JsonObject().put("conversionReviewVersions", new JsonArray().add("v1")).put("clientConfig",
            new JsonObject().put("service", new JsonObject().put("namespace", "d").put("name", "conv")))));
    JsonObject created = create(req("POST", PATH), hook);
    assertEquals(443, created.getJsonObject("spec").getJsonObject("conversion").getJsonObject("webhook")
        .getJsonObject("clientConfig").getJsonObject("service").getInteger("port"));
    JsonObject bad = crd();
    bad.getJsonObject("spec").put("conversion", new JsonObject().put("strategy", "Webhook"));
    StatusException e = assertThrows(StatusException.class, () -> create(req("POST", PATH), bad));
    assertEquals(422, e.code());
    assertEquals("CustomResourceDefinition.apiextensions.k8s.io \"foos.example.com\" is invalid: ["
        + "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook, "
        + "spec.conversion.conversionReviewVersions: Required value]", e.getMessage());
  }

  @Test
  void updateKeepsGroupAndPluralAndOnceEstablishedScopeAndKind() {
    JsonObject old = create(req("POST", PATH), crd());
    CrdRequest put = req("PUT", PATH + "/foos.example.com");
    JsonObject scope = old.copy();
    scope.getJsonObject("spec").put("scope", "Cluster");
    update(put, old, scope.copy());
    CrdConditions.set(old, CrdConditions.ESTABLISHED, "True", "InitialNamesAccepted", "x", "2026-01-01T00:00:00Z");
    StatusException e = assertThrows(StatusException.class, () -> update(put, old, scope.copy()));
    assertEquals("CustomResourceDefinition.apiextensions.k8s.io \"foos.example.com\" is invalid: spec.scope: "
        + "Invalid value: \"Cluster\": field is immutable", e.getMessage());
    JsonObject group = old.copy();
    group.getJsonObject("spec").put("group", "other.com");
    StatusException g = assertThrows(StatusException.class, () -> update(put, old, group));
    assertTrue(g.getMessage().contains("spec.group: Invalid value: \"other.com\": field is immutable"),
        g.getMessage());
  }

  @Test
  void aNewStorageVersionIsAddedToStoredVersionsAndStatusChecksThem() {
    JsonObject old = create(req("POST", PATH), crd());
    JsonObject next = old.copy();
    JsonArray vs = next.getJsonObject("spec").getJsonArray("versions");
    vs.getJsonObject(0).put("storage", false);
    vs.add(new JsonObject().put("name", "v2").put("served", true).put("storage", true));
    JsonObject out = update(req("PUT", PATH + "/foos.example.com"), old, next);
    assertEquals(new JsonArray().add("v1").add("v2"), out.getJsonObject("status").getJsonArray("storedVersions"));
    CrdRequest status = req("PUT", PATH + "/foos.example.com/status");
    JsonObject dropped = out.copy();
    dropped.getJsonObject("status").put("storedVersions", new JsonArray().add("v1"));
    StatusException e = assertThrows(StatusException.class, () -> update(status, out, dropped));
    assertEquals("CustomResourceDefinition.apiextensions.k8s.io \"foos.example.com\" is invalid: "
        + "status.storedVersions: Invalid value: [\"v1\"]: must have the storage version v2", e.getMessage());
    JsonObject unknown = out.copy();
    unknown.getJsonObject("status").put("storedVersions", new JsonArray().add("v2").add("v9"));
    assertTrue(assertThrows(StatusException.class, () -> update(status, out, unknown)).getMessage()
        .contains("status.storedVersions[1]: Invalid value: \"v9\": must appear in spec.versions"));
  }

  @Test
  void firstDeleteAddsTheCleanupFinalizerAndTerminating() {
    JsonObject cur = create(req("POST", PATH), crd());
    CrdRequest del = req("DELETE", PATH + "/foos.example.com");
    JsonObject marked = s.onDelete(del, cur);
    assertEquals(new JsonArray().add(CrdConditions.CLEANUP_FINALIZER),
        marked.getJsonObject("metadata").getJsonArray("finalizers"));
    assertTrue(marked.getJsonObject("metadata").getValue("deletionTimestamp") != null);
    JsonObject t = CrdConditions.find(marked, CrdConditions.TERMINATING);
    assertEquals("True", t.getString("status"));
    assertEquals("InstanceDeletionPending", t.getString("reason"));
    assertNull(s.onDelete(del, marked), "a second DELETE takes the generic path (kept while finalizers remain)");
  }

  @Test
  void aPluginsCrdIsRefusedWith409NamingItsNodes() {
    JsonObject plugin = CrdObjects.merge(null, "node-a", crd(), "2026-01-01T00:00:00Z");
    for (Runnable r : new Runnable[] {
        () -> update(req("PUT", PATH + "/foos.example.com"), plugin, plugin.copy()),
        () -> update(req("PUT", PATH + "/foos.example.com/status"), plugin, plugin.copy()),
        () -> s.onDelete(req("DELETE", PATH + "/foos.example.com"), plugin)}) {
      StatusException e = assertThrows(StatusException.class, r::run);
      assertEquals(409, e.code());
      assertTrue(e.getMessage().contains("provided by plugins of the nodes node-a"), e.getMessage());
    }
  }
}
