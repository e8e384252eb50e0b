package io.mvproxy.node.fleet;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Benchmark (not a test; run by {@code bench/watch-scale}): N proxied watches through node-a, which lacks widgets
 * v2, while short proxied requests go through the same node. Prints watches held, node-a's heap per watch, and the
 * short requests' p50/p99 with no watches and with N watches open, measured side by side in one run.
 */
public final class WatchScaleBench {
  /** How long opening every watch may take, ms: 4,000 TLS handshakes (client and peer hop) on a loaded 2-core box. */
  static final long OPEN_TIMEOUT_MS = 1_800_000;

  private WatchScaleBench() {
  }

  /**
   * @param args {@code [watches] [shortRequests]}, default 2000 and 400
   */
  public static void main(String[] args) throws Exception {
    int watches = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    int shorts = args.length > 1 ? Integer.parseInt(args[1]) : 400;
    Path tmp = Files.createTempDirectory("mvproxy-watch-bench");
    try (FleetHarness fleet = new FleetHarness(tmp.resolve("fleet"), FleetHarness.oldNewNew());
         HttpsClient admin = new HttpsClient(fleet.pki().caCert(), fleet.pki().adminCert(), fleet.pki().adminKey())) {
      fleet.startAllAndAwaitReady(admin, 180_000);
      String a = fleet.node("node-a").url();
      FleetTest.await("widgets v2 through node-a", 60_000, () -> admin.get(a, FleetTest.WIDGETS_V2).status() == 200);
      String rv = admin.get(a, FleetTest.WIDGETS_V2).json().getJsonObject("metadata").getString("resourceVersion");
      List<Long> before = shortRequests(admin, a, shorts);
      double heap0 = heap(admin, a);
      long t0 = System.nanoTime();
      try (WatchLoad load = new WatchLoad(admin, fleet.pki(), a, FleetTest.WIDGETS_V2, rv, watches, "bench-1",
          OPEN_TIMEOUT_MS)) {
        long openMs = (System.nanoTime() - t0) / 1_000_000;
        List<Long> during = shortRequests(admin, a, shorts);
        double heap1 = heap(admin, a);
        JsonObject w = new JsonObject().put("apiVersion", "demo.mvproxy.io/v2").put("kind", "Widget")
            .put("metadata", new JsonObject().put("name", "bench-1")).put("spec", new JsonObject().put("size", 1));
        admin.send(HttpMethod.POST, fleet.node("node-b").url(), FleetTest.WIDGETS_V2,
            Map.of("Content-Type", "application/json"), w.encode());
        long e0 = System.nanoTime();
        try {
          FleetTest.await("every watch gets the event", 120_000, () -> load.sawMarker() >= load.heads());
        } catch (AssertionError e) {
          System.out.println("BENCH not every watch got the event: " + e.getMessage());
        }
        long eventMs = (System.nanoTime() - e0) / 1_000_000;
        System.out.printf("BENCH watches requested %d, held %d, errors %d, opened in %d ms, event reached %d of them"
                + " in %d ms%n", watches, load.heads(), load.errors().size(), openMs, load.sawMarker(), eventMs);
        System.out.printf("BENCH node-a heap used %.1f MiB -> %.1f MiB: %.1f KiB per watch (no forced GC)%n",
            heap0 / 1048576, heap1 / 1048576, (heap1 - heap0) / 1024 / Math.max(1, load.heads()));
        System.out.printf("BENCH short proxied GET through node-a, %d requests: without watches p50 %d ms p99 %d ms;"
            + " with %d watches p50 %d ms p99 %d ms (ratio p50 %.2f)%n", shorts, pct(before, 50), pct(before, 99),
            load.heads(), pct(during, 50), pct(during, 99), (double) pct(during, 50) / Math.max(1, pct(before, 50)));
      }
    }
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

  private static long pct(List<Long> xs, int p) {
    List<Long> s = new ArrayList<>(xs);
    Collections.sort(s);
    return s.get(Math.min(s.size() - 1, (int) Math.ceil(p / 100.0 * s.size()) - 1));
  }

  /** @return node heap used, bytes, from its /metrics ({@code jvm_memory_used_bytes{area="heap"}} summed) */
  private static double heap(HttpsClient admin, String url) throws Exception {
    double sum = 0;
    for (String line : admin.get(url, "/metrics").text().split("\n")) {
      if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }
}
