package io.mvproxy.crd;

import io.mvproxy.registry.impl.CrdSourceOptions;
import io.mvproxy.registry.impl.CrdManifests;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.testkit.SharedTestData;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The real-world CRDs of shared/testdata served end to end: Table columns, scale, example objects. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("unit")
class SharedCrdsTest {
  @AutoClose
  TestNode node;
  Http http;

  @BeforeAll
  void start() throws Exception {
    List<JsonObject> manifests = new java.util.ArrayList<>();
    for (String f : new String[] {"cert-manager-certificaterequests.yaml", "knative-kafka-consumergroups.yaml",
        "prometheus-operator-alertmanagers.yaml", "samplecontroller-foos.yaml"}) {
      manifests.addAll(CrdManifests.read(SharedTestData.file("crds/" + f)));
    }
    node = TestNode.withOwnMember(CrdSourceOptions.DEFAULTS);
    node.addAll(manifests);
    http = new Http(node.base());
  }

  @Test
  void certManagerTableWithPrinterColumns() throws Exception {
    String base = "/apis/cert-manager.io/v1/namespaces/default/certificaterequests";
    JsonObject cr = new JsonObject().put("apiVersion", "cert-manager.io/v1").put("kind", "CertificateRequest")
        .put("metadata", new JsonObject().put("name", "cr1"))
        .put("spec", new JsonObject().put("issuerRef", new JsonObject().put("name", "ca-issuer"))
            .put("username", "alice").put("request", "LS0t"));
    JsonObject created = http.post(base, cr).json();
    JsonObject status = created.copy().put("status", new JsonObject().put("conditions", new JsonArray()
        .add(new JsonObject().put("type", "Approved").put("status", "True"))
        .add(new JsonObject().put("type", "Ready").put("status", "False").put("message", "Waiting"))));
    assertEquals(200, http.put(base + "/cr1/status", status).code());
    Http.Res t = http.get(base + "?limit=500", WatchTest.TABLE);
    assertEquals(200, t.code(), t.body());
    assertTrue(t.header("Content-Type").contains("as=Table"));
    JsonObject table = t.json();
    assertEquals("Table", table.getString("kind"));
    assertEquals("meta.k8s.io/v1", table.getString("apiVersion"));
    JsonArray defs = table.getJsonArray("columnDefinitions");
    assertEquals(List.of("Name", "Approved", "Denied", "Ready", "Issuer", "Requester", "Status", "Age"),
        defs.stream().map(d -> ((JsonObject) d).getString("name")).toList());
    assertEquals(1, defs.getJsonObject(6).getInteger("priority"));
    assertEquals("name", defs.getJsonObject(0).getString("format"));
    JsonObject row = table.getJsonArray("rows").getJsonObject(0);
    JsonArray cells = row.getJsonArray("cells");
    assertEquals("cr1", cells.getString(0));
    assertEquals("True", cells.getString(1));
    assertNull(cells.getValue(2), "no Denied condition");
    assertEquals("False", cells.getString(3));
    assertEquals("ca-issuer", cells.getString(4));
    assertEquals("alice", cells.getString(5));
    assertEquals("Waiting", cells.getString(6));
    assertTrue(cells.getString(7).matches("\\d+s"), cells.getString(7));
    assertEquals("PartialObjectMetadata", row.getJsonObject("object").getString("kind"));
    assertEquals("cr1", row.getJsonObject("object").getJsonObject("metadata").getString("name"));
    JsonObject none = http.get(base + "?includeObject=None", WatchTest.TABLE).json();
    assertTrue(none.getJsonArray("rows").getJsonObject(0).getValue("object") == null);
    JsonObject full = http.get(base + "/cr1?includeObject=Object", WatchTest.TABLE).json();
    assertEquals("CertificateRequest", full.getJsonArray("rows").getJsonObject(0).getJsonObject("object")
        .getString("kind"));
  }

  @Test
  void knativeScaleSubresource() throws Exception {
    String base = "/apis/internal.kafka.eventing.knative.dev/v1alpha1/namespaces/default/consumergroups";
    JsonObject cg = new JsonObject().put("apiVersion", "internal.kafka.eventing.knative.dev/v1alpha1")
        .put("kind", "ConsumerGroup").put("metadata", new JsonObject().put("name", "cg1"))
        .put("spec", new JsonObject().put("replicas", 2));
    JsonObject created = http.post(base, cg).json();
    JsonObject st = created.copy().put("status", new JsonObject().put("replicas", 1).put("selector", "app=cg1"));
    assertEquals(200, http.put(base + "/cg1/status", st).code());
    Http.Res s = http.get(base + "/cg1/scale");
    assertEquals(200, s.code(), s.body());
    assertEquals("Scale", s.json().getString("kind"));
    assertEquals("autoscaling/v1", s.json().getString("apiVersion"));
    assertEquals(2, s.json().getJsonObject("spec").getInteger("replicas"));
    assertEquals(1, s.json().getJsonObject("status").getInteger("replicas"));
    assertEquals("app=cg1", s.json().getJsonObject("status").getString("selector"));
    JsonObject scale = s.json().copy();
    scale.getJsonObject("spec").put("replicas", 5);
    Http.Res put = http.put(base + "/cg1/scale", scale);
    assertEquals(200, put.code(), put.body());
    assertEquals(5, put.json().getJsonObject("spec").getInteger("replicas"));
    assertEquals(409, http.put(base + "/cg1/scale", scale).code(), "stale Scale resourceVersion");
    Http.Res patch = http.patch(base + "/cg1/scale", "application/merge-patch+json", "{\"spec\":{\"replicas\":7}}");
    assertEquals(200, patch.code(), patch.body());
    JsonObject obj = http.get(base + "/cg1").json();
    assertEquals(7, obj.getJsonObject("spec").getInteger("replicas"));
    assertEquals(3, obj.getJsonObject("metadata").getInteger("generation"));
    List<DiscoveryResource> rs = node.sources.get(1).groupVersions().get(0).resources();
    assertEquals(List.of("status", "scale"), rs.get(0).subresources().stream().map(x -> x.subresource()).toList());
  }

