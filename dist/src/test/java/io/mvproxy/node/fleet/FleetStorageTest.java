package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.storage.EtcdRunner;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A 3-node fleet (separate processes) on a real etcd ({@code --storage-backend=etcd3}): a full stop (SIGTERM to every
 * node) and start keeps every object (custom resources and one of every stored built-in kind, the published CRD, the
 * default ServiceAccount and RBAC policy) with its uid, data and resourceVersion, and the list resourceVersion does not
 * go backwards; kill -9 of two nodes under writes loses no acknowledged write; an
 * etcd outage gives 503/504 Status objects within the storage deadline and the nodes recover by themselves.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("fleet")
class FleetStorageTest {
  static final String WIDGETS = "/apis/demo.mvproxy.io/v2/namespaces/default/widgets";
  static final Map<String, String> JSON = Map.of("Content-Type", "application/json");
  EtcdRunner etcd;
  FleetHarness fleet;
  HttpsClient admin;
  final Map<String, JsonObject> acked = new LinkedHashMap<>();

  @BeforeAll
  void start() throws Exception {
    etcd = EtcdRunner.single();
    Path tmp = Files.createTempDirectory("mvproxy-fleet-storage");
    Map<String, Map<String, List<Path>>> plugins = new LinkedHashMap<>();
    for (String n : List.of("node-a", "node-b", "node-c")) {
      plugins.put(n, new LinkedHashMap<>(Map.of("widgets-new", TestData.newWidgets())));
    }
    fleet = new FleetHarness(tmp, plugins);
    for (FleetHarness.NodeProc n : fleet.nodes()) {
      fleet.configure(n.name, new JsonObject().put("storageBackend", "etcd3").put("etcdServers", etcd.servers()));
    }
    admin = new HttpsClient(fleet.pki().caCert(), fleet.pki().adminCert(), fleet.pki().adminKey());
    fleet.startAllAndAwaitReady(admin, 120_000);
  }

  @AfterAll
  void stop() throws Exception {
    if (admin != null) {
      admin.close();
    }
    if (fleet != null) {
      fleet.close();
    }
    if (etcd != null) {
      etcd.close();
    }
  }

  static JsonObject widget(String name) {
    return new JsonObject().put("apiVersion", "demo.mvproxy.io/v2").put("kind", "Widget")
        .put("metadata", new JsonObject().put("name", name).put("namespace", "default"))
        .put("spec", new JsonObject().put("size", 1).put("color", "red"));
  }

  Map<String, JsonObject> listed(String url) throws Exception {
    HttpsClient.Resp r = admin.get(url, WIDGETS);
    assertEquals(200, r.status(), r.text());
    Map<String, JsonObject> out = new HashMap<>();
    r.json().getJsonArray("items").forEach(o -> out.put(((JsonObject) o).getJsonObject("metadata")
        .getString("name"), ((JsonObject) o).getJsonObject("metadata")));
    return out;
  }

