package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A partition and its heal (issue 12): node-c, the only server of thingamajigs, is frozen (SIGSTOP) until the
 * others' Hazelcast removes it, then resumed (SIGCONT): it comes back through Hazelcast's split-brain merge. Node-a
 * must never answer 404 for thingamajigs, nor node-c for gizmos (only node-a serves them): 503 while cut off, then
 * 200 once the sides re-learned each other's API sets. Then node-c crashes and node-a restarts: the new node-a
 * learns from the fleet what node-c served and answers 503, never 404, until node-c is back.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PartitionTest {
  static final String GIZMOS = "/apis/gizmos.mvproxy.io/v1/namespaces/default/gizmos";
  FleetHarness fleet;
  HttpsClient admin;

  @BeforeAll
  void start() throws Exception {
    Path tmp = Files.createTempDirectory("mvproxy-partition");
    Map<String, Map<String, List<Path>>> plugins = FleetHarness.oldNewNew();
    plugins.get("node-c").put("things", List.of(TestData.crd(tmp, "things.mvproxy.io", "thingamajigs",
        "Thingamajig")));
    plugins.get("node-a").put("gizmos", List.of(TestData.crd(tmp, "gizmos.mvproxy.io", "gizmos", "Gizmo")));
    fleet = new FleetHarness(tmp.resolve("fleet"), plugins);
    admin = new HttpsClient(fleet.pki().caCert(), fleet.pki().adminCert(), fleet.pki().adminKey());
    fleet.startAllAndAwaitReady(admin, 120_000);
  }

  @AfterAll
  void stop() {
    if (admin != null) {
      admin.close();
    }
    if (fleet != null) {
      fleet.close();
    }
  }

  @Test
  @Order(1)
  void splitAndHealNeverAnswers404() throws Exception {
    {
      FleetHarness.NodeProc a = fleet.node("node-a");
      FleetHarness.NodeProc c = fleet.node("node-c");
      FleetTest.await("things through node-a", 60_000, () -> admin.get(a.url(), FleetTest.THINGS).status() == 200);
      FleetTest.await("gizmos through node-c", 60_000, () -> admin.get(c.url(), GIZMOS).status() == 200);
      try (Prober thingsOnA = new Prober(admin, a.url(), FleetTest.THINGS, 20);
           Prober thingsOnB = new Prober(admin, fleet.node("node-b").url(), FleetTest.THINGS, 50)) {
        long cut = System.currentTimeMillis();
        fleet.signal("node-c", "STOP");
        long healed;
        try {
          FleetTest.await("node-a answers 503 for things (node-c cut off)", 30_000,
              () -> thingsOnA.with(503, cut).size() > 0);
        } finally {
          healed = System.currentTimeMillis();
          fleet.signal("node-c", "CONT");
        }
        try (Prober gizmosOnC = new Prober(admin, c.url(), GIZMOS, 20)) {
          FleetTest.await("things through node-a again after the heal", 120_000,
              () -> thingsOnA.firstAt(200) > 0 && thingsOnA.with(200, healed).size() > 0);
          FleetTest.await("gizmos through node-c again after the heal", 120_000,
              () -> gizmosOnC.with(200, healed).size() > 0);
          long aBack = thingsOnA.with(200, healed).get(0).atMs() - healed;
          long cBack = gizmosOnC.with(200, healed).get(0).atMs() - healed;
          System.out.printf("FIGURE partition: node-c cut off %d ms; after the heal node-a answered things 200 in %d"
              + " ms, node-c answered gizmos 200 in %d ms; 503s: node-a %d, node-b %d, node-c %d%n", healed - cut,
              aBack, cBack, thingsOnA.with(503, 0).size(), thingsOnB.with(503, 0).size(),
              gizmosOnC.with(503, 0).size());
          assertEquals(List.of(), gizmosOnC.with(404, 0), "false 404 on node-c for gizmos");
        }
        assertEquals(List.of(), thingsOnA.with(404, 0), "false 404 on node-a for things");
        assertEquals(List.of(), thingsOnB.with(404, 0), "false 404 on node-b for things");
      }
    }
  }

  @Test
  @Order(2)
  void restartedNodeRemembersWhatACrashedPeerServed() throws Exception {
    FleetHarness.NodeProc a = fleet.node("node-a");
    FleetTest.await("things through node-a", 60_000, () -> admin.get(a.url(), FleetTest.THINGS).status() == 200);
    fleet.kill9("node-c");
    FleetTest.await("node-a answers 503 for things", 30_000, () -> admin.get(a.url(), FleetTest.THINGS).status() == 503);
    a.process.destroy();
    a.process.waitFor();
    try (Prober thingsOnA = new Prober(admin, a.url(), FleetTest.THINGS, 20)) {
      fleet.start("node-a");
      fleet.awaitStarted("node-a", 120_000);
      FleetTest.await("restarted node-a answers", 60_000, () -> thingsOnA.firstAnswerAt() > 0
          && admin.get(a.url(), "/readyz").status() == 200);
      long ready = System.currentTimeMillis();
      FleetTest.await("a few answers after readiness", 30_000, () -> thingsOnA.answers().stream()
          .filter(x -> x.atMs() > ready).count() >= 20);
      fleet.start("node-c");
      fleet.awaitStarted("node-c", 120_000);
      FleetTest.await("things through node-a once node-c is back", 60_000, () -> thingsOnA.firstAt(200) > 0);
      assertEquals(List.of(), thingsOnA.with(404, 0), "restarted node-a answered 404 for what crashed node-c served");
      System.out.printf("FIGURE restarted node with a crashed peer: %d answers 503 (none 404) until the peer was back%n",
          thingsOnA.with(503, 0).size());
    }
  }
}
