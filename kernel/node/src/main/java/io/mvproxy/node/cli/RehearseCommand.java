package io.mvproxy.node.cli;

import io.mvproxy.node.rehearsal.Rehearsal;
import io.mvproxy.node.rehearsal.RehearsalSettings;
import io.mvproxy.node.rehearsal.RunReport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code mvproxy rehearse}: the upgrade rehearsal ({@link Rehearsal}), once with
 * {@code UnknownVersionInteroperabilityProxy} on and once off, then the report side by side on stdout. Exit code 0
 * when the gate-on run shows no false 404 and no wrongly deleted object, 1 otherwise.
 */
@Command(name = "rehearse", mixinStandardHelpOptions = true,
    description = "Upgrade a local 3-node fleet from the old to the new plugin set under traffic, gate on and off, "
        + "and report what the clients and the controllers suffered.")
public final class RehearseCommand implements Callable<Integer> {
  @Option(names = "--home", description = "mvproxy checkout (default: the mvproxy.home property or the current folder).")
  Path home;

  @Option(names = "--dir", description = "Scratch folder for the fleets (default: <home>/run/rehearsal).")
  Path dir;

  @Option(names = "--soak-seconds", defaultValue = "20",
      description = "Traffic time before the first upgrade, after each node's upgrade and after the last.")
  int soak;

  @Option(names = "--namespace-period-seconds", defaultValue = "3",
      description = "Time between two namespaces created and deleted.")
  int namespacePeriod;

  @Option(names = "--drain-seconds", defaultValue = "60",
      description = "Longest wait after the traffic for namespaces to finish and dependents to be collected.")
  int drain;

  @Option(names = "--upgrades", defaultValue = "3",
      description = "How many of the 3 nodes are upgraded, one at a time (fewer leave the fleet mixed to the end).")
  int upgrades;

  @Option(names = "--min-pairs", defaultValue = "4",
      description = "Owner/dependent pairs to create at least before the traffic stops (the last soak waits).")
  int minPairs;

  @Option(names = "--gate", defaultValue = "both", description = "Which runs: on, off or both.")
  String gate;

  @Override
  public Integer call() throws Exception {
    Path root = (home != null ? home : Path.of(System.getProperty("mvproxy.home", "."))).toAbsolutePath().normalize();
    Path scratch = dir != null ? dir : root.resolve("run/rehearsal");
    Files.createDirectories(scratch);
    RehearsalSettings s = new RehearsalSettings(scratch, root, Duration.ofSeconds(soak),
        Duration.ofSeconds(namespacePeriod), Duration.ofSeconds(drain), Duration.ofSeconds(120), "384m", upgrades, minPairs);
    Rehearsal r = new Rehearsal(s, System.err);
    RunReport on = "off".equals(gate) ? null : r.run(true);
    RunReport off = "on".equals(gate) ? null : r.run(false);
    System.out.println(Rehearsal.format(on != null ? on : off, off != null ? off : on));
    if (on != null && (on.false404s() > 0 || on.wronglyCollected() > 0)) {
      System.err.println("rehearsal: the gate-on run had false 404s or wrongly deleted objects");
      return 1;
    }
    return 0;
  }
}