  @Test
  @Order(1)
  void fullStopAndStartKeepsEveryObject() throws Exception {
    List<FleetHarness.NodeProc> nodes = fleet.nodes();
    for (int i = 0; i < 30; i++) {
      HttpsClient.Resp r = admin.send(HttpMethod.POST, nodes.get(i % 3).url(), WIDGETS, JSON,
          widget("r" + i).encode());
      assertEquals(201, r.status(), r.text());
      acked.put("r" + i, r.json().getJsonObject("metadata"));
    }
    int i = 0;
    for (Map.Entry<String, String> e : BUILTINS.entrySet()) {
      String collection = e.getKey().substring(0, e.getKey().lastIndexOf('/'));
      HttpsClient.Resp r = admin.send(HttpMethod.POST, nodes.get(i++ % 3).url(), collection, JSON, e.getValue());
      assertEquals(201, r.status(), e.getKey() + ": " + r.text());
    }
    List<String> paths = new ArrayList<>(BUILTINS.keySet());
    paths.addAll(List.of("/api/v1/namespaces/restart-ns/serviceaccounts/default",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.demo.mvproxy.io",
        "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin", "/api/v1/namespaces/kube-system", WIDGETS + "/r0"));
    Map<String, JsonObject> before = new LinkedHashMap<>();
    for (String path : paths) {
      FleetTest.await(path, 30_000, () -> admin.get(nodes.get(0).url(), path).status() == 200);
      before.put(path, admin.get(nodes.get(0).url(), path).json());
    }
    long listRv = Long.parseLong(admin.get(nodes.get(0).url(), WIDGETS).json().getJsonObject("metadata")
        .getString("resourceVersion"));
    long t0 = System.nanoTime();
    fleet.stopAll();
    fleet.startAllAndAwaitReady(admin, 120_000);
    System.out.printf("FIGURE fleet on etcd stopped and started again in %d ms%n", (System.nanoTime() - t0) / 1_000_000);
    for (FleetHarness.NodeProc n : nodes) {
      Map<String, JsonObject> back = listed(n.url());
      for (Map.Entry<String, JsonObject> e : acked.entrySet()) {
        JsonObject m = back.get(e.getKey());
        assertTrue(m != null, e.getKey() + " is back on " + n.name);
        assertEquals(e.getValue().getString("uid"), m.getString("uid"));
        assertEquals(e.getValue().getString("resourceVersion"), m.getString("resourceVersion"));
      }
      long rv = Long.parseLong(admin.get(n.url(), WIDGETS).json().getJsonObject("metadata")
          .getString("resourceVersion"));
      assertTrue(rv >= listRv, "list resourceVersion on " + n.name + " went backwards: " + rv + " < " + listRv);
      for (Map.Entry<String, JsonObject> e : before.entrySet()) {
        HttpsClient.Resp r = admin.get(n.url(), e.getKey());
        assertEquals(200, r.status(), e.getKey() + " is back on " + n.name + ": " + r.text());
        assertEquals(e.getValue(), r.json(), e.getKey() + " on " + n.name
            + ": same uid, data and resourceVersion (unchanged by the restart: bootstrap, CRD publication)");
      }
    }
    HttpsClient.Resp ev = admin.get(nodes.get(2).url(), "/apis/events.k8s.io/v1/namespaces/restart-ns/events/e2");
    assertEquals("restarted", ev.json().getString("note"), "a core event read through events.k8s.io: " + ev.text());
  }

  /** One object of every stored built-in kind: object path to its JSON (created in this order). */
  static final Map<String, String> BUILTINS = builtins();

  static Map<String, String> builtins() {
    String ns = "/api/v1/namespaces/restart-ns";
    String rbac = "/apis/rbac.authorization.k8s.io/v1";
    String ref = "\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":\"view\"},"
        + "\"subjects\":[{\"kind\":\"User\",\"apiGroup\":\"rbac.authorization.k8s.io\",\"name\":\"bob\"}]";
    String rules = "\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],\"verbs\":[\"get\"]}]";
    Map<String, String> m = new LinkedHashMap<>();
    m.put("/api/v1/namespaces/restart-ns", "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"restart-ns\"}}");
    m.put(ns + "/configmaps/c1", "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c1\"},"
        + "\"data\":{\"a\":\"b\"}}");
    m.put(ns + "/secrets/s1", "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"s1\"},"
        + "\"stringData\":{\"password\":\"x\"}}");
    m.put(ns + "/serviceaccounts/robot", "{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\",\"metadata\":"
        + "{\"name\":\"robot\"}}");
    m.put(ns + "/events/e1", "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"e1\"},"
        + "\"involvedObject\":{\"kind\":\"ConfigMap\",\"name\":\"c1\",\"namespace\":\"restart-ns\"},\"reason\":\"R\","
        + "\"message\":\"m\",\"type\":\"Normal\"}");
    m.put("/apis/events.k8s.io/v1/namespaces/restart-ns/events/e2", "{\"apiVersion\":\"events.k8s.io/v1\",\"kind\":"
        + "\"Event\",\"metadata\":{\"name\":\"e2\"},\"eventTime\":\"2026-01-01T00:00:00.000000Z\",\"reason\":\"R\","
        + "\"note\":\"restarted\",\"type\":\"Normal\",\"action\":\"A\",\"reportingController\":\"t\","
        + "\"reportingInstance\":\"t-1\",\"regarding\":{\"kind\":\"ConfigMap\",\"name\":\"c1\",\"namespace\":"
        + "\"restart-ns\"}}");
    m.put("/apis/coordination.k8s.io/v1/namespaces/restart-ns/leases/l1", "{\"apiVersion\":\"coordination.k8s.io/v1\","
        + "\"kind\":\"Lease\",\"metadata\":{\"name\":\"l1\"},\"spec\":{\"holderIdentity\":\"me\","
        + "\"leaseDurationSeconds\":15}}");
    m.put(rbac + "/namespaces/restart-ns/roles/r1", "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"Role\","
        + "\"metadata\":{\"name\":\"r1\"}," + rules + "}");
    m.put(rbac + "/namespaces/restart-ns/rolebindings/rb1", "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":"
        + "\"RoleBinding\",\"metadata\":{\"name\":\"rb1\"}," + ref + "}");
    m.put(rbac + "/clusterroles/cr1", "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"ClusterRole\","
        + "\"metadata\":{\"name\":\"cr1\"}," + rules + "}");
    m.put(rbac + "/clusterrolebindings/crb1", "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":"
        + "\"ClusterRoleBinding\",\"metadata\":{\"name\":\"crb1\"}," + ref + "}");
    return m;
  }

