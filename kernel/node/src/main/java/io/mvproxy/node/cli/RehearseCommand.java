package io.mvproxy.node.cli;

import io.mvproxy.node.rehearsal.HtmlReport;
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
 * {@code UnknownVersionInteroperabilityProxy} on and once off, then the report side by side on stdout (Markdown) and,
 * with {@code --report FILE}, as a self-contained HTML page ({@link HtmlReport}). Exit code 1 when the gate-on run had
 * any false 404, any 404 naming an existing object, a dependent of a live owner collected or a namespace finished
 * with content ({@link RunReport#failures()}), else 0 (2: bad arguments, or {@code --storage etcd} without an etcd
 * binary; 3: the rehearsal could not run to its end, e.g. a node that never became ready). Non-2xx answers without
 * a named cause are counted on stdout and named on stderr. {@code --storage etcd} runs the local fleet on an etcd
 * each run starts for itself; {@code --compose} runs it on the docker-compose fleet ({@code scripts/compose-rehearse}
 * prepares docker and the image).
 */
@Command(name = "rehearse", mixinStandardHelpOptions = true,
    description = "Upgrade a local 3-node fleet from the old to the new plugin set under traffic, gate on and off, "
        + "and report what the clients and the controllers suffered.")
public final class RehearseCommand implements Callable<Integer> {
  /** The command as picocli runs it (its usage names it {@code mvproxy rehearse}). */
  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

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

  @Option(names = "--storage", defaultValue = "memory", description = "The nodes' storage: memory (the fleet's own "
      + "memory) or etcd (each run starts its own local etcd, the etcd binary on PATH, on free loopback ports with an "
      + "empty data folder, stopped at the end; the nodes run with --storage-backend=etcd3).")
  String storage;

  @Option(names = "--compose", description = "Rehearse on the docker-compose fleet (docker-compose.yml of the "
      + "checkout: its containers and etcd members, under a project of its own per run; the image "
      + "$MVPROXY_IMAGE, default mvproxy:local, must exist: scripts/compose-rehearse builds it): traffic through the "
      + "published ports 127.0.0.1:16443-16445, an upgrade = docker-compose stop, plugin jars swapped in the node's "
      + "mounted plugin folder, docker-compose start. Implies --storage etcd.")
  boolean compose;

  @Option(names = "--gate", defaultValue = "both", description = "Which runs: on, off or both.")
  String gate;

  @Option(names = "--seed", description = "Seed of every random choice of a run (default: a new one, printed), so "
      + "a run can be repeated.")
  Long seed;

  @Option(names = "--report", paramLabel = "FILE", description = "Also write the report as a self-contained HTML "
      + "page: each node's timeline, requests per second by outcome, every non-2xx answer and its cause.")
  Path report;

  /** @throws picocli.CommandLine.ParameterException (exit 2, naming the option) when {@code v} is outside min..max */
  private void bounded(String option, int v, int min, int max) {
    if (v < min || v > max) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(), option + " must be "
          + (max == Integer.MAX_VALUE ? "at least " + min : min + " to " + max) + ": " + v);
    }
  }

  @Override
  public Integer call() throws Exception {
    if (!java.util.Set.of("on", "off", "both").contains(gate)) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(),
          "--gate must be on, off or both: " + gate);
    }
    if (!RehearsalSettings.STORAGES.contains(storage)) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(),
          "--storage must be memory or etcd: " + storage);
    }
    bounded("--upgrades", upgrades, 1, 3);
    bounded("--soak-seconds", soak, 0, Integer.MAX_VALUE);
    bounded("--namespace-period-seconds", namespacePeriod, 1, Integer.MAX_VALUE);
    bounded("--drain-seconds", drain, 0, Integer.MAX_VALUE);
    bounded("--min-pairs", minPairs, 0, Integer.MAX_VALUE);
    if (report != null) {
      // checked before minutes of rehearsal, not after: a folder that cannot be made, or a file that is a folder
      Path parent = report.toAbsolutePath().getParent();
      try {
        Files.createDirectories(parent);
      } catch (java.io.IOException | RuntimeException e) {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(),
            "--report: cannot make the folder " + parent + ": " + e);
      }
      if (Files.isDirectory(report)) {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(),
            "--report names a folder, not a file: " + report);
      }
    }
    if (compose) {
      storage = "etcd";
    } else if ("etcd".equals(storage) && LocalEtcd.findBinary() == null) {
      System.err.println("mvproxy rehearse --storage etcd: no etcd on PATH; " + LocalEtcd.INSTALL_HINT);
      return 2;
    }
    Path root = (home != null ? home : Path.of(System.getProperty("mvproxy.home", "."))).toAbsolutePath().normalize();
    Path scratch = (dir != null ? dir : root.resolve(compose ? "run/rehearsal-compose" : "run/rehearsal"))
        .toAbsolutePath().normalize();
    Files.createDirectories(scratch);
    RehearsalSettings s = new RehearsalSettings(scratch, root, Duration.ofSeconds(soak),
        Duration.ofSeconds(namespacePeriod), Duration.ofSeconds(drain), Duration.ofSeconds(120), "384m", upgrades, minPairs,
        seed != null ? seed : RehearsalSettings.newSeed(), storage, compose);
    System.err.println("rehearsal: seed " + s.seed() + (seed == null ? " (repeat the run with --seed " + s.seed()
        + ")" : ""));
    Rehearsal r = new Rehearsal(s, System.err);
    RunReport on;
    RunReport off;
    try {
      on = "off".equals(gate) ? null : r.run(true);
      off = "on".equals(gate) ? null : r.run(false);
      System.out.println(Rehearsal.format(on, off));
      if (report != null) {
        HtmlReport.write(report, "mvproxy upgrade rehearsal", Rehearsal.describe(s), on, off);
        System.err.println("rehearsal: report written to " + report.toAbsolutePath());
      }
    } catch (Exception e) {
      // not a verdict on the fleet: the rehearsal itself could not run to its end
      System.err.println("rehearsal: could not finish: " + e + " (node logs in " + scratch + ")");
      return 3;
    }
    for (RunReport run : java.util.Arrays.asList(on, off)) {
      if (run != null && run.unexplained() > 0) {
        System.err.println("rehearsal: the gate-" + (run.gate() ? "on" : "off") + " run has " + run.unexplained()
            + " non-2xx answers without a named cause" + (report == null ? " (--report FILE lists them)"
            : " (listed in the report)"));
      }
    }
    if (on != null && !on.failures().isEmpty()) {
      System.err.println("rehearsal: the gate-on run failed: " + String.join("; ", on.failures()));
      return 1;
    }
    return 0;
  }
}
