package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.node.plugin.PluginPacker;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Issue 21, never a false 404 while plugins change: three nodes, node-a lacks {@code widgets-new} (widgets v2,
 * gadgets), node-b and node-c serve it. Through node-a a reader (one keep-alive connection: a named widget v2 and
 * the gadget list), a writer (gadget creates, each deleted again) and watchers (gadget list + watch, re-listed
 * whenever the watch ends) run while {@code widgets-new.jar} is removed from node-b, put back and swapped for a newer
 * version, three times; each step ends when node-b finished it (a withdrawn version closed) and every kind of
 * traffic ran across it.
 * node-c serves the resources throughout, so every 404 would be false: none is allowed, and every non-2xx must be a
 * 503 with Retry-After. Then the rollback to nothing: the jar removed from node-b and node-c, node-a answers the
 * ordinary 404 and {@code kubectl api-resources} no longer lists gadgets.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("fleet")
class PluginRollbackTest {
  static final String GADGETS = "/apis/demo.mvproxy.io/v1/gadgets";
  static final String WIDGET_W0 = FleetTest.WIDGETS_V2 + "/w0";
  /** Requests the reader makes after each step before the next one (with a create, a delete, a re-list). */
  static final int READS_PER_STEP = 150;
  /**
   * {@code timeoutSeconds} of the watches: short, so that the watchers list and watch again across every step (the
   * peer of each watch picked anew), besides the watches node-b's withdrawals end.
   */
  static final int WATCH_TIMEOUT_SECONDS = 3;
  /** Concurrent list-and-watch loops through node-a. */
  static final int WATCHERS = 4;
  FleetHarness fleet;
  HttpsClient admin;
  Path tmp;

  /** One answer of the traffic: when, what, and what came back. */
  record Answer(long atMs, String what, int status, boolean retryAfter, String body) {
    @Override
    public String toString() {
      return "+" + atMs + "ms " + what + " -> " + status + (retryAfter ? " (Retry-After)" : "") + " "
          + body.substring(0, Math.min(body.length(), 240));
    }
  }

