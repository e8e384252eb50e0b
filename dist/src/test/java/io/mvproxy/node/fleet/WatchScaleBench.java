package io.mvproxy.node.fleet;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntPredicate;
import java.util.stream.Stream;

/**
 * Benchmark (not a test; run by {@code bench/watch-scale}, issue 16 item 7): N proxied watches through node-a, which
 * lacks widgets v2, to node-b, which serves it, while short proxied GETs go through node-a. {@code --protocol h2}: the
 * watches speak HTTP/2 to node-a (about N/100 client connections) and node-a's peer hop runs on HTTP/2
 * ({@code --peer-http2=true}); {@code h1}: a connection per watch on both sides ({@code --peer-http2=false}).
 * {@code --burst} requests every watch at once instead of in batches of {@link WatchLoad#BATCH}. Prints (one line
 * each, beside the targets, no asserts) and writes as JSON: watches requested/held/errors, time until every
 * head, a write's event reaching every watch, node heap per watch (after a {@code jcmd GC.run}), the TCP connections
 * node-a holds to node-b and the client's, and the short GETs' p50/p99 without the watches, while they open and while
 * they are held. Everything is measured side by side in one run.
 */
public final class WatchScaleBench {
  /** How long opening every watch may take, ms: thousands of TLS handshakes on a loaded 2-core box. */
  static final long OPEN_TIMEOUT_MS = 1_800_000;
  /** How long a write's event may take to reach every watch before the bench reports the shortfall, ms. */
  static final long EVENT_TIMEOUT_MS = 120_000;

  /** The run's parameters. */
  record Args(WatchLoad.Protocol protocol, int watches, boolean burst, int shorts, Path out, Path histogram) {
    /**
     * @param a {@code --protocol h1|h2 --watches N --burst --short N --out FILE --histogram FILE} (the last: node-a's
     *          {@code jcmd GC.class_histogram} while the watches are held, written to FILE), or the former positional
     *          {@code [WATCHES] [SHORT_REQUESTS]} (h1, batched)
     * @return the parameters (defaults h1, 2000 watches, batched, 400 short GETs, {@code watch-scale.json})
     * @throws IllegalArgumentException on an unknown or malformed argument
     */
    static Args parse(String[] a) {
      WatchLoad.Protocol protocol = WatchLoad.Protocol.H1;
      int watches = 2000;
      int shorts = 400;
      boolean burst = false;
      Path out = null;
      Path histogram = null;
      List<String> positional = new ArrayList<>();
      for (int i = 0; i < a.length; i++) {
        String arg = a[i];
        String value = null;
        int eq = arg.indexOf('=');
        if (arg.startsWith("--") && eq > 0) {
          value = arg.substring(eq + 1);
          arg = arg.substring(0, eq);
        }
        switch (arg) {
          case "--burst" -> burst = true;
          case "--protocol", "--watches", "--short", "--out", "--histogram" -> {
            if (value == null) {
              if (i + 1 >= a.length) {
                throw new IllegalArgumentException(arg + " needs a value");
              }
              value = a[++i];
            }
            switch (arg) {
              case "--protocol" -> protocol = WatchLoad.Protocol.parse(value);
              case "--watches" -> watches = Integer.parseInt(value);
              case "--short" -> shorts = Integer.parseInt(value);
              case "--histogram" -> histogram = Path.of(value);
              default -> out = Path.of(value);
            }
          }
          default -> {
            if (arg.startsWith("--")) {
              throw new IllegalArgumentException("unknown option " + arg
                  + " (usage: --protocol h1|h2 [--watches N] [--burst] [--short N] [--out FILE] [--histogram FILE])");
            }
            positional.add(arg);
          }
        }
      }
      if (positional.size() > 0) {
        watches = Integer.parseInt(positional.get(0));
      }
      if (positional.size() > 1) {
        shorts = Integer.parseInt(positional.get(1));
      }
      if (watches < 1 || shorts < 1) {
        throw new IllegalArgumentException("--watches and --short must be positive");
      }
      if (out == null) {
        out = Path.of("watch-scale-" + protocol.name().toLowerCase(java.util.Locale.ROOT) + "-" + watches
            + (burst ? "-burst" : "") + ".json");
      }
      return new Args(protocol, watches, burst, shorts, out, histogram);
    }
  }