  @Test
  void exampleObjectsOfPrometheusAndSampleController() throws Exception {
    JsonObject am = CrdManifests.read(SharedTestData.file("objects/prometheus-operator-alertmanager-example.yaml"))
        .get(0);
    Http.Res c = http.post("/apis/monitoring.coreos.com/v1/namespaces/monitoring/alertmanagers", am);
    assertEquals(201, c.code(), c.body());
    JsonObject foo = CrdManifests.read(SharedTestData.file("objects/samplecontroller-example-foo.yaml")).get(0);
    Http.Res f = http.post("/apis/samplecontroller.k8s.io/v1alpha1/namespaces/default/foos", foo);
    assertEquals(201, f.code(), f.body());
    Http.Res t = http.get("/apis/samplecontroller.k8s.io/v1alpha1/namespaces/default/foos", WatchTest.TABLE);
    assertEquals(List.of("Name", "Age"), t.json().getJsonArray("columnDefinitions").stream()
        .map(d -> ((JsonObject) d).getString("name")).toList());
    assertEquals(List.of("am"), node.sources.get(2).groupVersions().get(0).resources().get(0).shortNames());
  }

  @Test
  void unknownFieldsArePrunedPerStructuralSchema() throws Exception {
    String base = "/apis/samplecontroller.k8s.io/v1alpha1/namespaces/prune/foos";
    JsonObject foo = new JsonObject().put("apiVersion", "samplecontroller.k8s.io/v1alpha1").put("kind", "Foo")
        .put("metadata", new JsonObject().put("name", "p1").put("annotations", new JsonObject().put("a", "b")))
        .put("spec", new JsonObject().put("deploymentName", "d").put("replicas", 2).put("extra", "x"))
        .put("topLevel", 1);
    Http.Res strict = http.send("POST", base + "?fieldValidation=Strict", "application/json", foo.encode(),
        "application/json");
    assertEquals(400, strict.code(), strict.body());
    assertTrue(strict.json().getString("message").contains("unknown field \"spec.extra\""),
        strict.json().getString("message"));
    Http.Res warn = http.post(base, foo);
    assertEquals(201, warn.code(), warn.body());
    assertTrue(!warn.json().getJsonObject("spec").containsKey("extra"));
    assertTrue(!warn.json().containsKey("topLevel"));
    assertEquals("d", warn.json().getJsonObject("spec").getString("deploymentName"));
    assertEquals("b", warn.json().getJsonObject("metadata").getJsonObject("annotations").getString("a"));
    assertEquals(2, warn.raw().headers().allValues("Warning").size(), warn.raw().headers().map().toString());
    Http.Res patched = http.patch(base + "/p1?fieldValidation=Ignore", "application/merge-patch+json",
        "{\"spec\":{\"more\":1,\"replicas\":3}}");
    assertEquals(200, patched.code(), patched.body());
    assertTrue(!patched.json().getJsonObject("spec").containsKey("more"));
    assertEquals(3, patched.json().getJsonObject("spec").getInteger("replicas"));
  }

  @Test
  void schemaValidationIs422() throws Exception {
    String base = "/apis/samplecontroller.k8s.io/v1alpha1/namespaces/valid/foos";
    JsonObject foo = new JsonObject().put("apiVersion", "samplecontroller.k8s.io/v1alpha1").put("kind", "Foo")
        .put("metadata", new JsonObject().put("name", "v1"))
        .put("spec", new JsonObject().put("deploymentName", 5).put("replicas", 11));
    Http.Res r = http.post(base, foo);
    assertEquals(422, r.code(), r.body());
    assertEquals("Invalid", r.json().getString("reason"));
    JsonArray causes = r.json().getJsonObject("details").getJsonArray("causes");
    assertEquals(2, causes.size(), causes.encode());
    assertTrue(r.json().getString("message").contains("spec.replicas in body should be less than or equal to 10"),
        r.json().getString("message"));
    assertTrue(r.json().getString("message").contains("spec.deploymentName in body must be of type string"),
        r.json().getString("message"));
    foo.getJsonObject("spec").put("deploymentName", "d").put("replicas", 3);
    assertEquals(201, http.post(base, foo).code());
    assertEquals(422, http.patch(base + "/v1", "application/merge-patch+json", "{\"spec\":{\"replicas\":0}}")
        .code());
  }
}
