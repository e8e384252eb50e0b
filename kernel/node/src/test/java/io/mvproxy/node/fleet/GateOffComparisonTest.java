package io.mvproxy.node.fleet;

import static io.mvproxy.node.fleet.ControllerFleet.configmap;
import static io.mvproxy.node.fleet.ControllerFleet.configmaps;
import static io.mvproxy.node.fleet.ControllerFleet.sprocket;
import static io.mvproxy.node.fleet.ControllerFleet.sprockets;
import static io.mvproxy.node.fleet.ControllerFleet.widget;
import static io.mvproxy.node.fleet.ControllerFleet.widgets;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * What the proxy prevents, side by side: the same mixed 2-node fleet (node-a "old" widgets, leading; node-c "new"
 * widgets and sprockets, which node-a lacks) and the same steps, once with {@code UnknownVersionInteroperabilityProxy}
 * on and once off (no peer flags, each node on its local view, as kube-apiserver without the proxy). A namespace
 * holding a sprocket, a widget and a configmap, the latter two owned by the sprocket, is deleted through node-a.
 * Gate on: node-a's controllers see the fleet's discovery, so the sprocket is deleted through the proxy and the
 * namespace completes empty. Gate off: node-a's namespace controller never learns of sprockets, counts the namespace
 * empty and finalizes it with the sprocket still stored (upstream #49027's orphan). In both runs the garbage
 * collector never deletes a dependent of the live sprocket: with the gate off node-a cannot map the owner's kind
 * (upstream's REST mapper error), with it on it reads the owner through node-c.
 */
class GateOffComparisonTest {
  /** One run's outcome. */
  record Outcome(int wronglyCollected, int leftInDeletedNamespace, long namespaceMs) {
  }

  @Test
  void gateOnPreventsWhatGateOffDoes() throws Exception {
    Outcome on = run(true);
    Outcome off = run(false);
    System.out.println("FIGURE what the proxy prevents (mixed fleet, namespace deleted through the node lacking "
        + "sprockets)\n"
        + String.format("FIGURE %-52s %10s %10s%n", "", "gate on", "gate off")
        + String.format("FIGURE %-52s %10d %10d%n", "dependents of a live owner garbage-collected",
            on.wronglyCollected(), off.wronglyCollected())
        + String.format("FIGURE %-52s %10d %10d%n", "objects left in a namespace that finished deleting",
            on.leftInDeletedNamespace(), off.leftInDeletedNamespace())
        + String.format("FIGURE %-52s %10d %10d", "time to delete the namespace, ms", on.namespaceMs(),
            off.namespaceMs()));
    assertEquals(0, on.wronglyCollected());
    assertEquals(0, on.leftInDeletedNamespace());
    assertEquals(0, off.wronglyCollected());
    assertEquals(1, off.leftInDeletedNamespace(), "gate off: the namespace finishes with the sprocket left");
  }

  private Outcome run(boolean gate) throws Exception {
    Path dir = Files.createTempDirectory("mvproxy-gate-" + (gate ? "on" : "off"));
    try (FleetHarness fleet = new FleetHarness(dir.resolve("fleet"), ControllerFleet.layout("node-a", "node-c"));
         HttpsClient admin = new HttpsClient(fleet.pki().caCert(), fleet.pki().adminCert(), fleet.pki().adminKey())) {
      if (!gate) {
        fleet.gateOff("node-a");
        fleet.gateOff("node-c");
      }
      ControllerFleet k = new ControllerFleet(fleet, admin);
      fleet.start("node-a");
      fleet.awaitStarted("node-a", 120_000);
      FleetTest.await("node-a leads", 60_000, () -> "node-a".equals(k.holder("node-a")));
      fleet.start("node-c");
      fleet.awaitStarted("node-c", 120_000);
      FleetTest.await("node-c ready", 60_000, () -> admin.get(k.url("node-c"), "/readyz").status() == 200);
      assertEquals(gate ? 200 : 404, k.status("node-a", sprockets("default")));

      k.namespace("node-c", "harm");
      JsonObject owner = k.create("node-c", sprockets("harm"), sprocket("owner"));
      k.create("node-c", widgets("harm"), widget("dependent", owner));
      k.create("node-c", configmaps("harm"), configmap("dependent", owner));
      k.awaitSweeps("node-a", 3);
      int collected = (k.status("node-c", widgets("harm") + "/dependent") == 404 ? 1 : 0)
          + (k.status("node-c", configmaps("harm") + "/dependent") == 404 ? 1 : 0);

      long t0 = System.nanoTime();
      k.delete("node-a", "/api/v1/namespaces/harm", null);
      FleetTest.await("namespace harm gone", 20_000, () -> k.status("node-a", "/api/v1/namespaces/harm") == 404);
      long ms = (System.nanoTime() - t0) / 1_000_000;
      int left = 0;
      for (String coll : new String[] {sprockets("harm"), widgets("harm"), configmaps("harm")}) {
        HttpsClient.Resp r = admin.get(k.url("node-c"), coll);
        assertTrue(r.status() == 200, coll + ": " + r.text());
        left += r.json().getJsonArray("items").size();
      }
      return new Outcome(collected, left, ms);
    }
  }
}