  @BeforeAll
  void start() throws Exception {
    tmp = Files.createTempDirectory("mvproxy-rollback-test");
    fleet = new FleetHarness(tmp.resolve("fleet"), FleetHarness.oldNewNew());
    admin = new HttpsClient(fleet.pki().caCert(), fleet.pki().adminCert(), fleet.pki().adminKey());
    fleet.startAllAndAwaitReady(admin, 180_000);
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

  Path pluginDir(String node) {
    return fleet.dir().resolve("plugins-" + node);
  }

  Path packNew(String version) throws Exception {
    Path jar = tmp.resolve("widgets-new-" + version + ".jar");
    new PluginPacker().pack(jar, "widgets-new", version, TestData.newWidgets());
    return jar;
  }

  /** @return true when the node's own (nopeer) discovery lists gadgets */
  boolean servesGadgets(String node) throws Exception {
    HttpsClient.Resp r = admin.send(HttpMethod.GET, fleet.node(node).url(), "/apis",
        Map.of("Accept", FleetTest.V2 + ";profile=nopeer"), null);
    return r.status() == 200 && r.text().contains("\"gadgets\"");
  }

  @Test
  @Order(1)
  void removalRestoreAndSwapOnOneOfTwoServingNodesGiveNoFalse404() throws Exception {
    FleetHarness.NodeProc a = fleet.node("node-a");
    JsonObject w0 = new JsonObject().put("apiVersion", "demo.mvproxy.io/v2").put("kind", "Widget")
        .put("metadata", new JsonObject().put("name", "w0").put("namespace", "default"))
        .put("spec", new JsonObject().put("size", 1));
    int created = admin.send(HttpMethod.POST, a.url(), FleetTest.WIDGETS_V2, Map.of("Content-Type",
        "application/json"), w0.encode()).status();
    assertTrue(created == 201 || created == 409, "widget w0: " + created);
    long t0 = System.currentTimeMillis();
    AtomicBoolean run = new AtomicBoolean(true);
    List<Answer> reads = new CopyOnWriteArrayList<>();
    List<Answer> writes = new CopyOnWriteArrayList<>();
    List<Answer> deletes = new CopyOnWriteArrayList<>();
    List<Answer> watches = new CopyOnWriteArrayList<>();
    AtomicInteger watchEnds = new AtomicInteger();
    Thread reader = new Thread(() -> {
      int i = 0;
      while (run.get()) {
        String path = i++ % 2 == 0 ? WIDGET_W0 : GADGETS;
        reads.add(call(t0, HttpMethod.GET, a.url(), path, null));
      }
    }, "reader");
    // the writer deletes each gadget it created: the gadget list the reader and the watchers fetch stays a few
    // objects long (left to grow, 4,000 gadgets made every list take seconds and the scenario 6 minutes)
    Thread writer = new Thread(() -> {
      int i = 0;
      while (run.get()) {
        String name = "rollback-" + i++;
        JsonObject g = new JsonObject().put("apiVersion", "demo.mvproxy.io/v1").put("kind", "Gadget")
            .put("metadata", new JsonObject().put("name", name));
        Answer create = call(t0, HttpMethod.POST, a.url(), GADGETS, g.encode());
        writes.add(create);
        if (create.status() == 201) {
          deletes.add(call(t0, HttpMethod.DELETE, a.url(), GADGETS + "/" + name, null));
        }
      }
    }, "writer");
    // several watchers, so that some of their watches are proxied to node-b (the peer is picked at random)
    List<Thread> watchers = new ArrayList<>();
    for (int i = 0; i < WATCHERS; i++) {
      watchers.add(new Thread(() -> watchLoop(t0, a.url(), run, watches, watchEnds), "watcher-" + i));
    }
    reader.start();
    writer.start();
    watchers.forEach(Thread::start);
    // each step: the change, its observable end on node-b (a withdrawal ends when the old version's sources are
    // closed, DRAIN_MS after every peer confirmed it), and traffic of every kind across it
    List<String> steps = new ArrayList<>();
    Traffic traffic = new Traffic(reads, writes, deletes, watches);
    try {
      traffic.awaitStep();
      steps.add(step(t0, "start", reads, writes));
      for (int i = 1; i <= 3; i++) {
        int cycle = i;
        Path installed = pluginDir("node-b").resolve("widgets-new.jar");
        traffic = new Traffic(reads, writes, deletes, watches);
        Files.move(installed, tmp.resolve("removed-" + cycle + ".jar"), StandardCopyOption.ATOMIC_MOVE);
        FleetTest.await("node-b withdraws gadgets (cycle " + cycle + ")", 30_000, () -> !servesGadgets("node-b"));
        awaitWithdrawalsClosed(2 * cycle - 1);
        traffic.awaitStep();
        steps.add(step(t0, "removal " + cycle, reads, writes));
        traffic = new Traffic(reads, writes, deletes, watches);
        Files.move(packNew("2.0." + cycle), installed, StandardCopyOption.ATOMIC_MOVE);
        FleetTest.await("node-b serves gadgets again (cycle " + cycle + ")", 30_000, () -> servesGadgets("node-b"));
        traffic.awaitStep();
        steps.add(step(t0, "restore " + cycle, reads, writes));
        traffic = new Traffic(reads, writes, deletes, watches);
        Files.move(packNew("2.1." + cycle), installed, StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
        FleetTest.await("node-b runs the swapped jar (cycle " + cycle + ")", 30_000,
            () -> admin.get(fleet.node("node-b").url(), "/apis/mvproxy.io/v1alpha1/plugins").text()
                .contains("2.1." + cycle));
        awaitWithdrawalsClosed(2 * cycle);
        traffic.awaitStep();
        steps.add(step(t0, "swap " + cycle, reads, writes));
      }
    } finally {
      run.set(false);
      reader.join(30_000);
      writer.join(30_000);
      for (Thread w : watchers) {
        w.join(60_000);
      }
    }
    System.out.println("FIGURE plugin rollback steps (ends, since the traffic started): "
        + String.join("; ", steps));
    report("reads", reads, 200);
    report("writes", writes, 201);
    report("deletes", deletes, 200);
    report("watch lists and watch heads", watches, 200);
    String logB = fleet.node("node-b").log();
    String logA = fleet.node("node-a").log();
    System.out.printf("FIGURE plugin rollback cycles: %d watch streams ended and were re-listed; node-b drained %d"
        + " withdrawals with every peer's confirmation (%s), %d without; node-a retried %d hops node-b refused%n",
        watchEnds.get(), count(logB, "drained: every live peer"), drainTimes(logB),
        count(logB, "without every peer's confirmation"), count(logA, "no longer serves"));
    assertTrue(reads.size() > 6 * READS_PER_STEP, "too few reads: " + reads.size());
    assertTrue(writes.size() > 10, "too few writes: " + writes.size());
    assertTrue(deletes.size() > 10, "too few deletes: " + deletes.size());
    assertTrue(watches.size() >= 2 * WATCHERS, "the watchers never listed: " + watches);
    for (List<Answer> all : List.of(reads, writes, deletes, watches)) {
      List<Answer> wrong = all.stream().filter(x -> x.status() >= 300 && (x.status() != 503 || !x.retryAfter()))
          .toList();
      assertEquals(List.of(), wrong, "every answer other than success must be 503 with Retry-After");
    }
  }

  @Test
  @Order(2)
  void rollbackToNothingIsAnOrdinary404AndLeavesDiscovery() throws Exception {
    FleetHarness.NodeProc a = fleet.node("node-a");
    assertEquals(200, admin.get(a.url(), GADGETS).status());
    long t0 = System.nanoTime();
    Files.delete(pluginDir("node-b").resolve("widgets-new.jar"));
    Files.delete(pluginDir("node-c").resolve("widgets-new.jar"));
    List<Integer> seen = new ArrayList<>();
    FleetTest.await("404 for gadgets through node-a", 30_000, () -> {
      HttpsClient.Resp r = admin.get(a.url(), GADGETS);
      seen.add(r.status());
      assertFalse(r.status() != 200 && r.status() != 404 && r.status() != 503, r.status() + " " + r.text());
      return r.status() == 404;
    });
    long ms = (System.nanoTime() - t0) / 1_000_000;
    HttpsClient.Resp r = admin.get(a.url(), GADGETS);
    assertEquals(404, r.status());
    assertEquals("NotFound", r.json().getString("reason"), r.text());
    System.out.printf("FIGURE rollback to nothing: 404 through node-a %d ms after the removal (%d answers before)%n",
        ms, seen.size());
    // the target is 2 s (0.3 s measured on a quiet machine, 1.0 s beside a benchmark); the bound leaves room for a
    // loaded CI machine: the figure above is what to watch
    assertTrue(ms <= 5_000, "the ordinary 404 took " + ms + " ms (answers: " + seen + ")");
    String kubectl = KubectlFleetTest.which("kubectl");
    if (kubectl != null) {
      KubectlFleetTest.Result res = KubectlFleetTest.run(List.of(kubectl, "--kubeconfig",
          fleet.pki().kubeconfig().toString(), "--context", "node-a", "--cache-dir",
          tmp.resolve("kube-cache-" + System.nanoTime()).toString(), "api-resources"), 60);
      assertEquals(0, res.code(), res.all());
      assertFalse(res.out().contains("gadgets"), res.all());
      assertTrue(res.out().contains("widgets"), res.all());
    }
  }

  static int count(String log, String what) {
    int n = 0;
    for (int i = log.indexOf(what); i >= 0; i = log.indexOf(what, i + 1)) {
      n++;
    }
    return n;
  }

  /** @return the drain times node-b logged, e.g. "12 ms, 30 ms" */
  static String drainTimes(String log) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("stopped routing to it after (\\d+ ms)").matcher(log);
    List<String> out = new ArrayList<>();
    while (m.find()) {
      out.add(m.group(1));
    }
    return String.join(", ", out);
  }

  /** @return "what at N ms (R reads, W writes)": when a step's traffic ended, for the FIGURE line */
  static String step(long t0, String what, List<Answer> reads, List<Answer> writes) {
    return what + " at " + (System.currentTimeMillis() - t0) + " ms (" + reads.size() + " reads, " + writes.size()
        + " writes)";
  }

  /**
   * Waits until node-b logged {@code n} withdrawn versions drained and closed (PluginVerticle: every live peer
   * confirmed, then the sources closed {@link io.mvproxy.node.plugin.PluginVerticle#DRAIN_MS} later).
   */
  void awaitWithdrawalsClosed(int n) {
    FleetTest.await("node-b drained and closed " + n + " withdrawn versions of widgets-new", 30_000, () -> {
      String log = fleet.node("node-b").log();
      return count(log, "widgets-new.jar drained") >= n
          && count(log, io.mvproxy.node.plugin.PluginVerticle.CLOSED_LOG) >= n;
    });
  }

  /** The answers counted when a step began: {@link #awaitStep} waits for traffic of every kind after it. */
  final class Traffic {
    final List<Answer> reads;
    final List<Answer> writes;
    final List<Answer> deletes;
    final List<Answer> watches;
    final int readsFrom;
    final int writesFrom;
    final int deletesFrom;
    final int watchesFrom;

    Traffic(List<Answer> reads, List<Answer> writes, List<Answer> deletes, List<Answer> watches) {
      this.reads = reads;
      this.writes = writes;
      this.deletes = deletes;
      this.watches = watches;
      readsFrom = reads.size();
      writesFrom = writes.size();
      deletesFrom = deletes.size();
      watchesFrom = watches.size();
    }

    /**
     * Waits until, since this step began, the reader made {@link PluginRollbackTest#READS_PER_STEP} requests, the
     * writer created and deleted, and a watcher listed and opened a watch again (the traffic a step runs under).
     *
     * @throws AssertionError naming the last read when that does not happen within 120 s
     */
    void awaitStep() {
      FleetTest.await(READS_PER_STEP + " more reads (after " + readsFrom + "; the last: " + (readsFrom == 0 ? "none"
          : reads.get(readsFrom - 1)) + "), a create, a delete and a watch re-listed", 120_000,
          () -> reads.size() >= readsFrom + READS_PER_STEP && writes.size() > writesFrom
              && deletes.size() > deletesFrom && watches.size() >= watchesFrom + 2);
    }
  }

  Answer call(long t0, HttpMethod method, String url, String path, String body) {
    long at = System.currentTimeMillis() - t0;
    try {
      HttpsClient.Resp r = admin.send(method, url, path, body == null ? Map.of()
          : Map.of("Content-Type", "application/json"), body);
      return new Answer(at, method + " " + path, r.status(), r.headers().get("Retry-After") != null,
          r.status() < 300 ? "" : r.text());
    } catch (Exception | Error e) {
      // an Error too: a reader or writer thread that died would stall the steps' "more reads" waits unexplained
      return new Answer(at, method + " " + path, -1, false, String.valueOf(e));
    }
  }

  /** Lists gadgets and watches from the list's resourceVersion; when the watch ends, lists again. */
  void watchLoop(long t0, String url, AtomicBoolean run, List<Answer> answers, AtomicInteger ends) {
    var pki = fleet.pki();
    HttpClient http = admin.vertx().createHttpClient(new HttpClientOptions().setSsl(true)
        .setTrustOptions(new PemTrustOptions().addCertPath(pki.caCert().toString()))
        .setKeyCertOptions(new PemKeyCertOptions().setCertPath(pki.adminCert().toString())
            .setKeyPath(pki.adminKey().toString())), new PoolOptions().setHttp1MaxSize(2));
    try {
      while (run.get()) {
        Answer list = call(t0, HttpMethod.GET, url, GADGETS, null);
        answers.add(list);
        if (list.status() != 200) {
          continue;
        }
        String rv = admin.get(url, GADGETS).json().getJsonObject("metadata").getString("resourceVersion");
        CompletableFuture<Integer> head = new CompletableFuture<>();
        CompletableFuture<Void> ended = new CompletableFuture<>();
        long at = System.currentTimeMillis() - t0;
        http.request(new RequestOptions().setAbsoluteURI(url + GADGETS + "?watch=true&timeoutSeconds="
            + WATCH_TIMEOUT_SECONDS + "&resourceVersion=" + rv)).compose(req -> req.send().onSuccess(resp -> {
              head.complete(resp.statusCode());
              answers.add(new Answer(at, "WATCH " + GADGETS, resp.statusCode(),
                  resp.getHeader("Retry-After") != null, ""));
              resp.endHandler(v -> ended.complete(null));
              resp.exceptionHandler(e -> ended.complete(null));
            })).onFailure(e -> {
              head.complete(-1);
              ended.complete(null);
            });
        head.get(30, TimeUnit.SECONDS);
        while (run.get() && !ended.isDone()) {
          try {
            ended.get(200, TimeUnit.MILLISECONDS);
          } catch (java.util.concurrent.TimeoutException notYet) {
            // still streaming
          }
        }
        if (ended.isDone()) {
          ends.incrementAndGet();
        }
      }
    } catch (Exception e) {
      answers.add(new Answer(System.currentTimeMillis() - t0, "watch loop", -1, false, String.valueOf(e)));
    } finally {
      http.close();
    }
  }

  /** Prints the counts, the 503s and the longest run of 503s (first 503 to the next success). */
  static void report(String what, List<Answer> answers, int ok) {
    long longest = 0;
    long since = -1;
    int unavailable = 0;
    for (Answer x : answers) {
      if (x.status() == 503) {
        unavailable++;
        if (since < 0) {
          since = x.atMs();
        }
      } else if (x.status() == ok && since >= 0) {
        longest = Math.max(longest, x.atMs() - since);
        since = -1;
      }
    }
    System.out.printf("FIGURE plugin rollback %s: %d answers, %d 503 (longest 503 window %d ms), %d other non-%d%n",
        what, answers.size(), unavailable, longest, answers.stream().filter(x -> x.status() != ok
            && x.status() != 503).count(), ok);
    answers.stream().filter(x -> x.status() != ok).limit(20).forEach(x -> System.out.println("  " + x));
  }
}
