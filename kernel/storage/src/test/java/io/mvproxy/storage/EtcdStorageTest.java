package io.mvproxy.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.storage.ListOptions;
import io.mvproxy.api.storage.ListResult;
import io.mvproxy.api.storage.ResourceVersionMatch;
import io.mvproxy.api.storage.StorageException;
import io.mvproxy.api.storage.StoredObject;
import io.mvproxy.api.storage.WatchOptions;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The conformance suite on etcd3 against a real etcd process, plus compaction and an unreachable etcd. */
@Tag("fleet")
class EtcdStorageTest extends StorageConformance {
  private EtcdRunner etcd;

  @Override
  protected NodeStorage open() throws Exception {
    etcd = EtcdRunner.single();
    return NodeStorage.create(vertx, null, StorageConfig.etcd(etcd.clientUrls()).withCompactionInterval(Duration.ZERO));
  }

  @Override
  protected boolean keepsHistory() {
    return true;
  }

  @AfterAll
  void stopEtcd() throws Exception {
    if (etcd != null) {
      etcd.close();
    }
  }

  @Test
  void keysFollowKubeApiserversLayout() throws Exception {
    StoredObject a = create("ns1", "a", 1);
    Process p = new ProcessBuilder("etcdctl", "--endpoints", etcd.servers(), "get", "--prefix",
        "/registry/" + rs.prefix() + "/").redirectErrorStream(true)
        .start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    String[] lines = out.split("\n");
    assertEquals("/registry/" + rs.prefix() + "/ns1/a", lines[0]);
    JsonObject stored = new JsonObject(lines[1]);
    assertEquals("a", stored.getJsonObject("metadata").getString("name"));
    assertTrue(!stored.getJsonObject("metadata").containsKey("resourceVersion"), "resourceVersion is not stored");
    assertTrue(a.resourceVersion() > 0);
  }

  @Test
  void compactionCoordinatedThroughCompactRevKeyGives410() throws Exception {
    StoredObject a = create("ns1", "a", 1);
    create("ns1", "b", 1);
    ListResult p1 = await(rs.list(new ListOptions("", null, null, 1, null, null)));
    create("ns1", "c", 1);
    EtcdBackend backend = (EtcdBackend) backendOf(storage);
    EtcdCompactor c = new EtcdCompactor(vertx, backend, Duration.ofHours(1));
    await(c.round()); // first round records the revision, compacts nothing (compact.go)
    assertEquals(1, compactRevKeyVersion());
    create("ns1", "d", 1);
    await(c.round()); // second round compacts to the revision recorded by the first
    assertEquals(2, compactRevKeyVersion());
    c.stop();
    StorageException old = failure(rs.list(new ListOptions("", Long.toString(a.resourceVersion()),
        ResourceVersionMatch.EXACT, 0, null, null)));
    assertEquals(410, old.code());
    assertEquals(StorageException.LIST_TOO_OLD, old.getMessage());
    StorageException cont = failure(rs.list(new ListOptions("", null, null, 1, p1.continueToken(), null)));
    assertEquals(410, cont.code());
    assertTrue(cont.getMessage().startsWith("The provided continue parameter is too old"));
    assertNotNull(cont.continueToken());
    JsonObject fresh = new JsonObject(new String(Base64.getUrlDecoder().decode(cont.continueToken()),
        StandardCharsets.UTF_8));
    assertEquals(-1L, fresh.getLong("rv"));
    ListResult rest = await(rs.list(new ListOptions("", null, null, 10, cont.continueToken(), null)));
    assertEquals(3, rest.items().size(), "rv -1 continues at the latest revision");
    StorageException w = watchFailure(new WatchOptions("", a.resourceVersion() - 1, false));
    assertEquals(410, w.code());
  }

  private int compactRevKeyVersion() throws Exception {
    Process p = new ProcessBuilder("etcdctl", "--endpoints", etcd.servers(), "get", "compact_rev_key", "-w", "json")
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    return new JsonObject(out).getJsonArray("kvs").getJsonObject(0).getInteger("version");
  }

  static Backend backendOf(NodeStorage s) throws Exception {
    java.lang.reflect.Field f = NodeStorage.class.getDeclaredField("backend");
    f.setAccessible(true);
    return (Backend) f.get(s);
  }

