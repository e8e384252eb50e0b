package io.mvproxy.node.rehearsal;

import io.mvproxy.node.cli.LocalEtcd;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One upgrade rehearsal run: a 3-node fleet (node-a, node-b, node-c) starts on the "old" plugin set
 * ({@code plugins/examples/widgets-old}: widgets {@code demo.mvproxy.io/v1}); under the {@link Traffic} each node in
 * turn ({@link RehearsalSettings#upgrades} of them) is taken out of the load balancer, stopped (SIGTERM), given the
 * "new" set ({@code widgets-new}: widgets v2 and v1, gadgets; {@code sprockets}: a namespaced API), started and put
 * back once ready; right after each upgrade every node in rotation is asked once for each new API
 * ({@link Traffic#probe}: an old node among them answers the route's 404 unless it proxies), then a soak of
 * traffic; the last soak lasts until {@link RehearsalSettings#minPairs} pairs exist. Then the traffic stops, deleted
 * namespaces and collected dependents are waited for (at most the drain time) and the end-of-run checks run through
 * the upgraded nodes. Every step goes to the run's {@link Journal} (node life, requests, namespace and GC events) and
 * every random choice comes from {@code new Random(settings.seed())}. The fleet is local node processes
 * ({@link RehearsalFleet}) on the memory storage or, with {@code storage etcd}, on an etcd the run starts for itself
 * ({@link LocalEtcd}: one member on free loopback ports, an empty data folder, stopped after the nodes); or, with
 * {@link RehearsalSettings#compose}, the containers of the checkout's {@code docker-compose.yml} ({@link ComposeFleet}).
 * With kubectl on {@code PATH} a share of the traffic is kubectl's ({@link Kubectl}).
 */
public final class Rehearsal {
  /** The node names. */
  public static final List<String> NODES = List.of("node-a", "node-b", "node-c");

  private final RehearsalSettings settings;
  private final PrintStream log;

  /**
   * @param settings timings and folders
   * @param log      where progress lines go
   */
  public Rehearsal(RehearsalSettings settings, PrintStream log) {
    this.settings = settings;
    this.log = log;
  }

  /** @return the "old" plugin set */
  RehearsalFleet.PluginSet oldSet() throws IOException {
    return new RehearsalFleet.PluginSet("old", Map.of("widgets-old", yamls("widgets-old")));
  }

  /** @return the "new" plugin set */
  RehearsalFleet.PluginSet newSet() throws IOException {
    Map<String, List<Path>> jars = new LinkedHashMap<>();
    jars.put("widgets-new", yamls("widgets-new"));
    jars.put("sprockets", yamls("sprockets"));
    return new RehearsalFleet.PluginSet("new", jars);
  }

  private List<Path> yamls(String example) throws IOException {
    Path dir = settings.home().resolve("plugins/examples").resolve(example);
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }
  }

  /**
   * Runs the rehearsal once.
   *
   * @param gate {@code UnknownVersionInteroperabilityProxy}
   * @return the report
   * @throws Exception when the fleet cannot be started or a step times out
   */
  public RunReport run(boolean gate) throws Exception {
    String tag = "gate " + (gate ? "on" : "off");
    Path dir = settings.dir().resolve(gate ? "gate-on" : "gate-off");
    Random random = new Random(settings.seed());
    Journal journal = new Journal(gate, settings.seed());
    LocalEtcd etcd = null;
    if ("etcd".equals(settings.storage()) && !settings.compose()) {
      etcd = startEtcd(dir, random, tag);
    }
    Vertx vertx = Vertx.vertx();
    try (LocalEtcd store = etcd;
         Fleet fleet = settings.compose()
             ? new ComposeFleet(dir, settings.home(), gate, oldSet(), log)
             : new RehearsalFleet(dir, NODES, gate, oldSet(), settings.nodeHeap(), random,
                 etcd == null ? List.of() : etcd.clientUrls());
         FleetClient client = new FleetClient(vertx, fleet.pki().caCert(), fleet.pki().adminCert(),
             fleet.pki().adminKey())) {
      log.printf("rehearsal (%s): starting %s on the old plugin set, storage %s (logs in %s, seed %d)%n", tag, NODES,
          settings.compose() ? "etcd (the compose fleet's 3 members)" : store == null ? "memory"
          : "etcd " + String.join(",", store.clientUrls()), dir, settings.seed());
      for (RehearsalFleet.NodeProcess n : fleet.nodes()) {
        journal.nodeUrl(n.url(), n.name());
        fleet.start(n);
        journal.node(n.name(), Journal.NodeKind.STARTED, n.pluginSet());
      }
      for (RehearsalFleet.NodeProcess n : fleet.nodes()) {
        awaitReady(fleet, client, n);
        journal.node(n.name(), Journal.NodeKind.READY, n.pluginSet());
        client.add(n.url());
        journal.node(n.name(), Journal.NodeKind.IN_ROTATION, n.pluginSet());
      }
      Path kubectlBin = Kubectl.find();
      Kubectl kubectl = null;
      if (kubectlBin == null) {
        log.printf("rehearsal (%s): no kubectl on PATH: the traffic is the HTTP client only (no kubectl share)%n", tag);
      } else {
        kubectl = new Kubectl(vertx, kubectlBin, fleet.pki().kubeconfig(), dir.resolve("kubectl"));
      }
      Traffic traffic = new Traffic(client, settings.namespacePeriod(), journal, random, kubectl, settings.drain());
      await(traffic.setUp(), settings.startTimeout().toMillis());
      long t0 = System.nanoTime();
      journal.trafficStarted();
      traffic.start();
      log.printf("rehearsal (%s): traffic running; soak %d s%n", tag, settings.soak().toSeconds());
      Thread.sleep(settings.soak().toMillis());
      RehearsalFleet.PluginSet next = newSet();
      List<Long> upgrades = new ArrayList<>();
      List<RehearsalFleet.NodeProcess> upgraded = fleet.nodes().subList(0, settings.upgrades());
      for (RehearsalFleet.NodeProcess n : upgraded) {
        long u0 = System.nanoTime();
        client.remove(n.url());
        journal.node(n.name(), Journal.NodeKind.OUT_OF_ROTATION, n.pluginSet());
        journal.node(n.name(), Journal.NodeKind.SIGTERM, n.pluginSet());
        int code = fleet.stop(n);
        journal.node(n.name(), Journal.NodeKind.EXITED, n.pluginSet());
        fleet.install(n, next);
        fleet.start(n);
        journal.node(n.name(), Journal.NodeKind.STARTED, n.pluginSet());
        awaitReady(fleet, client, n);
        journal.node(n.name(), Journal.NodeKind.READY, n.pluginSet());
        client.add(n.url());
        journal.node(n.name(), Journal.NodeKind.IN_ROTATION, n.pluginSet());
        traffic.newServed = true;
        long ms = (System.nanoTime() - u0) / 1_000_000;
        upgrades.add(ms);
        await(traffic.probe(), 60_000);
        log.printf("rehearsal (%s): %s upgraded to the new plugin set in %d ms (exit code on SIGTERM %d); every "
            + "node in rotation asked once for each new API; soak %d s%n", tag, n.name(), ms, code,
            settings.soak().toSeconds());
        Thread.sleep(settings.soak().toMillis());
      }
      long pairsEnd = System.currentTimeMillis() + settings.startTimeout().toMillis();
      while (traffic.pairsCreated() < settings.minPairs() && System.currentTimeMillis() < pairsEnd) {
        Thread.sleep(200);
      }
      await(traffic.stopTraffic(), settings.drain().toMillis() + 90_000);
      journal.trafficStopped();
      long drainEnd = System.currentTimeMillis() + settings.drain().toMillis();
      while (!traffic.drained() && System.currentTimeMillis() < drainEnd) {
        Thread.sleep(200);
      }
      await(traffic.stopChecks(), 30_000);
      for (RehearsalFleet.NodeProcess n : fleet.nodes().subList(settings.upgrades(), fleet.nodes().size())) {
        client.remove(n.url()); // the end-of-run checks read through nodes serving every API
        journal.node(n.name(), Journal.NodeKind.OUT_OF_ROTATION, n.pluginSet());
      }
      long seconds = (System.nanoTime() - t0) / 1_000_000_000;
      RunReport r = await(traffic.report(gate, seconds, upgrades), 60_000);
      log.printf("rehearsal (%s): done in %d s%n", tag, seconds);
      return r;
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  /**
   * Starts this run's own etcd (one member on free loopback ports, an empty data folder: a clean keyspace for each
   * run), stopped when the run ends (after its nodes).
   */
  private LocalEtcd startEtcd(Path dir, Random random, String tag) throws IOException, InterruptedException {
    Path bin = LocalEtcd.findBinary();
    if (bin == null) {
      throw new IllegalStateException("--storage etcd: no etcd on PATH; " + LocalEtcd.INSTALL_HINT);
    }
    Path data = dir.resolve("etcd-data");
    if (Files.exists(data)) {
      try (Stream<Path> s = Files.walk(data)) {
        for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
    // the fleet's own hook stops the nodes on SIGTERM; this one the etcd, which would otherwise outlive the JVM
    LocalEtcd etcd = new LocalEtcd(bin, data, dir, RehearsalFleet.freePortPair(random)).stoppedWithJvm();
    etcd.start(settings.startTimeout().toMillis());
    log.printf("rehearsal (%s): etcd %s started (%s, data in %s, log %s)%n", tag, etcd.clientUrls(), bin, data,
        dir.resolve("etcd-0.log"));
    return etcd;
  }

  private void awaitReady(Fleet fleet, FleetClient client, RehearsalFleet.NodeProcess n) throws Exception {
    fleet.awaitStarted(n, settings.startTimeout().toMillis());
    long end = System.currentTimeMillis() + settings.startTimeout().toMillis();
    while (readyz(client, n) != 200) {
      if (System.currentTimeMillis() > end) {
        throw new IllegalStateException(n.name() + " not ready within " + settings.startTimeout() + "; see "
            + n.log());
      }
      Thread.sleep(200);
    }
  }

  private static int readyz(FleetClient client, RehearsalFleet.NodeProcess n) throws InterruptedException {
    try {
      return await(client.sendTo(n.url(), HttpMethod.GET, "/readyz", null, null), 20_000).status();
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      return 0;
    }
  }

  private static <T> T await(Future<T> f, long ms) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(ms, TimeUnit.MILLISECONDS);
  }

  /**
   * The report of the runs that ran, side by side: one column per run, gate on first.
   *
   * @param on  the gate-on run, or null when only the gate-off run ran
   * @param off the gate-off run, or null when only the gate-on run ran
   * @return the table (Markdown), one row per figure
   * @throws IllegalArgumentException when both are null
   */
  public static String format(RunReport on, RunReport off) {
    List<RunReport> runs = new ArrayList<>();
    StringBuilder b = new StringBuilder("|");
    StringBuilder rule = new StringBuilder("|---|");
    if (on != null) {
      runs.add(on);
      b.append(" | gate on");
      rule.append("---|");
    }
    if (off != null) {
      runs.add(off);
      b.append(" | gate off");
      rule.append("---|");
    }
    if (runs.isEmpty()) {
      throw new IllegalArgumentException("no run to report");
    }
    b.append(" |\n").append(rule).append('\n');
    row(b, "client requests", runs, RunReport::total);
    for (Outcome o : Outcome.values()) {
      // the figures the gate is judged by are shown even when they are 0
      if (o == Outcome.FALSE_404 || o == Outcome.OBJECT_NOT_FOUND
          || runs.stream().anyMatch(r -> r.requests().get(o) > 0)) {
        row(b, "- " + o.label(), runs, r -> r.requests().get(o));
      }
    }
    row(b, "- non-2xx without a named cause (listed in the --report page)", runs, RunReport::unexplained);
    java.util.TreeSet<String> res = new java.util.TreeSet<>();
    runs.forEach(r -> res.addAll(r.falseByResource().keySet()));
    for (String name : res) {
      row(b, "  - false 404s for " + name, runs, r -> r.falseByResource().getOrDefault(name, 0L));
    }
    if (runs.stream().anyMatch(r -> kubectl(r, false) > 0)) {
      row(b, "client requests made with kubectl (apply, get -w, delete ns --wait)", runs, r -> kubectl(r, false));
      row(b, "- non-2xx (from exit code and stderr)", runs, r -> kubectl(r, true));
    }
    row(b, "watch events received", runs, RunReport::watchEvents);
    row(b, "owner/dependent pairs created", runs, RunReport::pairs);
    row(b, "**dependents wrongly garbage-collected** (owner alive)", runs, RunReport::wronglyCollected);
    row(b, "dependents the nodes disagree about at the end", runs, RunReport::inconsistentReads);
    cells(b, "owners deleted: dependents collected", runs,
        r -> r.dependentsCollected() + " of " + r.ownersDeleted());
    cells(b, "GC latency (owner deleted -> dependent gone), median", runs, r -> ms(r.gcMedianMs()));
    row(b, "namespaces created and deleted", runs, RunReport::namespaces);
    row(b, "- finished", runs, RunReport::namespacesFinished);
    row(b, "- **finished with content left**", runs, RunReport::namespacesWithContent);
    row(b, "  - objects left in them", runs, RunReport::objectsLeft);
    row(b, "- **stuck** (not finished by the end)", runs, RunReport::namespacesStuck);
    cells(b, "time to delete a namespace, median", runs, r -> ms(r.namespaceMedianMs()));
    cells(b, "nodes upgraded (of " + NODES.size() + ")", runs, r -> String.valueOf(r.upgradeMs().size()));
    cells(b, "node upgrades (stop, new jars, start, ready), ms", runs, r -> String.valueOf(r.upgradeMs()));
    cells(b, "run length", runs, r -> r.seconds() + " s");
    return b.toString();
  }

  /**
   * @param s the settings
   * @return one line naming them for a report's heading (seed, nodes upgraded, soak, namespace period, drain)
   */
  public static String describe(RehearsalSettings s) {
    return String.format("Seed %d (repeat: --seed %d). %d nodes on the %s storage, %d upgraded from the old to the "
            + "new plugin set one at a time; soak %d s, a namespace every %d s, at least %d owner/dependent pairs, "
            + "drain at most %d s.", s.seed(), s.seed(), NODES.size(), s.storage(), s.upgrades(),
        s.soak().toSeconds(), s.namespacePeriod().toSeconds(), s.minPairs(), s.drain().toSeconds());
  }

  /** @return the run's kubectl invocations (only the non-2xx ones when {@code failed}) */
  private static long kubectl(RunReport r, boolean failed) {
    return r.journal() == null ? 0 : r.journal().requests().stream().filter(q -> q.method().startsWith("kubectl ")
        && (!failed || q.outcome() != Outcome.OK)).count();
  }

  private static void row(StringBuilder b, String label, List<RunReport> runs,
      java.util.function.ToLongFunction<RunReport> figure) {
    cells(b, label, runs, r -> String.valueOf(figure.applyAsLong(r)));
  }

  private static void cells(StringBuilder b, String label, List<RunReport> runs,
      java.util.function.Function<RunReport, String> cell) {
    b.append("| ").append(label);
    for (RunReport r : runs) {
      b.append(" | ").append(cell.apply(r));
    }
    b.append(" |\n");
  }

  private static String ms(long v) {
    return v < 0 ? "-" : v + " ms";
  }
}
