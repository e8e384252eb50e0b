package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The peer hop under failure and load (issues 12 and 7): kill -9 of one of two capable peers under steady GETs
 * through node-a loses no GET (in-flight ones are retried on the other peer), and hundreds of proxied watches do
 * not starve short proxied requests (watches have their own peer connection pool).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PeerFailoverTest {
  /** kill -9 runs, alternating node-b and node-c; {@code -Dmvproxy.killRuns=10} for the full proof. */
  static final int KILL_RUNS = Integer.getInteger("mvproxy.killRuns", 3);
  /** Proxied watches held open in the starvation test. */
  static final int WATCHES = Integer.getInteger("mvproxy.watches", 300);

  FleetHarness fleet;
  HttpsClient admin;

  @BeforeAll
  void start() throws Exception {
    Path tmp = Files.createTempDirectory("mvproxy-failover-test");
    fleet = new FleetHarness(tmp.resolve("fleet"), FleetHarness.oldNewNew());
    admin = new HttpsClient(fleet.pki().caCert(), fleet.pki().adminCert(), fleet.pki().adminKey());
    fleet.startAllAndAwaitReady(admin, 120_000);
    FleetTest.await("widgets v2 through node-a", 60_000,
        () -> admin.get(fleet.node("node-a").url(), FleetTest.WIDGETS_V2).status() == 200);
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

  @Test
  @Order(1)
  void killingOneOfTwoCapablePeersLosesNoGet() throws Exception {
    String a = fleet.node("node-a").url();
    AtomicInteger ok = new AtomicInteger();
    List<String> failures = new CopyOnWriteArrayList<>();
    List<Thread> load = new ArrayList<>();
    for (int t = 0; t < 3; t++) {
      Thread th = new Thread(() -> {
        while (!Thread.currentThread().isInterrupted()) {
          try {
            HttpsClient.Resp r = admin.get(a, FleetTest.WIDGETS_V2);
            if (r.status() == 200) {
              ok.incrementAndGet();
            } else {
              failures.add(r.status() + " " + r.text());
            }
          } catch (InterruptedException e) {
            return;
          } catch (Exception e) {
            if (e.getCause() instanceof InterruptedException || Thread.currentThread().isInterrupted()) {
              return;
            }
            failures.add(String.valueOf(e));
          }
        }
      });
      th.start();
      load.add(th);
    }
    try {
      for (int run = 0; run < KILL_RUNS; run++) {
        String victim = run % 2 == 0 ? "node-c" : "node-b";
        int before = ok.get();
        FleetTest.await("GETs flowing", 30_000, () -> ok.get() > before + 20);
        fleet.kill9(victim);
        int atKill = ok.get();
        FleetTest.await("node-a drops " + victim, 30_000, () -> nodes(a) == 2);
        FleetTest.await("GETs after the kill", 30_000, () -> ok.get() > atKill + 20);
        fleet.start(victim);
        fleet.awaitStarted(victim, 120_000);
        FleetTest.await("node-a sees " + victim + " again", 60_000, () -> nodes(a) == 3);
      }
    } finally {
      load.forEach(Thread::interrupt);
      for (Thread th : load) {
        th.join(20_000);
      }
    }
    String metrics = admin.get(a, "/metrics").text();
    System.out.printf("FIGURE kill -9 of one of two capable peers, %d runs: %d GETs ok, %d failed; %s%n", KILL_RUNS,
        ok.get(), failures.size(), metrics.lines().filter(l -> l.startsWith("apiserver_peer_proxy_retries_total"))
            .toList());
    assertEquals(List.of(), failures, "failed GETs through node-a");
  }

  @Test
  @Order(2)
  void proxiedWatchesDoNotStarveShortRequests() throws Exception {
    String a = fleet.node("node-a").url();
    FleetTest.await("widgets v2 through node-a", 60_000, () -> admin.get(a, FleetTest.WIDGETS_V2).status() == 200);
    String rv = admin.get(a, FleetTest.WIDGETS_V2).json().getJsonObject("metadata").getString("resourceVersion");
    HttpClient http = admin.vertx().createHttpClient(new HttpClientOptions().setSsl(true)
        .setTrustOptions(new PemTrustOptions().addCertPath(fleet.pki().caCert().toString()))
        .setKeyCertOptions(new PemKeyCertOptions().setCertPath(fleet.pki().adminCert().toString())
            .setKeyPath(fleet.pki().adminKey().toString())), new PoolOptions().setHttp1MaxSize(WATCHES + 10));
    AtomicInteger heads = new AtomicInteger();
    AtomicInteger sawEvent = new AtomicInteger();
    List<String> watchErrors = new CopyOnWriteArrayList<>();
    try {
      // opened in batches, as clients arrive: a few hundred TLS handshakes in the same millisecond on a 2-core
      // machine can exceed the server's 10 s handshake timeout, which is not what this test is about
      for (int i = 0; i < WATCHES; i++) {
        if (i % 25 == 0 && i > 0) {
          int opened = i;
          FleetTest.await(opened + " watch heads", 60_000, () -> heads.get() + watchErrors.size() >= opened);
        }
        StringBuilder seen = new StringBuilder();
        boolean[] counted = {false};
        http.request(new RequestOptions().setAbsoluteURI(a + FleetTest.WIDGETS_V2 + "?watch=true&resourceVersion=" + rv))
            .compose(req -> req.send())
            .onSuccess(resp -> {
              if (resp.statusCode() == 200) {
                heads.incrementAndGet();
              } else {
                watchErrors.add("watch answered " + resp.statusCode());
              }
              resp.handler(buf -> {
                seen.append(buf);
                if (!counted[0] && seen.indexOf("starve-1") >= 0) {
                  counted[0] = true;
                  sawEvent.incrementAndGet();
                }
              });
            })
            .onFailure(e -> watchErrors.add(String.valueOf(e)));
      }
      FleetTest.await(WATCHES + " proxied watches open", 120_000,
          () -> heads.get() + watchErrors.size() >= WATCHES);
      assertEquals(List.of(), watchErrors);
      long worst = 0;
      List<Long> times = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        long t0 = System.nanoTime();
        HttpsClient.Resp r = i % 2 == 0 ? admin.get(a, FleetTest.WIDGETS_V2)
            : admin.get(a, "/apis/demo.mvproxy.io/v1/namespaces/default/gadgets");
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(200, r.status(), r.text());
        times.add(ms);
        worst = Math.max(worst, ms);
      }
      JsonObject w = new JsonObject().put("apiVersion", "demo.mvproxy.io/v2").put("kind", "Widget")
          .put("metadata", new JsonObject().put("name", "starve-1")).put("spec", new JsonObject().put("size", 1));
      assertEquals(201, admin.send(HttpMethod.POST, fleet.node("node-b").url(), FleetTest.WIDGETS_V2,
          Map.of("Content-Type", "application/json"), w.encode()).status());
      FleetTest.await("every watch gets the event", 60_000, () -> sawEvent.get() >= WATCHES);
      System.out.printf("FIGURE %d proxied watches through node-a: short proxied requests took %s ms (worst %d ms);"
          + " %d watches got the event%n", WATCHES, times, worst, sawEvent.get());
      assertTrue(worst < 2000, "a short proxied request took " + worst + " ms while watches were open");
    } finally {
      http.close();
    }
  }

  /** @return the number of live fleet members (Ready) node-a lists in apiservernodes, itself included */
  private int nodes(String url) throws Exception {
    HttpsClient.Resp r = admin.get(url, "/apis/mvproxy.io/v1alpha1/apiservernodes");
    if (r.status() != 200) {
      return -1;
    }
    int n = 0;
    for (Object o : r.json().getJsonArray("items")) {
      if ("Ready".equals(((JsonObject) o).getJsonObject("status").getString("state"))) {
        n++;
      }
    }
    return n;
  }
}