  private WatchScaleBench() {
  }

  /**
   * Runs the benchmark and exits (0 when it ran to the end, whatever the figures; 2 on bad arguments).
   *
   * @param argv see {@link Args#parse}
   */
  public static void main(String[] argv) throws Exception {
    Args args;
    try {
      args = Args.parse(argv);
    } catch (IllegalArgumentException e) {
      System.err.println("watch-scale: " + e.getMessage());
      System.exit(2);
      return;
    }
    boolean h2 = args.protocol() == WatchLoad.Protocol.H2;
    Path tmp = Files.createTempDirectory("mvproxy-watch-bench");
    Map<String, Map<String, List<Path>>> plugins = FleetHarness.oldNewNew();
    plugins.remove("node-c");
    JsonObject result = new JsonObject().put("protocol", h2 ? "h2" : "h1").put("burst", args.burst())
        .put("watchesRequested", args.watches()).put("shortRequests", args.shorts())
        .put("loadAverage", loadAverage()).put("cores", Runtime.getRuntime().availableProcessors());
    System.out.printf("BENCH watch-scale: %s, %d watches %s, %d short GETs; load average %s on %d cores%n",
        h2 ? "HTTP/2 (client h2, peer hop --peer-http2=true)" : "HTTP/1.1 (client h1, peer hop --peer-http2=false)",
        args.watches(), args.burst() ? "opened at once (burst)" : "opened in batches of " + WatchLoad.BATCH,
        args.shorts(), result.getString("loadAverage"), result.getInteger("cores"));
    try (FleetHarness fleet = new FleetHarness(tmp.resolve("fleet"), plugins);
         HttpsClient admin = new HttpsClient(fleet.pki().caCert(), fleet.pki().adminCert(), fleet.pki().adminKey())) {
      fleet.configure("node-a", new JsonObject().put("peerHttp2", String.valueOf(h2)));
      fleet.startAllAndAwaitReady(admin, 180_000);
      String a = fleet.node("node-a").url();
      long pidA = fleet.node("node-a").process().pid();
      long pidB = fleet.node("node-b").process().pid();
      int portA = fleet.node("node-a").port();
      int portB = fleet.node("node-b").port();
      FleetTest.await("widgets v2 through node-a", 60_000, () -> admin.get(a, FleetTest.WIDGETS_V2).status() == 200);
      String rv = admin.get(a, FleetTest.WIDGETS_V2).json().getJsonObject("metadata").getString("resourceVersion");
      List<Long> before = shortRequests(admin, a, args.shorts());
      double heapA0 = heapAfterGc(admin, a, pidA);
      double heapB0 = heapAfterGc(admin, fleet.node("node-b").url(), pidB);
      int peerConns0 = established(pidA, p -> true, p -> p == portB);
      // a short proxied GET alongside the opening watches, one after the other until every head is in
      List<Long> alongside = new CopyOnWriteArrayList<>();
      AtomicBoolean opening = new AtomicBoolean(true);
      Thread side = new Thread(() -> {
        while (opening.get()) {
          try {
            long t0 = System.nanoTime();
            int code = admin.get(a, FleetTest.WIDGETS_V2).status();
            alongside.add((System.nanoTime() - t0) / 1_000_000);
            if (code != 200) {
              System.out.println("BENCH short request alongside the opening answered " + code);
            }
          } catch (Exception e) {
            System.out.println("BENCH short request alongside the opening failed: " + e);
          }
        }
      }, "short-get-alongside");
      side.setDaemon(true);
      side.start();
      WatchLoad load;
      try {
        load = new WatchLoad(fleet.pki(), a, FleetTest.WIDGETS_V2, rv, args.watches(), "bench-1", OPEN_TIMEOUT_MS,
            args.protocol(), args.burst());
      } finally {
        opening.set(false);
        side.join(30_000);
      }
      try (load) {
        long openMs = load.lastHeadMs();
        List<Long> during = shortRequests(admin, a, args.shorts());
        double heapA1 = heapAfterGc(admin, a, pidA);
        double heapB1 = heapAfterGc(admin, fleet.node("node-b").url(), pidB);
        if (args.histogram() != null) {
          jcmd(pidA, args.histogram(), "GC.class_histogram");
          System.out.println("BENCH node-a class histogram with the watches held: " + args.histogram().toAbsolutePath());
        }
        int peerConns = established(pidA, p -> true, p -> p == portB);
        int clientConnsAtA = established(pidA, p -> p == portA, p -> true);
        JsonObject w = new JsonObject().put("apiVersion", "demo.mvproxy.io/v2").put("kind", "Widget")
            .put("metadata", new JsonObject().put("name", "bench-1")).put("spec", new JsonObject().put("size", 1));
        long e0 = System.nanoTime();
        admin.send(HttpMethod.POST, fleet.node("node-b").url(), FleetTest.WIDGETS_V2,
            Map.of("Content-Type", "application/json"), w.encode());
        boolean all = true;
        try {
          FleetTest.await("every watch gets the event", EVENT_TIMEOUT_MS, () -> load.sawMarker() >= load.heads());
        } catch (AssertionError e) {
          all = false;
        }
        long eventMs = load.lastSawMs(e0);
        int held = Math.max(1, load.heads());
        double kibA = (heapA1 - heapA0) / 1024 / held;
        double kibB = (heapB1 - heapB0) / 1024 / held;
        List<String> errors = load.errors();
        result.put("watchesHeld", load.heads()).put("watchErrors", errors.size())
            .put("firstErrors", new JsonArray(errors.stream().limit(5).toList()))
            .put("openAllHeadsMs", openMs).put("eventReached", load.sawMarker()).put("eventAllMs", all ? eventMs : null)
            .put("eventLastMs", eventMs)
            .put("nodeAHeapMiB", new JsonArray().add(mib(heapA0)).add(mib(heapA1))).put("nodeAKiBPerWatch", round(kibA))
            .put("nodeBHeapMiB", new JsonArray().add(mib(heapB0)).add(mib(heapB1))).put("nodeBKiBPerWatch", round(kibB))
            .put("peerConnectionsBefore", peerConns0).put("peerConnections", peerConns)
            .put("clientConnections", load.connections()).put("clientConnectionsAtNodeA", clientConnsAtA)
            .put("shortWithout", percentiles(before)).put("shortAlongsideOpening", percentiles(alongside))
            .put("shortWithWatches", percentiles(during))
            .put("loadAverageAfter", loadAverage());
        System.out.printf("BENCH watches requested %d, held %d, errors %d%s%n", args.watches(), load.heads(),
            errors.size(), errors.isEmpty() ? "" : " (first: " + errors.get(0) + ")");
        System.out.printf("BENCH time to open (every response head): %d ms%s%n", openMs, h2 ? ""
            : "   [target, 2,000 at once over HTTP/1.1: <= 10,000 ms]");
        System.out.printf("BENCH a write's event reached %d of %d watches, the last after %d ms%s%s%n",
            load.sawMarker(), load.heads(), eventMs, all ? "" : " (NOT ALL within " + EVENT_TIMEOUT_MS + " ms)",
            h2 ? "   [target, 10,000 over HTTP/2: every watch within 2,000 ms]" : "");
        System.out.printf("BENCH node-a heap used %.1f -> %.1f MiB after GC: %.1f KiB per watch%s%n",
            mib(heapA0), mib(heapA1), kibA, h2 ? "   [target: <= 10 KiB]" : "");
        System.out.printf("BENCH node-b heap used %.1f -> %.1f MiB after GC: %.1f KiB per watch%n",
            mib(heapB0), mib(heapB1), kibB);
        System.out.printf("BENCH TCP connections node-a holds to node-b: %d (before the watches: %d)%s%n", peerConns,
            peerConns0, h2 ? "   [target: <= 110]" : "");
        System.out.printf("BENCH client connections: %d opened by the watch client, %d established at node-a's port%n",
            load.connections(), clientConnsAtA);
        System.out.printf("BENCH short proxied GET through node-a: without watches %s; alongside the opening %s;"
                + " with %d watches held %s%s%n", describe(before), describe(alongside), load.heads(),
            describe(during), h2 ? "" : "   [target alongside 2,000 opened at once: p99 < 50 ms]");
      }
    }
    Path out = args.out().toAbsolutePath();
    Files.writeString(out, result.encodePrettily() + "\n");
    System.out.println("BENCH JSON written to " + out);
    System.exit(0);
  }