  @Test
  @Order(2)
  void killNineOfTwoNodesUnderWritesLosesNoAcknowledgedWrite() throws Exception {
    String a = fleet.node("node-a").url();
    List<String> ok = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      if (i == 20) {
        fleet.kill9("node-b");
        fleet.kill9("node-c");
      }
      String name = "k" + i;
      HttpsClient.Resp r = admin.send(HttpMethod.POST, i < 20 ? fleet.nodes().get(i % 3).url() : a, WIDGETS, JSON,
          widget(name).encode());
      if (r.status() == 201) {
        ok.add(name);
      }
    }
    assertTrue(ok.size() >= 40, "writes through the surviving node are acknowledged: " + ok.size());
    Map<String, JsonObject> back = listed(a);
    for (String n : ok) {
      assertTrue(back.containsKey(n), "acknowledged " + n + " is stored");
    }
    fleet.start("node-b");
    fleet.awaitStarted("node-b", 120_000);
    FleetTest.await("node-b ready", 60_000, () -> admin.get(fleet.node("node-b").url(), "/readyz").status() == 200);
    assertTrue(listed(fleet.node("node-b").url()).keySet().containsAll(ok));
  }

  @Test
  @Order(3)
  void etcdDownIs503Or504ThenRecovers() throws Exception {
    String a = fleet.node("node-a").url();
    etcd.members().get(0).stop();
    long t0 = System.nanoTime();
    HttpsClient.Resp r = admin.get(a, WIDGETS + "/r1");
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(r.status() == 503 || r.status() == 504, r.status() + " " + r.text());
    assertEquals("Status", r.json().getString("kind"));
    assertTrue(ms < 15_000, "answered well inside --request-timeout (60 s): " + ms + " ms");
    HttpsClient.Resp w = admin.send(HttpMethod.POST, a, WIDGETS, JSON, widget("down").encode());
    assertTrue(w.status() == 503 || w.status() == 504, w.status() + " " + w.text());
    FleetTest.await("readyz reports etcd", 20_000, () -> {
      HttpsClient.Resp rz = admin.get(a, "/readyz?verbose");
      return rz.status() == 500 && rz.text().contains("[-]etcd failed")
          && rz.text().contains("[-]etcd-readiness failed");
    });
    etcd.members().get(0).start();
    FleetTest.await("ready again", 60_000, () -> admin.get(a, "/readyz").status() == 200);
    FleetTest.await("reads again", 30_000, () -> admin.get(a, WIDGETS + "/r1").status() == 200);
    System.out.printf("FIGURE etcd down: answered %d in %d ms%n", r.status(), ms);
  }
}
