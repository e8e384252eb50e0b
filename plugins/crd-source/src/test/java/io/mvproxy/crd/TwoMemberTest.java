package io.mvproxy.crd;

import io.mvproxy.registry.impl.CrdApiSource;
import io.mvproxy.registry.impl.CrdSourceOptions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Two Hazelcast members, each with a node serving the same CRD in different versions (A: v1, B: v1+v2): both see
 * the same objects, watches see writes made on the other member, concurrent writers lose nothing, and a killed
 * member loses no object (backup count 1).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.MethodName.class)
@Tag("fleet")
class TwoMemberTest {
  HazelcastInstance hz1;
  HazelcastInstance hz2;
  TestNode a;
  TestNode b;
  Http httpA;
  Http httpB;

  @BeforeAll
  void start() throws Exception {
    String cluster = io.mvproxy.storage.TestHazelcast.clusterName();
    int[] ports = io.mvproxy.storage.TestHazelcast.freePorts(2);
    hz1 = io.mvproxy.storage.TestHazelcast.start(cluster, ports[0], ports);
    hz2 = io.mvproxy.storage.TestHazelcast.start(cluster, ports[1], ports);
    Awaitility.await().pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(100)).atMost(Duration.ofSeconds(20))
        .untilAsserted(() -> assertEquals(2, hz1.getCluster().getMembers().size(), "members joined"));
    JsonObject widgets = CrdRestTest.widgetManifests().get(0);
    JsonObject v1Only = widgets.copy();
    JsonArray versions = v1Only.getJsonObject("spec").getJsonArray("versions");
    versions.remove(1);
    a = new TestNode(hz1, CrdSourceOptions.DEFAULTS);
    b = new TestNode(hz2, CrdSourceOptions.DEFAULTS);
    CrdApiSource sa = a.add(v1Only);
    CrdApiSource sb = b.add(widgets);
    assertEquals(1, sa.groupVersions().size());
    assertEquals(2, sb.groupVersions().size());
    httpA = new Http(a.base());
    httpB = new Http(b.base());
  }

  @AfterAll
  void stop() throws Exception {
    a.close();
    b.close();
    hz1.getLifecycleService().terminate();
    if (hz2.getLifecycleService().isRunning()) {
      hz2.getLifecycleService().terminate();
    }
  }

  static final String V1 = "/apis/example.com/v1/namespaces/shared/widgets";
  static final String V2 = "/apis/example.com/v2/namespaces/shared/widgets";

  @Test
  void bothMembersSeeTheSameObjects() throws Exception {
    JsonObject created = httpA.post(V1, CrdRestTest.widget("both")).json();
    Http.Res viaB = httpB.get(V2 + "/both");
    assertEquals(200, viaB.code(), viaB.body());
    assertEquals("example.com/v2", viaB.json().getString("apiVersion"));
    assertEquals(created.getJsonObject("metadata").getString("uid"),
        viaB.json().getJsonObject("metadata").getString("uid"));
    JsonObject upd = viaB.json().copy();
    upd.getJsonObject("spec").put("color", "purple");
    Http.Res put = httpB.put(V2 + "/both", upd);
    assertEquals(200, put.code(), put.body());
    Http.Res viaA = httpA.get(V1 + "/both");
    assertEquals("purple", viaA.json().getJsonObject("spec").getString("color"));
    assertEquals("example.com/v1", viaA.json().getString("apiVersion"));
    assertEquals(409, httpA.put(V1 + "/both", created).code(), "stale version from the other member");
    assertEquals(404, httpA.get("/apis/example.com/v2/namespaces/shared/widgets/both").code(), "A has no v2");
  }

  @Test
  void watchOnOneMemberSeesWritesOnTheOther() throws Exception {
    String rv = httpA.get(V1).json().getJsonObject("metadata").getString("resourceVersion");
    try (Http.Watch w = httpA.watch(V1 + "?watch=true&resourceVersion=" + rv)) {
      httpB.post(V2, CrdRestTest.widget("remote").put("apiVersion", "example.com/v2"));
      httpB.patch(V2 + "/remote", "application/merge-patch+json", "{\"spec\":{\"color\":\"x\"}}");
      httpB.delete(V2 + "/remote");
      List<String> types = new ArrayList<>();
      long last = 0;
      while (types.size() < 3) {
        JsonObject e = w.next(10);
        if (!"remote".equals(e.getJsonObject("object").getJsonObject("metadata").getString("name"))) {
          continue;
        }
        types.add(e.getString("type"));
        assertEquals("example.com/v1", e.getJsonObject("object").getString("apiVersion"));
        long r = Long.parseLong(e.getJsonObject("object").getJsonObject("metadata").getString("resourceVersion"));
        assertTrue(r > last, "resourceVersion order");
        last = r;
      }
      assertEquals(List.of("ADDED", "MODIFIED", "DELETED"), types);
    }
  }

  @Test
  void concurrentWritersFromBothMembersLoseNothing() throws Exception {
    httpA.post(V1, CrdRestTest.widget("counter"));
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<CompletableFuture<Integer>> fs = new ArrayList<>();
      for (int i = 0; i < 24; i++) {
        int n = i;
        Http h = i % 2 == 0 ? httpA : httpB;
        String path = (i % 2 == 0 ? V1 : V2) + "/counter";
        fs.add(CompletableFuture.supplyAsync(() -> {
          try {
            return h.patch(path, "application/merge-patch+json",
                "{\"metadata\":{\"labels\":{\"k" + n + "\":\"v\"}}}").code();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }, pool));
      }
      for (CompletableFuture<Integer> f : fs) {
        assertEquals(200, f.get(30, TimeUnit.SECONDS));
      }
    } finally {
      pool.shutdownNow();
    }
    JsonObject labels = httpB.get(V2 + "/counter").json().getJsonObject("metadata").getJsonObject("labels");
    assertEquals(24, labels.size(), labels.encode());
  }

  @Test
  void reloadOfTheSourceKeepsDataAndWatches() throws Exception {
    httpA.post(V1, CrdRestTest.widget("reload"));
    CrdApiSource old = a.sources.remove(0);
    old.close().await(10, TimeUnit.SECONDS);
    assertEquals(404, httpA.get(V1 + "/reload").code(), "unloaded");
    JsonObject v1Only = old.manifest();
    a.add(v1Only);
    assertEquals(200, httpA.get(V1 + "/reload").code());
    String rv = httpA.get(V1).json().getJsonObject("metadata").getString("resourceVersion");
    try (Http.Watch w = httpA.watch(V1 + "?watch=true&resourceVersion=" + rv)) {
      httpB.patch(V2 + "/reload", "application/merge-patch+json", "{\"spec\":{\"color\":\"after\"}}");
      JsonObject e = w.next(10);
      assertEquals("MODIFIED", e.getString("type"));
      assertEquals("after", e.getJsonObject("object").getJsonObject("spec").getString("color"));
    }
  }

  @Test
  void zKilledMemberLosesNoObject() throws Exception {
    String ns = "/apis/example.com/v1/namespaces/kill/widgets";
    for (int i = 0; i < 30; i++) {
      assertEquals(201, httpB.post(ns, CrdRestTest.widget("k" + i)).code());
    }
    b.close();
    hz2.getLifecycleService().terminate();
    try {
      Awaitility.await().pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(100)).atMost(Duration.ofSeconds(20))
          .until(() -> hz1.getCluster().getMembers().size() <= 1);
    } catch (ConditionTimeoutException e) {
      // still listed: the reads below show whether anything was lost
    }
    Http.Res l = httpA.get(ns);
    assertEquals(200, l.code(), l.body());
    assertEquals(30, l.json().getJsonArray("items").size());
    assertEquals(201, httpA.post(ns, CrdRestTest.widget("after")).code(), "the counter survived too");
  }
}