  private static List<Long> shortRequests(HttpsClient admin, String url, int n) throws Exception {
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long t0 = System.nanoTime();
      int code = admin.get(url, FleetTest.WIDGETS_V2).status();
      out.add((System.nanoTime() - t0) / 1_000_000);
      if (code != 200) {
        System.out.println("BENCH short request answered " + code);
      }
    }
    return out;
  }

  /**
   * @param xs latencies, ms
   * @param p  percentile, 1..100
   * @return the nearest-rank percentile, -1 for no sample
   */
  static long pct(List<Long> xs, int p) {
    if (xs.isEmpty()) {
      return -1;
    }
    List<Long> s = new ArrayList<>(xs);
    Collections.sort(s);
    return s.get(Math.min(s.size() - 1, (int) Math.ceil(p / 100.0 * s.size()) - 1));
  }

  private static JsonObject percentiles(List<Long> xs) {
    return new JsonObject().put("n", xs.size()).put("p50Ms", pct(xs, 50)).put("p99Ms", pct(xs, 99))
        .put("maxMs", pct(xs, 100));
  }

  private static String describe(List<Long> xs) {
    return String.format("p50 %d ms p99 %d ms max %d ms (n=%d)", pct(xs, 50), pct(xs, 99), pct(xs, 100), xs.size());
  }

  private static double mib(double bytes) {
    return round(bytes / 1048576);
  }

  private static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }

  /** @return the machine's 1/5/15-minute load averages ({@code /proc/loadavg}), or "?" */
  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "?";
    }
  }

  /**
   * Node heap in use after a full collection ({@code jcmd PID GC.run}, so that garbage does not count as watches).
   *
   * @param admin a client
   * @param url   the node's base URL
   * @param pid   the node's process id
   * @return heap used, bytes, from its /metrics ({@code jvm_memory_used_bytes{area="heap"}} summed)
   */
  private static double heapAfterGc(HttpsClient admin, String url, long pid) throws Exception {
    jcmd(pid, null, "GC.run");
    double sum = 0;
    for (String line : admin.get(url, "/metrics").text().split("\n")) {
      if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  /**
   * Runs {@code jcmd PID COMMAND} and waits for it (at most 120 s).
   *
   * @param pid     the JVM
   * @param out     where its output goes (null: discarded)
   * @param command e.g. {@code GC.run}
   */
  private static void jcmd(long pid, Path out, String command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
        String.valueOf(pid), command).redirectErrorStream(true)
        .redirectOutput(out == null ? ProcessBuilder.Redirect.DISCARD : ProcessBuilder.Redirect.to(out.toFile()))
        .start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroy();
      System.out.println("BENCH jcmd " + command + " did not finish within 120 s");
    }
  }

  /**
   * Counts a process's established TCP connections ({@code /proc/PID/fd} socket inodes matched against
   * {@code /proc/PID/net/tcp} and {@code tcp6}).
   *
   * @param pid        the process
   * @param localPort  which local ports count
   * @param remotePort which remote ports count
   * @return the number of such connections in state ESTABLISHED
   */
  static int established(long pid, IntPredicate localPort, IntPredicate remotePort) throws IOException {
    Set<String> inodes = new HashSet<>();
    try (Stream<Path> fds = Files.list(Path.of("/proc", String.valueOf(pid), "fd"))) {
      fds.forEach(fd -> {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith("socket:[")) {
            inodes.add(target.substring(8, target.length() - 1));
          }
        } catch (IOException e) {
          // closed meanwhile
        }
      });
    }
    int n = 0;
    for (String table : List.of("tcp", "tcp6")) {
      Path p = Path.of("/proc", String.valueOf(pid), "net", table);
      if (!Files.exists(p)) {
        continue;
      }
      for (String line : Files.readAllLines(p)) {
        String[] f = line.trim().split("\\s+");
        if (f.length < 10 || !"01".equals(f[3]) || !inodes.contains(f[9])) {
          continue;
        }
        int local = Integer.parseInt(f[1].substring(f[1].lastIndexOf(':') + 1), 16);
        int remote = Integer.parseInt(f[2].substring(f[2].lastIndexOf(':') + 1), 16);
        if (localPort.test(local) && remotePort.test(remote)) {
          n++;
        }
      }
    }
    return n;
  }
}
