package io.mvproxy.node.rehearsal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.node.fleet.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The upgrade rehearsal with CI settings ({@link RehearsalSettings#shortRun}), gate on and gate off, its report
 * printed. Gate on: no false 404, no dependent of a live owner deleted, no finished namespace with content left.
 * Gate off: the clients get false 404s (requests for the new APIs landing on nodes still on the old set).
 */
class RehearsalTest {
  @Test
  void gateOnUpgradeHasNoFalse404AndLosesNothing() throws Exception {
    Path dir = Files.createTempDirectory("mvproxy-rehearsal");
    Rehearsal r = new Rehearsal(RehearsalSettings.shortRun(dir, TestData.repoRoot()), System.out);
    RunReport on = r.run(true);
    RunReport off = r.run(false);
    System.out.println("FIGURE upgrade rehearsal (3 nodes, old -> new plugin set, one node at a time)\n"
        + Rehearsal.format(on, off));
    assertEquals(0, on.false404s(), "gate on: false 404s " + on.falseByResource());
    assertEquals(0, on.wronglyCollected(), "gate on: dependents of live owners deleted");
    assertEquals(0, on.namespacesWithContent(), "gate on: namespaces finished with content left");
    assertTrue(on.pairs() > 0 && on.namespacesFinished() > 0, "gate on: too little traffic: " + on);
    assertTrue(off.false404s() > 0, "gate off: requests for the new APIs on old nodes must get 404: " + off);
  }
}
