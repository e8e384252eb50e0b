package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.json.JsonObject;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A partition and its heal (issue 12): node-c, the only server of thingamajigs, is frozen (SIGSTOP) until the
 * others' Hazelcast removes it, then resumed (SIGCONT): it comes back through Hazelcast's split-brain merge. Node-a
 * must never answer 404 for thingamajigs, nor node-c for gizmos (only node-a serves them): 503 while cut off, then
 * 200 once the sides re-learned each other's API sets. Then node-c crashes and node-a restarts: the new node-a
 * learns from the fleet what node-c served and answers 503, never 404, until node-c is back.
 * The split also proves the memory storage (breaker F9): ConfigMaps deleted and updated on the majority while node-c
 * is cut off stay deleted and updated after the merge, and node-c refuses a write while it is alone.
 * A watch on thingamajigs that node-a proxies to node-c ends cleanly (final chunk) once node-a's fleet view drops the
 * frozen node-c, well before it is resumed (a stopped peer's kernel keeps ACKing, so only the view can end it).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("fleet")
class PartitionTest {
  static final String GIZMOS = "/apis/gizmos.mvproxy.io/v1/namespaces/default/gizmos";
  /** Hazelcast's removal of a frozen member (about 5 s) plus a margin for a loaded 2-core machine, ms. */
  static final long WATCH_END_MS = 30_000;
  FleetHarness fleet;
  HttpsClient admin;

  @BeforeAll
  void start() throws Exception {
    Path tmp = Files.createTempDirectory("mvproxy-partition");
    Map<String, Map<String, List<Path>>> plugins = FleetHarness.oldNewNew();
    plugins.get("node-c").put("things", List.of(TestData.crd(tmp, "things.mvproxy.io", "thingamajigs",
        "Thingamajig")));
    plugins.get("node-a").put("gizmos", List.of(TestData.crd(tmp, "gizmos.mvproxy.io", "gizmos", "Gizmo")));
    fleet = new FleetHarness(tmp.resolve("fleet"), plugins);
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
  @Order(1)
  void splitAndHealNeverAnswers404() throws Exception {
    {
      FleetHarness.NodeProc a = fleet.node("node-a");
      FleetHarness.NodeProc c = fleet.node("node-c");
      FleetTest.await("things through node-a", 60_000, () -> admin.get(a.url(), FleetTest.THINGS).status() == 200);
      FleetTest.await("gizmos through node-c", 60_000, () -> admin.get(c.url(), GIZMOS).status() == 200);
      HttpClient watchClient = admin.vertx().createHttpClient(new HttpClientOptions().setSsl(true)
          .setTrustOptions(new PemTrustOptions().addCertPath(fleet.pki().caCert().toString()))
          .setKeyCertOptions(new PemKeyCertOptions().setCertPath(fleet.pki().adminCert().toString())
              .setKeyPath(fleet.pki().adminKey().toString())));
      try (Prober thingsOnA = new Prober(admin, a.url(), FleetTest.THINGS, 20);
           Prober thingsOnB = new Prober(admin, fleet.node("node-b").url(), FleetTest.THINGS, 50)) {
        Map<String, Long> created = createConfigMaps(a.url());
        CompletableFuture<Integer> watchHead = new CompletableFuture<>();
        CompletableFuture<String> watchEnd = new CompletableFuture<>();
        java.util.concurrent.atomic.AtomicLong watchEndAt = new java.util.concurrent.atomic.AtomicLong();
        watchClient.request(new RequestOptions().setAbsoluteURI(a.url() + FleetTest.THINGS + "?watch=true"))
            .compose(req -> req.send().onSuccess(resp -> {
              watchHead.complete(resp.statusCode());
              resp.handler(buf -> { });
              resp.endHandler(v -> {
                watchEndAt.compareAndSet(0, System.currentTimeMillis());
                watchEnd.complete("ended");
              });
              resp.exceptionHandler(e -> {
                watchEndAt.compareAndSet(0, System.currentTimeMillis());
                watchEnd.complete("failed: " + e);
              });
            })).onFailure(e -> {
              watchHead.completeExceptionally(e);
              watchEnd.complete("failed: " + e);
            });
        assertEquals(200, watchHead.get(30, java.util.concurrent.TimeUnit.SECONDS), "proxied watch on node-a");
        long cut = System.currentTimeMillis();
        fleet.signal("node-c", "STOP");
        long healed;
        long lastMajorityRv;
        HttpsClient.Resp minority;
        try {
          // written at once: the writes on partitions node-c owned wait until Hazelcast removes it (5 s), while a
          // request that node-a proxied to node-c before that hangs until the 15 s peer timeout (so the probers see
          // the first 503 late); every write acknowledged from here on was made without node-c
          lastMajorityRv = deleteAndUpdateOnTheMajority(a.url(), created);
          FleetTest.await("node-a answers 503 for things (node-c cut off)", 30_000,
              () -> thingsOnA.with(503, cut).size() > 0);
          FleetTest.await("the watch node-a proxied to frozen node-c ends", Math.max(1, cut + WATCH_END_MS
              - System.currentTimeMillis()), watchEnd::isDone);
          assertEquals("ended", watchEnd.get(), "the proxied watch ends cleanly (final chunk), never reset");
          long watchEnded = watchEndAt.get() - cut;
          System.out.printf("FIGURE partition: the watch node-a proxied to node-c ended %d ms after SIGSTOP%n",
              watchEnded);
          assertTrue(watchEnded <= WATCH_END_MS, "the proxied watch ended " + watchEnded + " ms after SIGSTOP");
        } finally {
          healed = System.currentTimeMillis();
          fleet.signal("node-c", "CONT");
        }
        // node-c has just been resumed: its write may wait for Hazelcast's merge until the node's own deadline
        // (--request-timeout, 1 min: 504), so the client waits past it
        minority = admin.send(HttpMethod.POST, c.url(), CONFIGMAPS, JSON, configMap("minority-write", "c"), 75_000);
        try (Prober gizmosOnC = new Prober(admin, c.url(), GIZMOS, 20)) {
          FleetTest.await("things through node-a again after the heal", 120_000,
              () -> thingsOnA.firstAt(200) > 0 && thingsOnA.with(200, healed).size() > 0);
          FleetTest.await("gizmos through node-c again after the heal", 120_000,
              () -> gizmosOnC.with(200, healed).size() > 0);
          long aBack = thingsOnA.with(200, healed).get(0).atMs() - healed;
          long cBack = gizmosOnC.with(200, healed).get(0).atMs() - healed;
          System.out.printf("FIGURE partition: node-c cut off %d ms; after the heal node-a answered things 200 in %d"
              + " ms, node-c answered gizmos 200 in %d ms; 503s: node-a %d, node-b %d, node-c %d%n", healed - cut,
              aBack, cBack, thingsOnA.with(503, 0).size(), thingsOnB.with(503, 0).size(),
              gizmosOnC.with(503, 0).size());
          assertEquals(List.of(), gizmosOnC.with(404, 0), "false 404 on node-c for gizmos");
        }
        FleetTest.await("node-c's Hazelcast merged back", 120_000, () -> c.log().contains(io.mvproxy.storage.MemoryBackend.MERGED_LOG));
        if (lostMajority == null) {
          assertStorageKeptTheMajority(created, lastMajorityRv, minority, a, c);
        }
        assertEquals(List.of(), thingsOnA.with(404, 0), "false 404 on node-a for things");
        assertEquals(List.of(), thingsOnB.with(404, 0), "false 404 on node-b for things");
      } finally {
        watchClient.close();
      }
    }
  }

  static final String CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
  static final Map<String, String> JSON = Map.of("Content-Type", "application/json");
  static final int SPLIT_OBJECTS = 20;

  static String configMap(String name, String v) {
    return configMap(name, v, 0);
  }

  static String configMap(String name, String v, long resourceVersion) {
    JsonObject meta = new JsonObject().put("name", name);
    if (resourceVersion > 0) {
      meta.put("resourceVersion", String.valueOf(resourceVersion));
    }
    return new JsonObject().put("apiVersion", "v1").put("kind", "ConfigMap").put("metadata", meta)
        .put("data", new JsonObject().put("v", v)).encode();
  }

  /** @return name to resourceVersion of {@link #SPLIT_OBJECTS} ConfigMaps created through node-a */
  private Map<String, Long> createConfigMaps(String url) throws Exception {
    Map<String, Long> out = new java.util.LinkedHashMap<>();
    for (int i = 0; i < SPLIT_OBJECTS; i++) {
      HttpsClient.Resp r = admin.send(HttpMethod.POST, url, CONFIGMAPS, JSON, configMap("split-" + i, "old"));
      assertEquals(201, r.status(), r.text());
      out.put("split-" + i, rv(r));
    }
    return out;
  }

  private static long rv(HttpsClient.Resp r) {
    JsonObject m = r.json().getJsonObject("metadata", new JsonObject());
    return Long.parseLong(m.getString("resourceVersion", "0"));
  }

  /** Set when the survivors lost their majority during the split: what the write that showed it answered. */
  private String lostMajority;

  /** @return whether node-a or node-b merged back after a split of their own (their memory storage says so) */
  private boolean survivorsSplit() {
    return fleet.node("node-a").log().contains(io.mvproxy.storage.MemoryBackend.MERGED_LOG)
        || fleet.node("node-b").log().contains(io.mvproxy.storage.MemoryBackend.MERGED_LOG);
  }

  /** Deletes the first half and updates the second half through node-a while node-c is cut off. */
  private long deleteAndUpdateOnTheMajority(String url, Map<String, Long> created) throws Exception {
    long last = 0;
    int i = 0;
    long refusedMs = 0;
    long deadline = System.currentTimeMillis() + 60_000;
    for (String name : created.keySet()) {
      boolean delete = i++ < SPLIT_OBJECTS / 2;
      HttpsClient.Resp[] answer = {null};
      long[] refusedSince = {-1};
      // while Hazelcast re-forms the majority after losing a member (a new master, a short split of the
      // survivors) the storage answers 503 with Retry-After, as a client retries (every 200 ms); it must end within
      // the deadline
      try {
        FleetTest.await((delete ? "DELETE " : "PUT ") + name + " not refused (503) by the majority",
            deadline - System.currentTimeMillis(), 200, () -> {
              answer[0] = null;
              HttpsClient.Resp r = delete ? admin.send(HttpMethod.DELETE, url, CONFIGMAPS + "/" + name, Map.of(), null)
                  : admin.send(HttpMethod.PUT, url, CONFIGMAPS + "/" + name, JSON,
                  configMap(name, "new", created.get(name)));
              answer[0] = r;
              if (r.status() == 503 && refusedSince[0] < 0) {
                refusedSince[0] = System.currentTimeMillis();
              }
              return r.status() != 503;
            });
      } catch (AssertionError stillRefused) {
        // still 503 at the deadline (or the last attempt failed): judged below as the answer it is
        if (answer[0] == null) {
          throw stillRefused;
        }
      }
      HttpsClient.Resp r = answer[0];
      if (refusedSince[0] >= 0) {
        refusedMs += System.currentTimeMillis() - refusedSince[0];
      }
      if (r.status() != 200 && survivorsSplit()) {
        // the two survivors split too (Hazelcast's IO spin on the frozen member, README "Routing rules"): no side
        // had a majority, and the merge kept one side's copies only (README "Storage": the loss of the majority)
        lostMajority = name + " answered " + r.status() + " " + r.text();
        System.out.printf("FIGURE partition: the survivors split too (%s); the storage checks of the split do not"
            + " apply%n", lostMajority);
        return last;
      }
      assertEquals(200, r.status(), "write on the majority during the split: " + r.text());
      last = Math.max(last, rv(r));
    }
    System.out.printf("FIGURE partition: majority writes refused (503) for %d ms while the majority re-formed%n",
        refusedMs);
    return last;
  }

  /**
   * After the heal, on both sides: no deleted ConfigMap is back, every update is kept, the revision did not go
   * backwards, and the write tried on node-c while it was cut off either was refused with a 503/504 Status and is
   * absent, or (when the merge was quicker than the request) was acknowledged and is kept.
   */
  private void assertStorageKeptTheMajority(Map<String, Long> created, long lastMajorityRv, HttpsClient.Resp minority,
                                            FleetHarness.NodeProc... nodes) throws Exception {
    for (FleetHarness.NodeProc n : nodes) {
      List<String> resurrected = new java.util.ArrayList<>();
      List<String> updatesLost = new java.util.ArrayList<>();
      int i = 0;
      for (String name : created.keySet()) {
        HttpsClient.Resp r = admin.get(n.url(), CONFIGMAPS + "/" + name);
        if (i++ < SPLIT_OBJECTS / 2) {
          if (r.status() != 404) {
            resurrected.add(name + "=" + r.status());
          }
        } else if (r.status() != 200 || !"new".equals(r.json().getJsonObject("data").getString("v"))) {
          updatesLost.add(name + "=" + r.status() + " " + r.text());
        }
      }
      assertEquals(List.of(), resurrected, "deleted during the split, back after the heal, on " + n.name);
      assertEquals(List.of(), updatesLost, "updated during the split, lost after the heal, on " + n.name);
      HttpsClient.Resp list = admin.get(n.url(), CONFIGMAPS);
      long rv = rv(list);
      assertTrue(rv >= lastMajorityRv, "list resourceVersion " + rv + " behind the split's last write "
          + lastMajorityRv + " on " + n.name);
      int expected = minority.status() == 201 ? 200 : 404;
      assertEquals(expected, admin.get(n.url(), CONFIGMAPS + "/minority-write").status(),
          "the write tried on node-c during the split answered " + minority.status() + " " + minority.text());
    }
    System.out.printf("FIGURE partition storage: %d ConfigMaps deleted and %d updated on the majority during the split;"
        + " after the heal 0 resurrected, 0 updates lost; the write on node-c right after SIGCONT answered %d %s%n",
        SPLIT_OBJECTS / 2, SPLIT_OBJECTS / 2, minority.status(), minority.text());
    if (minority.status() != 201) {
      assertTrue(minority.status() == 503 || minority.status() == 504, minority.status() + " " + minority.text());
      assertEquals("Status", minority.json().getString("kind"), minority.text());
    }
  }

  @Test
  @Order(2)
  void restartedNodeRemembersWhatACrashedPeerServed() throws Exception {
    FleetHarness.NodeProc a = fleet.node("node-a");
    FleetTest.await("things through node-a", 60_000, () -> admin.get(a.url(), FleetTest.THINGS).status() == 200);
    fleet.kill9("node-c");
    FleetTest.await("node-a answers 503 for things", 30_000, () -> admin.get(a.url(), FleetTest.THINGS).status() == 503);
    a.process().destroy();
    a.process().waitFor();
    try (Prober thingsOnA = new Prober(admin, a.url(), FleetTest.THINGS, 20)) {
      fleet.start("node-a");
      fleet.awaitStarted("node-a", 120_000);
      // readiness may wait up to --member-wait-seconds (60 s) for what the cluster's members serve, counted from
      // the node's start: the bound here is above it
      FleetTest.await("restarted node-a answers", 120_000, () -> thingsOnA.firstAnswerAt() > 0
          && admin.get(a.url(), "/readyz").status() == 200);
      long ready = System.currentTimeMillis();
      FleetTest.await("a few answers after readiness", 30_000, () -> thingsOnA.answers().stream()
          .filter(x -> x.atMs() > ready).count() >= 20);
      fleet.start("node-c");
      fleet.awaitStarted("node-c", 120_000);
      FleetTest.await("things through node-a once node-c is back", 60_000, () -> thingsOnA.firstAt(200) > 0);
      assertEquals(List.of(), thingsOnA.with(404, 0), "restarted node-a answered 404 for what crashed node-c served");
      System.out.printf("FIGURE restarted node with a crashed peer: %d answers 503 (none 404) until the peer was back%n",
          thingsOnA.with(503, 0).size());
    }
  }
}
