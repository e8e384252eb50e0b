package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * No false 404 while the fleet forms (issue 12): the start-up race, a node that starts with its configured members
 * absent, and a member that joins late. Every test probes the "old" node-a (widgets v1) for a resource only the
 * other nodes serve, from before it listens, and counts 404 answers.
 */
@Tag("fleet")
class FleetFormationTest {
  /** Start-up race runs (three processes each); raise with {@code -Dmvproxy.startupRuns=20} for the full proof. */
  static final int RUNS = Integer.getInteger("mvproxy.startupRuns", 3);

  enum Order { ALL_AT_ONCE, PROBED_NODE_FIRST, PROBED_NODE_LAST }

  @Test
  void startupRaceNeverAnswers404() throws Exception {
    Path tmp = Files.createTempDirectory("mvproxy-startup-race");
    List<String> figures = new ArrayList<>();
    List<String> false404 = new ArrayList<>();
    try (FleetHarness fleet = new FleetHarness(tmp.resolve("fleet"), FleetHarness.oldNewNew());
         HttpsClient admin = new HttpsClient(fleet.pki().caCert(), fleet.pki().adminCert(), fleet.pki().adminKey())) {
      FleetHarness.NodeProc a = fleet.node("node-a");
      for (int run = 0; run < RUNS; run++) {
        Order order = Order.values()[run % Order.values().length];
        Prober probe = new Prober(admin, a.url(), FleetTest.WIDGETS_V2, 20);
        try {
          switch (order) {
            case ALL_AT_ONCE -> {
              fleet.start("node-a");
              fleet.start("node-b");
              fleet.start("node-c");
            }
            case PROBED_NODE_FIRST -> {
              fleet.start("node-a");
              FleetTest.await("node-a listening", 120_000, () -> probe.firstAnswerAt() > 0);
              fleet.start("node-b");
              fleet.start("node-c");
            }
            case PROBED_NODE_LAST -> {
              fleet.start("node-b");
              fleet.start("node-c");
              FleetTest.await("node-b and node-c started", 120_000,
                  () -> fleet.started("node-b") && fleet.started("node-c"));
              fleet.start("node-a");
            }
          }
          FleetTest.await("run " + run + " (" + order + "): node-a answers 200 for widgets v2", 120_000,
              () -> probe.firstAt(200) > 0);
        } finally {
          probe.close();
        }
        List<Prober.Answer> got = probe.answers();
        long first = probe.firstAnswerAt();
        long ok = probe.firstAt(200);
        got.stream().filter(x -> x.status() == 404).forEach(x -> false404.add("run " + x));
        long n503 = got.stream().filter(x -> x.status() == 503).count();
        figures.add(String.format("run %d %s: first answer -> first 200 in %d ms (%d answers 503, %d 404)", run,
            order, ok - first, n503, got.stream().filter(x -> x.status() == 404).count()));
        got.stream().filter(x -> x.status() != 503 && x.status() != 200 && x.status() != Prober.NO_CONNECTION)
            .forEach(x -> false404.add("unexpected " + x));
        fleet.killAll();
      }
    }
    figures.forEach(f -> System.out.println("FIGURE start-up race " + f));
    assertEquals(List.of(), false404, "false 404s (or other errors) while the fleet formed");
  }

