package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Rolling restart under steady traffic: every node in turn gets SIGTERM (graceful: readiness off, record withdrawn,
 * drain, exit 0) and is started again, while a client keeps reading and writing widgets v2 through a node that is
 * not being restarted. No request that had a capable node may fail.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("fleet")
class RollingRestartTest {
  FleetHarness fleet;
  HttpsClient admin;

  @BeforeAll
  void start() throws Exception {
    Path tmp = Files.createTempDirectory("mvproxy-rolling-test");
    fleet = new FleetHarness(tmp.resolve("fleet"), FleetHarness.oldNewNew());
    admin = new HttpsClient(fleet.pki().caCert(), fleet.pki().adminCert(), fleet.pki().adminKey());
    fleet.startAllAndAwaitReady(admin, 120_000);
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
  void rollingRestartLosesNothing() throws Exception {
    AtomicReference<String> entry = new AtomicReference<>(fleet.node("node-a").url());
    AtomicInteger ok = new AtomicInteger();
    List<String> failures = new CopyOnWriteArrayList<>();
    AtomicInteger seq = new AtomicInteger();
    // the entry of the last request answered: the load moved to a new entry once a request to it was answered
    AtomicReference<String> answeredBy = new AtomicReference<>("");
    Thread load = new Thread(() -> {
      long end = System.currentTimeMillis() + 240_000;
      while (!Thread.currentThread().isInterrupted() && System.currentTimeMillis() < end) {
        String url = entry.get();
        try {
          int i = seq.incrementAndGet();
          // the node in use stays ready while a peer restarts (a load balancer keeps it in rotation)
          HttpsClient.Resp r = i % 7 == 0 ? admin.get(url, "/readyz") : i % 5 == 0
              ? admin.send(HttpMethod.POST, url, FleetTest.WIDGETS_V2, Map.of("Content-Type", "application/json"),
              new JsonObject().put("apiVersion", "demo.mvproxy.io/v2").put("kind", "Widget")
                  .put("metadata", new JsonObject().put("name", "r" + i)).put("spec", new JsonObject()
                      .put("size", i)).encode())
              : admin.get(url, FleetTest.WIDGETS_V2);
          if (r.status() >= 300) {
            failures.add(url + " -> " + r.status() + " " + r.text());
          } else {
            ok.incrementAndGet();
          }
          answeredBy.set(url);
        } catch (InterruptedException e) {
          return;
        } catch (Exception e) {
          if (e.getCause() instanceof InterruptedException) {
            return;
          }
          failures.add(url + " -> " + e);
        }
      }
    });
    load.start();
    long t0 = System.nanoTime();
    for (String node : List.of("node-b", "node-c", "node-a")) {
      String next = fleet.node(node.equals("node-a") ? "node-b" : "node-a").url();
      entry.set(next);
      // the request in flight to the previous entry has ended (one thread: the next answer is from the new entry)
      FleetTest.await("the traffic answered through " + next + " before " + node + " stops", 30_000,
          () -> next.equals(answeredBy.get()));
      FleetHarness.NodeProc n = fleet.node(node);
      n.process().destroy();
      assertTrue(n.process().waitFor(30, TimeUnit.SECONDS), node + " did not stop on SIGTERM");
      assertEquals(0, n.process().exitValue(), node + " exit code on SIGTERM:\n" + n.log());
      fleet.start(node);
      fleet.awaitStarted(node, 120_000);
      FleetTest.await(node + " ready again", 90_000, () -> admin.get(n.url(), "/readyz").status() == 200);
      // a node's readyz is its own view: the other nodes route to it once they have its record and its discovery,
      // which the next stop needs (node-a, the old node, proxies widgets v2 to whichever new node is up)
      for (String other : List.of("node-a", "node-b", "node-c")) {
        String url = fleet.node(other).url();
        FleetTest.await(other + " routes to all three nodes again", 90_000, () -> FleetTest.readyNodes(admin, url) == 3);
      }
    }
    load.interrupt();
    load.join(20_000);
    System.out.printf("FIGURE rolling restart of 3 nodes in %d ms under traffic: %d requests ok, %d failed%n",
        (System.nanoTime() - t0) / 1_000_000, ok.get(), failures.size());
    assertTrue(ok.get() > 50, "too few requests: " + ok.get());
    assertEquals(List.of(), failures);
  }
}