  /**
   * etcd stopped: with the default 60 s storage deadline (--request-timeout) a read still fails fast (503 after
   * the unavailable-retry budget, no waiting for a connection), /readyz's probe turns red, and reads work again by
   * themselves once etcd is back.
   */
  @Test
  void unreachableEtcdIs503Or504WithinTheTimeoutThenRecovers() throws Exception {
    try (EtcdRunner own = EtcdRunner.single()) {
      NodeStorage s = NodeStorage.create(vertx, null, StorageConfig.etcd(own.clientUrls())
          .withCompactionInterval(Duration.ZERO));
      var r = s.resource("conformance.example.com/down");
      await(r.create("ns1/a", obj("ns1", "a", 1)));
      own.members().get(0).stop();
      long t0 = System.nanoTime();
      StorageException e = failure(r.get("ns1/a"));
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(e.code() == 503 || e.code() == 504, e.code() + " " + e.getMessage());
      assertTrue(ms < 5000, "answered in " + ms + " ms");
      Awaitility.await().pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50))
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertTrue(!s.healthy() && !s.ready(),
              "health and readiness checks fail while etcd is down"));
      own.members().get(0).start();
      StoredObject back = Awaitility.await("reads work again once etcd is back").pollInSameThread()
          .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(100)).atMost(Duration.ofSeconds(30))
          .ignoreExceptions().until(() -> r.get("ns1/a").await(5, java.util.concurrent.TimeUnit.SECONDS),
              java.util.Objects::nonNull);
      assertNotNull(back, "reads work again once etcd is back");
      s.close().await(10, java.util.concurrent.TimeUnit.SECONDS);
    }
  }

  /**
   * Three etcd members, four writers creating objects back to back; once 40 are acknowledged the etcd leader gets
   * SIGKILL; writes go on until 80 more are acknowledged. Every acknowledged object is then listed with the
   * resourceVersion its create returned (0 acknowledged writes lost), through all members and through a survivor.
   */
  @Test
  void killedEtcdLeaderOfThreeUnderWritesLosesNoAcknowledgedWrite() throws Exception {
    try (EtcdRunner three = new EtcdRunner(3).start()) {
      NodeStorage s = NodeStorage.create(vertx, null, StorageConfig.etcd(three.clientUrls())
          .withCompactionInterval(Duration.ZERO));
      var r = s.resource("conformance.example.com/leaderkill");
      java.util.Map<String, Long> acked = new java.util.concurrent.ConcurrentHashMap<>();
      java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
      java.util.concurrent.atomic.AtomicInteger failed = new java.util.concurrent.atomic.AtomicInteger();
      java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
      java.util.concurrent.CountDownLatch writersDone = new java.util.concurrent.CountDownLatch(4);
      for (int w = 0; w < 4; w++) {
        vertx.runOnContext(v -> write(r, acked, next, failed, stop, writersDone));
      }
      awaitCount(acked, 40, 30_000);
      EtcdRunner.Member leader = three.leader();
      int before = acked.size();
      long t0 = System.nanoTime();
      leader.kill();
      awaitCount(acked, before + 80, 60_000);
      long afterMs = (System.nanoTime() - t0) / 1_000_000;
      stop.set(true);
      assertTrue(writersDone.await(30, java.util.concurrent.TimeUnit.SECONDS), "writers stopped");
      ListResult all = await(r.list(new ListOptions("", null, null, 0, null, null)));
      java.util.Map<String, Long> listed = new java.util.HashMap<>();
      all.items().forEach(o -> listed.put(o.object().getJsonObject("metadata").getString("name"), o.resourceVersion()));
      for (java.util.Map.Entry<String, Long> e : acked.entrySet()) {
        assertEquals(e.getValue(), listed.get(e.getKey()), "acknowledged " + e.getKey() + " stored at its revision");
      }
      String survivor = three.members().stream().filter(EtcdRunner.Member::alive).findFirst().orElseThrow()
          .clientUrl();
      NodeStorage one = NodeStorage.create(vertx, null, StorageConfig.etcd(java.util.List.of(survivor))
          .withCompactionInterval(Duration.ZERO));
      assertEquals(all.items().size(), await(one.resource("conformance.example.com/leaderkill")
          .list(new ListOptions("", null, null, 0, null, null))).items().size(), "a survivor serves the same list");
      System.out.printf("FIGURE etcd leader %s killed under 4 writers: %d acknowledged (%d before the kill, 80 more "
          + "in %d ms), %d failed, 0 lost%n", leader.name, acked.size(), before, afterMs, failed.get());
      one.close().await(10, java.util.concurrent.TimeUnit.SECONDS);
      s.close().await(10, java.util.concurrent.TimeUnit.SECONDS);
    }
  }

  /**
   * TLS to etcd for real: an etcd serving https with {@code --client-cert-auth}, certificates from the dev PKI
   * (BouncyCastle). With {@code --etcd-cafile/--etcd-certfile/--etcd-keyfile} objects are written and read; without
   * a client certificate, or trusting another CA, every call fails with 503 and never hangs.
   */
  @Test
  void tlsToEtcdWithClientCertificates() throws Exception {
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("mvproxy-etcd-tls");
    io.mvproxy.security.DevPki pki = new io.mvproxy.security.DevPki(dir.resolve("pki"));
    pki.generate(java.util.List.of("etcd"), java.util.List.of(), java.util.Map.of());
    io.mvproxy.security.DevPki other = new io.mvproxy.security.DevPki(dir.resolve("other"));
    other.generate(java.util.List.of("etcd"), java.util.List.of(), java.util.Map.of());
    try (EtcdRunner tls = new EtcdRunner(1).tls(new EtcdRunner.Tls(pki.servingCert("etcd"), pki.servingKey("etcd"),
        pki.caCert())).start()) {
      assertTrue(tls.servers().startsWith("https://127.0.0.1:"), tls.servers());
      StorageConfig base = StorageConfig.etcd(tls.clientUrls()).withCompactionInterval(Duration.ZERO)
          .withRequestTimeout(Duration.ofSeconds(10));
      NodeStorage good = NodeStorage.create(vertx, null, new StorageConfig(base.backend(), base.etcdServers(),
          base.etcdPrefix(), pki.caCert(), pki.adminCert(), pki.adminKey(), base.compactionInterval(),
          base.healthcheckTimeout(), base.readycheckTimeout(), base.requestTimeout(), base.watchCacheSize()));
      var r = good.resource("conformance.example.com/tls");
      StoredObject a = await(r.create("ns1/a", obj("ns1", "a", 1)));
      assertEquals(a.resourceVersion(), await(r.get("ns1/a")).resourceVersion());
      Awaitility.await().pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50))
          .atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertTrue(good.ready(), "probes pass over TLS"));
      assertTrue(good.healthy() && good.ready(), "probes pass over TLS");

      NodeStorage noClientCert = NodeStorage.create(vertx, null, new StorageConfig(base.backend(),
          base.etcdServers(), base.etcdPrefix(), pki.caCert(), null, null, base.compactionInterval(),
          base.healthcheckTimeout(), base.readycheckTimeout(), base.requestTimeout(), base.watchCacheSize()));
      long t0 = System.nanoTime();
      StorageException refused = failure(noClientCert.resource("conformance.example.com/tls").get("ns1/a"));
      assertEquals(503, refused.code(), refused.getMessage());
      assertTrue((System.nanoTime() - t0) / 1_000_000 < 10_000, "a refused handshake is answered, never a hang");

      NodeStorage wrongCa = NodeStorage.create(vertx, null, new StorageConfig(base.backend(), base.etcdServers(),
          base.etcdPrefix(), other.caCert(), other.adminCert(), other.adminKey(), base.compactionInterval(),
          base.healthcheckTimeout(), base.readycheckTimeout(), base.requestTimeout(), base.watchCacheSize()));
      assertEquals(503, failure(wrongCa.resource("conformance.example.com/tls").get("ns1/a")).code(),
          "an etcd certificate from another CA is not trusted");
      for (NodeStorage s : java.util.List.of(good, noClientCert, wrongCa)) {
        s.close().await(10, java.util.concurrent.TimeUnit.SECONDS);
      }
    }
  }

  /** One writer: creates {@code w<n>} objects back to back until {@code stop}, recording acknowledged revisions. */
  private void write(io.mvproxy.api.storage.ResourceStorage r, java.util.Map<String, Long> acked,
                     java.util.concurrent.atomic.AtomicInteger next, java.util.concurrent.atomic.AtomicInteger failed,
                     java.util.concurrent.atomic.AtomicBoolean stop, java.util.concurrent.CountDownLatch done) {
    if (stop.get()) {
      done.countDown();
      return;
    }
    String name = "w" + next.incrementAndGet();
    r.create("ns1/" + name, obj("ns1", name, 1)).onComplete(ar -> {
      if (ar.succeeded()) {
        acked.put(name, ar.result().resourceVersion());
      } else {
        failed.incrementAndGet();
      }
      write(r, acked, next, failed, stop, done);
    });
  }

  /** Polls every 20 ms until {@code m} holds {@code n} entries, for at most {@code ms}. */
  private static void awaitCount(java.util.Map<String, Long> m, int n, long ms) {
    Awaitility.await().pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20))
        .atMost(Duration.ofMillis(ms))
        .untilAsserted(() -> assertTrue(m.size() >= n, "acknowledged " + m.size() + " of " + n + " within " + ms
            + " ms"));
  }
}
