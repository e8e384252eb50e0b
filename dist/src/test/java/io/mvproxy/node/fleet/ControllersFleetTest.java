package io.mvproxy.node.fleet;

import static io.mvproxy.node.fleet.ControllerFleet.configmap;
import static io.mvproxy.node.fleet.ControllerFleet.configmaps;
import static io.mvproxy.node.fleet.ControllerFleet.sprocket;
import static io.mvproxy.node.fleet.ControllerFleet.sprockets;
import static io.mvproxy.node.fleet.ControllerFleet.widget;
import static io.mvproxy.node.fleet.ControllerFleet.widgets;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The controller manager in a mixed 3-node fleet, gate on: node-a ("old" widgets) leads, sprockets are served by
 * node-c only. Namespace deletion through node-a empties local and peer-served content; the garbage collector's
 * background, foreground and orphan propagation for owners only node-c serves; with node-c killed, dependents are
 * kept (owner unknown) and a namespace holding sprockets waits with a condition naming the group-version, then
 * completes once node-c is back; finally the leader is killed (replaced within the lease duration) and a leader
 * stopped with SIGTERM releases the Lease. Scenarios run in order on one fleet. The same fleet shows the apiserver
 * identity Leases (kube-apiserver's, one per live node, renewed; short {@code --identity-lease-*} timings here so
 * renewals and the garbage collector's period fit in the test).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("fleet")
class ControllersFleetTest {
  FleetHarness fleet;
  HttpsClient admin;
  ControllerFleet k;
  final List<String> figures = new ArrayList<>();
  /** {@code --identity-lease-duration-seconds} of this fleet: also its identity lease collector's period. */
  static final int IDENTITY_LEASE_S = 20;
  /** {@code --identity-lease-renew-interval-seconds} of this fleet. */
  static final int IDENTITY_RENEW_S = 2;
  static final String LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
  static final String IDENTITY_SELECTOR = "apiserver.kubernetes.io/identity=kube-apiserver";

  @BeforeAll
  void start() throws Exception {
    fleet = new FleetHarness(Files.createTempDirectory("mvproxy-controllers-test").resolve("fleet"),
        ControllerFleet.layout("node-a", "node-b", "node-c"));
    admin = new HttpsClient(fleet.pki().caCert(), fleet.pki().adminCert(), fleet.pki().adminKey());
    k = new ControllerFleet(fleet, admin);
    fleet.configureAll(new JsonObject().put("identityLeaseDurationSeconds", IDENTITY_LEASE_S)
        .put("identityLeaseRenewIntervalSeconds", IDENTITY_RENEW_S));
    for (String n : List.of("node-a", "node-b", "node-c")) {
      fleet.start(n);
    }
    for (String n : List.of("node-a", "node-b", "node-c")) {
      fleet.awaitStarted(n, 120_000);
      FleetTest.await(n + " ready", 60_000, () -> admin.get(k.url(n), "/readyz").status() == 200);
    }
    // the memory storage needs a majority of the three members, so they start together and any may win the lease;
    // node-a (which lacks sprockets) must lead here: a leader that is not node-a is stopped gracefully (it
    // releases the lease, the other two keep the majority) and started again, until node-a leads
    for (int round = 0; round < 8; round++) {
      FleetTest.await("a leader", 60_000, () -> !k.holder("node-a").isEmpty());
      String h = k.holder("node-a");
      if ("node-a".equals(h)) {
        break;
      }
      assertEquals(0, fleet.terminate(h));
      FleetTest.await("a leader other than " + h, 30_000, () -> {
        String now = k.holder("node-a");
        return !now.isEmpty() && !now.equals(h);
      });
      fleet.start(h);
      fleet.awaitStarted(h, 120_000);
      FleetTest.await(h + " ready", 60_000, () -> admin.get(k.url(h), "/readyz").status() == 200);
    }
    FleetTest.await("node-a leads", 30_000, () -> "node-a".equals(k.holder("node-a")));
    FleetTest.await("node-a serves sprockets through node-c", 60_000,
        () -> k.status("node-a", sprockets("default")) == 200);
  }

  @AfterAll
  void stop() {
    figures.forEach(System.out::println);
    if (admin != null) {
      admin.close();
    }
    if (fleet != null) {
      fleet.close();
    }
  }

  @Test
  @Order(1)
  void oneLeaderInTheLease() throws Exception {
    JsonObject lease = admin.get(k.url("node-b"), ControllerFleet.LEASE).json();
    assertEquals("node-a", lease.getJsonObject("spec").getString("holderIdentity"));
    assertEquals(15, lease.getJsonObject("spec").getInteger("leaseDurationSeconds"));
    String kubectl = KubectlFleetTest.which("kubectl");
    if (kubectl != null) {
      KubectlFleetTest.Result r = KubectlFleetTest.run(List.of(kubectl, "--kubeconfig",
          fleet.pki().kubeconfig().toString(), "--context", "node-c", "get", "lease", "-n", "kube-system"), 60);
      assertEquals(0, r.code(), r.all());
      assertTrue(r.out().lines().anyMatch(l -> l.startsWith("mvproxy-controller-manager") && l.contains("node-a")),
          r.all());
    }
  }

  /** holderIdentity to Lease of the identity Leases listed through {@code node}. */
  java.util.Map<String, JsonObject> identityLeases(String node) throws Exception {
    HttpsClient.Resp r = admin.get(k.url(node), LEASES + "?labelSelector="
        + java.net.URLEncoder.encode(IDENTITY_SELECTOR, java.nio.charset.StandardCharsets.UTF_8));
    assertEquals(200, r.status(), r.text());
    java.util.Map<String, JsonObject> out = new java.util.TreeMap<>();
    for (Object o : r.json().getJsonArray("items")) {
      JsonObject lease = (JsonObject) o;
      out.put(lease.getJsonObject("spec").getString("holderIdentity"), lease);
    }
    return out;
  }

  /**
   * Every node keeps its identity Lease, listed through any node (and kubectl) with upstream's label selector: one
   * per live node, holderIdentity its server ID, renewed; an expired one (a server gone for good) is collected.
   */
  @Test
  @Order(1)
  void identityLeasesOnePerLiveNodeRenewedAndCollected() throws Exception {
    List<String> nodes = List.of("node-a", "node-b", "node-c");
    for (String through : nodes) {
      FleetTest.await("three identity leases through " + through, 30_000,
          () -> identityLeases(through).keySet().equals(new java.util.TreeSet<>(nodes)));
    }
    java.util.Map<String, JsonObject> leases = identityLeases("node-a");
    for (String n : nodes) {
      JsonObject lease = leases.get(n);
      String name = lease.getJsonObject("metadata").getString("name");
      assertTrue(name.matches("apiserver-[a-z2-7]{26}"), name);
      assertEquals(IDENTITY_LEASE_S, lease.getJsonObject("spec").getInteger("leaseDurationSeconds"));
      JsonObject labels = lease.getJsonObject("metadata").getJsonObject("labels");
      assertEquals("kube-apiserver", labels.getString("apiserver.kubernetes.io/identity"));
      assertTrue(!labels.getString("kubernetes.io/hostname", "").isEmpty(), labels.encode());
      assertEquals("127.0.0.1:" + fleet.node(n).port(), lease.getJsonObject("metadata").getJsonObject("annotations")
          .getString("kubernetes.io/peer-advertise-address"));
    }
    assertEquals(3, leases.values().stream().map(l -> l.getJsonObject("metadata").getString("name")).distinct()
        .count());
    // renewed: each renewTime advances (read through another node than the holder)
    for (String n : nodes) {
      String before = leases.get(n).getJsonObject("spec").getString("renewTime");
      String through = n.equals("node-c") ? "node-a" : "node-c";
      FleetTest.await(n + "'s identity lease renewed", 10 * IDENTITY_RENEW_S * 1000L, () -> {
        JsonObject now = identityLeases(through).get(n);
        return now != null && now.getJsonObject("spec").getString("renewTime").compareTo(before) > 0;
      });
    }
    String kubectl = KubectlFleetTest.which("kubectl");
    if (kubectl != null) {
      KubectlFleetTest.Result r = KubectlFleetTest.run(List.of(kubectl, "--kubeconfig",
          fleet.pki().kubeconfig().toString(), "--context", "node-b", "get", "leases", "-n", "kube-system", "-l",
          IDENTITY_SELECTOR, "-o", "jsonpath={range .items[*]}{.spec.holderIdentity}{\"\\n\"}{end}"), 60);
      assertEquals(0, r.code(), r.all());
      assertEquals(nodes, r.out().lines().sorted().toList(), r.all());
    }
    // a server gone for good: its expired identity Lease is deleted by a collector; other Leases are not touched
    String old = "2026-01-01T00:00:00.000000Z";
    JsonObject stale = new JsonObject().put("apiVersion", "coordination.k8s.io/v1").put("kind", "Lease")
        .put("metadata", new JsonObject().put("name", "apiserver-gone").put("labels",
            new JsonObject().put("apiserver.kubernetes.io/identity", "kube-apiserver")))
        .put("spec", new JsonObject().put("holderIdentity", "gone").put("leaseDurationSeconds", IDENTITY_LEASE_S)
            .put("renewTime", old));
    JsonObject unlabelled = stale.copy();
    unlabelled.getJsonObject("metadata").put("name", "someone-elses").remove("labels");
    assertEquals(201, k.send("node-b", io.vertx.core.http.HttpMethod.POST, LEASES, stale).status());
    assertEquals(201, k.send("node-b", io.vertx.core.http.HttpMethod.POST, LEASES, unlabelled).status());
    long t0 = System.nanoTime();
    FleetTest.await("the expired identity lease collected", 3 * IDENTITY_LEASE_S * 1000L,
        () -> k.status("node-c", LEASES + "/apiserver-gone") == 404);
    figures.add("FIGURE expired identity lease collected " + (System.nanoTime() - t0) / 1_000_000
        + " ms after its creation (collector period " + IDENTITY_LEASE_S + " s)");
    assertEquals(200, k.status("node-a", LEASES + "/someone-elses"), "only identity leases are collected");
    assertEquals(new java.util.TreeSet<>(nodes), identityLeases("node-b").keySet(), "live nodes' leases stay");
    k.delete("node-a", LEASES + "/someone-elses", null);
  }

  @Test
  @Order(2)
  void namespaceDeletionEmptiesLocalAndPeerServedContent() throws Exception {
    k.namespace("node-a", "nsdel");
    k.create("node-a", sprockets("nsdel"), sprocket("s1"));
    k.create("node-a", widgets("nsdel"), widget("w1", null));
    k.create("node-b", configmaps("nsdel"), configmap("c1", null));
    long t0 = System.nanoTime();
    k.delete("node-a", "/api/v1/namespaces/nsdel", null);
    FleetTest.await("namespace nsdel gone", 10_000, () -> k.status("node-a", "/api/v1/namespaces/nsdel") == 404);
    figures.add(String.format("FIGURE namespace with local and peer-served content deleted in %d ms",
        (System.nanoTime() - t0) / 1_000_000));
    for (String n : List.of("node-a", "node-b", "node-c")) {
      for (String coll : List.of(sprockets("nsdel"), widgets("nsdel"), configmaps("nsdel"))) {
        HttpsClient.Resp r = admin.get(k.url(n), coll);
        assertEquals(200, r.status(), coll + " on " + n + ": " + r.text());
        assertEquals(0, r.json().getJsonArray("items").size(), coll + " left on " + n + ": " + r.text());
      }
    }
  }

  @Test
  @Order(3)
  void garbageCollectionBackgroundForegroundOrphan() throws Exception {
    k.namespace("node-a", "gc");
    JsonObject bg = k.create("node-a", sprockets("gc"), sprocket("s-bg"));
    k.create("node-a", widgets("gc"), widget("w-bg", bg));
    k.create("node-b", configmaps("gc"), configmap("c-bg", bg));
    k.awaitSweeps("node-a", 2);
    assertEquals(200, k.status("node-a", widgets("gc") + "/w-bg"), "dependent deleted while its owner exists");
    assertEquals(200, k.status("node-a", configmaps("gc") + "/c-bg"));

    long t0 = System.nanoTime();
    k.delete("node-b", sprockets("gc") + "/s-bg", "Background");
    FleetTest.await("background dependents gone", 10_000, () -> k.status("node-a", widgets("gc") + "/w-bg") == 404
        && k.status("node-a", configmaps("gc") + "/c-bg") == 404);
    figures.add(String.format("FIGURE garbage collection (background) of 2 dependents of a peer-served owner: %d ms",
        (System.nanoTime() - t0) / 1_000_000));

    JsonObject fg = k.create("node-a", sprockets("gc"), sprocket("s-fg"));
    k.create("node-a", widgets("gc"), widget("w-fg", fg));
    k.delete("node-a", sprockets("gc") + "/s-fg", "Foreground");
    JsonObject held = admin.get(k.url("node-a"), sprockets("gc") + "/s-fg").json();
    assertTrue(held.getJsonObject("metadata").getJsonArray("finalizers").contains("foregroundDeletion"),
        held.encode());
    FleetTest.await("foreground owner gone", 10_000, () -> k.status("node-a", sprockets("gc") + "/s-fg") == 404);
    assertEquals(404, k.status("node-a", widgets("gc") + "/w-fg"), "the owner went before its dependent");

    JsonObject or = k.create("node-a", sprockets("gc"), sprocket("s-or"));
    k.create("node-a", widgets("gc"), widget("w-or", or));
    k.delete("node-a", sprockets("gc") + "/s-or", "Orphan");
    FleetTest.await("orphaning owner gone", 10_000, () -> k.status("node-a", sprockets("gc") + "/s-or") == 404);
    JsonObject orphan = admin.get(k.url("node-a"), widgets("gc") + "/w-or").json();
    assertTrue(orphan.getJsonObject("metadata").getJsonArray("ownerReferences", new JsonArray()).isEmpty(),
        orphan.encode());
    k.awaitSweeps("node-a", 1);
    assertEquals(200, k.status("node-a", widgets("gc") + "/w-or"), "orphan collected");
  }

  @Test
  @Order(4)
  void ownerOfADepartedNodeIsUnknownAndStaleNamespaceWaits() throws Exception {
    JsonObject un = k.create("node-a", sprockets("gc"), sprocket("s-un"));
    k.create("node-a", widgets("gc"), widget("w-un", un));
    k.create("node-a", configmaps("gc"), configmap("c-un", un));
    k.namespace("node-a", "nswait");
    k.create("node-a", sprockets("nswait"), sprocket("s-wait"));
    k.create("node-a", widgets("nswait"), widget("w-wait", null));
    k.awaitSweeps("node-a", 1);

    fleet.kill9("node-c");
    FleetTest.await("sprockets answer 503 on node-a", 30_000, () -> k.status("node-a", sprockets("gc")) == 503);
    k.awaitSweeps("node-a", 2);
    assertEquals(200, k.status("node-a", widgets("gc") + "/w-un"), "dependent of an unknown owner deleted");
    assertEquals(200, k.status("node-a", configmaps("gc") + "/c-un"), "dependent of an unknown owner deleted");
    assertTrue(k.metric("node-a", "mvproxy_garbagecollector_owner_unknown_total") > 0);
    HttpsClient.Resp events = admin.get(k.url("node-a"), "/api/v1/namespaces/gc/events");
    assertEquals(200, events.status(), events.text());
    assertTrue(events.json().getJsonArray("items").stream().map(o -> (JsonObject) o).anyMatch(e ->
        "OwnerUnknown".equals(e.getString("reason")) && "w-un".equals(e.getJsonObject("involvedObject")
            .getString("name")) && e.getString("message").contains("sprockets.mvproxy.io/v1")), events.text());

    k.delete("node-a", "/api/v1/namespaces/nswait", null);
    FleetTest.await("nswait says which group-version blocks it", 20_000, () -> {
      JsonObject ns = admin.get(k.url("node-a"), "/api/v1/namespaces/nswait").json();
      return ns.getJsonObject("status").getJsonArray("conditions", new JsonArray()).stream()
          .map(o -> (JsonObject) o).anyMatch(c -> "NamespaceDeletionDiscoveryFailure".equals(c.getString("type"))
              && "True".equals(c.getString("status")) && c.getString("message").contains("sprockets.mvproxy.io/v1"));
    });
    assertEquals(404, k.status("node-a", widgets("nswait") + "/w-wait"), "discovered content is deleted");
    JsonObject ns = admin.get(k.url("node-b"), "/api/v1/namespaces/nswait").json();
    assertEquals("Terminating", ns.getJsonObject("status").getString("phase"));

    long t0 = System.nanoTime();
    fleet.start("node-c");
    fleet.awaitStarted("node-c", 120_000);
    FleetTest.await("nswait completes once node-c is back", 60_000,
        () -> k.status("node-a", "/api/v1/namespaces/nswait") == 404);
    figures.add(String.format("FIGURE namespace waiting on a departed node's group-version completed %d ms after "
        + "that node was started again", (System.nanoTime() - t0) / 1_000_000));
    HttpsClient.Resp left = admin.get(k.url("node-c"), sprockets("nswait"));
    assertEquals(0, left.json().getJsonArray("items").size(), left.text());
    assertEquals(200, k.status("node-a", widgets("gc") + "/w-un"), "dependent kept once its owner is readable");
  }

  @Test
  @Order(5)
  void killedLeaderReplacedAndStoppedLeaderReleases() throws Exception {
    String leader = k.holder("node-b");
    assertEquals("node-a", leader);
    long t0 = System.nanoTime();
    fleet.kill9(leader);
    FleetTest.await("a new leader", 30_000, () -> {
      String h = k.holder("node-b");
      return !h.isEmpty() && !h.equals(leader);
    });
    long failover = (System.nanoTime() - t0) / 1_000_000;
    figures.add("FIGURE leader failover after SIGKILL: " + failover + " ms (lease 15 s, retry 2 s)");
    assertTrue(failover < 15_000 + 2 * 2_400 + 3_000, "failover took " + failover + " ms");

    String second = k.holder("node-b");
    String other = second.equals("node-b") ? "node-c" : "node-b";
    // the memory storage needs a majority of the three members: bring the killed node back before the second stop
    fleet.start(leader);
    fleet.awaitStarted(leader, 120_000);
    FleetTest.await(leader + " ready", 60_000, () -> admin.get(k.url(leader), "/readyz").status() == 200);
    t0 = System.nanoTime();
    assertEquals(0, fleet.terminate(second));
    FleetTest.await("another node leads after a graceful stop", 15_000, () -> {
      String h = k.holder(other);
      return !h.isEmpty() && !h.equals(second);
    });
    long handover = (System.nanoTime() - t0) / 1_000_000;
    figures.add("FIGURE leader hand-over after SIGTERM (lease released): " + handover + " ms");
    assertNotEquals(second, k.holder(other));
  }
}