  @Test
  void loneNodeWaitsBoundedThenLateMemberIsNeverA404() throws Exception {
    Path tmp = Files.createTempDirectory("mvproxy-late-member");
    Path things = TestData.crd(tmp, "things.mvproxy.io", "thingamajigs", "Thingamajig");
    Map<String, Map<String, List<Path>>> plugins = FleetHarness.oldNewNew();
    plugins.get("node-c").put("things", List.of(things));
    // --member-wait-seconds: the lone node's 503 phase, and also how long node-a waits for the late node-c to publish
    // its record after it joined Hazelcast (plugins loaded, ingress listening); past it node-a says 404 again until
    // it sees the record. 8 s was too short on a loaded 2-core machine (node-c took 8.3 s from join to record, so
    // node-a answered 404 for 0.8 s after node-c was up); 20 s leaves room for a slow start.
    int boundSeconds = 20;
    try (FleetHarness fleet = new FleetHarness(tmp.resolve("fleet"), plugins);
         HttpsClient admin = new HttpsClient(fleet.pki().caCert(), fleet.pki().adminCert(), fleet.pki().adminKey())) {
      for (FleetHarness.NodeProc n : fleet.nodes()) {
        fleet.configure(n.name, new JsonObject().put("memberWaitSeconds", boundSeconds));
      }
      FleetHarness.NodeProc a = fleet.node("node-a");
      long t0 = System.currentTimeMillis();
      try (Prober unknown = new Prober(admin, a.url(), "/apis/nope.example.com/v1/things", 50);
           Prober thingsOnA = new Prober(admin, a.url(), FleetTest.THINGS, 20)) {
        // node-a alone, node-b and node-c configured but absent: 503 naming them, then 404 once the bound passed
        fleet.start("node-a");
        fleet.awaitStarted("node-a", 120_000);
        FleetTest.await("node-a says 404 for an unknown resource after the bound", (boundSeconds + 60) * 1000L,
            () -> unknown.firstAt(404) > 0);
        long listening = unknown.firstAnswerAt();
        List<Prober.Answer> early = unknown.answers().stream().filter(x -> x.status() == 503).toList();
        assertTrue(!early.isEmpty(), "no 503 before the bound: " + unknown.answers());
        // the first answers may still wait for the node's first membership snapshot; then they name the absent
        // members (Awaited.Kind.MEMBERSHIP, then MEMBER_JOIN)
        assertTrue(early.stream().anyMatch(x -> x.message().contains("(--cluster-members) to join")),
            "no 503 named the absent --cluster-members: " + early);
        assertEquals(List.of(), early.stream().filter(x -> !x.message().contains("(--cluster-members) to join")
            && !x.message().contains("waiting for the cluster membership")).toList(), "503s naming something else");
        long stuck = unknown.firstAt(404) - listening;
        assertTrue(stuck <= (boundSeconds + 10) * 1000L, "503 for " + stuck + " ms, past the bound of "
            + boundSeconds + " s");
        System.out.printf("FIGURE lone node (2 configured members absent): 503 for %d ms after listening, then 404"
            + " (bound %d s)%n", stuck, boundSeconds);
        // node-b joins: widgets v2 through node-a
        fleet.start("node-b");
        fleet.awaitStarted("node-b", 120_000);
        FleetTest.await("widgets v2 through node-a", 60_000,
            () -> admin.get(a.url(), FleetTest.WIDGETS_V2).status() == 200);
        // node-c, the only server of things, joins late: past node-a's bound, once node-a (knowing node-b, no longer
        // waiting for node-c) answers 404 for things, the state a late member must end; from the moment node-c is
        // up, no 404 on node-a (a condition, not a fixed delay after node-a's start)
        long bJoined = System.currentTimeMillis();
        FleetTest.await("node-a says 404 for things before node-c starts", 60_000,
            () -> !thingsOnA.with(404, bJoined).isEmpty());
        long cStart = System.currentTimeMillis();
        fleet.start("node-c");
        FleetTest.await("node-c up", 120_000, () -> fleet.started("node-c"));
        long cUp = System.currentTimeMillis();
        FleetTest.await("things through node-a", 60_000, () -> thingsOnA.firstAt(200) > 0);
        List<Prober.Answer> after = thingsOnA.answers().stream().filter(x -> x.atMs() >= cUp).toList();
        assertEquals(List.of(), after.stream().filter(x -> x.status() == 404).toList(),
            "false 404 for things after node-c was up");
        long firstOk = thingsOnA.firstAt(200);
        System.out.printf("FIGURE late member (started %d s after node-a): first 200 through node-a %d ms after its"
            + " start, %d ms after it logged ready; 404s before it started: %d%n", (cStart - t0) / 1000,
            firstOk - cStart, firstOk - cUp, thingsOnA.with(404, 0).stream().filter(x -> x.atMs() < cStart).count());
        assertEquals(404, admin.get(a.url(), "/apis/nope.example.com/v1/things").status(),
            "unknown resources are 404 once the whole fleet is known");
      }
    }
  }
}
