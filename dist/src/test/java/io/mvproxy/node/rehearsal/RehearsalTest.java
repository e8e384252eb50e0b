package io.mvproxy.node.rehearsal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.node.fleet.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The upgrade rehearsal with CI settings ({@link RehearsalSettings#shortRun}: 2 of the 3 nodes upgraded, 4 s soaks),
 * gate on and gate off, its report printed (FIGURE lines and the table). Gate on: no false 404, no dependent of a
 * live owner deleted, no finished namespace with content left. Gate off: the harm shows: false 404s, certain because
 * right after each upgrade every node in rotation, old ones included, is asked for each new API
 * ({@link Traffic#probe}); the garbage collector's and the namespace controller's harm is printed beside it.
 */
@Tag("fleet")
class RehearsalTest {
  @Test
  void gateOnUpgradeHasNoFalse404AndLosesNothing() throws Exception {
    Path dir = Files.createTempDirectory("mvproxy-rehearsal");
    RehearsalSettings settings = RehearsalSettings.shortRun(dir, TestData.repoRoot());
    Rehearsal r = new Rehearsal(settings, System.out);
    long t0 = System.nanoTime();
    RunReport on = r.run(true);
    RunReport off = r.run(false);
    long seconds = (System.nanoTime() - t0) / 1_000_000_000;
    System.out.println("FIGURE upgrade rehearsal (3 nodes, " + settings.upgrades() + " upgraded old -> new plugin set "
        + "one at a time, soak " + settings.soak().toSeconds() + " s), gate on vs off, " + seconds + " s in all\n"
        + Rehearsal.format(on, off));
    for (RunReport x : new RunReport[] {on, off}) {
      String g = x.gate() ? "gate on " : "gate off";
      System.out.printf("FIGURE rehearsal %s: false 404s %d of %d requests, dependents wrongly collected %d of %d "
              + "pairs, namespaces finished with content %d of %d finished (%d stuck), namespace deletion median %d ms,"
              + " GC latency median %d ms, node upgrades %s ms, run %d s%n", g, x.false404s(), x.total(),
          x.wronglyCollected(), x.pairs(), x.namespacesWithContent(), x.namespacesFinished(), x.namespacesStuck(),
          x.namespaceMedianMs(), x.gcMedianMs(), x.upgradeMs(), x.seconds());
    }
    assertEquals(0, on.false404s(), "gate on: false 404s " + on.falseByResource());
    assertEquals(0, on.wronglyCollected(), "gate on: dependents of live owners deleted");
    assertEquals(0, on.namespacesWithContent(), "gate on: namespaces finished with content left");
    assertTrue(on.pairs() >= settings.minPairs() && on.namespacesFinished() > 0, "gate on: too little traffic: " + on);
    assertTrue(off.false404s() > 0, "gate off: requests for the new APIs on old nodes must get 404: " + off);
  }
}
