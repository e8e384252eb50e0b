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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** The conformance suite on etcd3 against a real etcd process, plus compaction and an unreachable etcd. */
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

  @Test
  void unreachableEtcdIs503Or504WithinTheTimeoutThenRecovers() throws Exception {
    try (EtcdRunner own = EtcdRunner.single()) {
      NodeStorage s = NodeStorage.create(vertx, null, StorageConfig.etcd(own.clientUrls())
          .withCompactionInterval(Duration.ZERO).withRequestTimeout(Duration.ofSeconds(2)));
      var r = s.resource("conformance.example.com/down");
      await(r.create("ns1/a", obj("ns1", "a", 1)));
      own.members().get(0).stop();
      long t0 = System.nanoTime();
      StorageException e = failure(r.get("ns1/a"));
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(e.code() == 503 || e.code() == 504, e.code() + " " + e.getMessage());
      assertTrue(ms < 5000, "answered in " + ms + " ms");
      long deadline = System.currentTimeMillis() + 10_000;
      while (s.healthy() && System.currentTimeMillis() < deadline) {
        Thread.sleep(50);
      }
      assertTrue(!s.healthy(), "health check fails while etcd is down");
      own.members().get(0).start();
      deadline = System.currentTimeMillis() + 30_000;
      StoredObject back = null;
      while (back == null && System.currentTimeMillis() < deadline) {
        try {
          back = r.get("ns1/a").await(5, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception retry) {
          Thread.sleep(100);
        }
      }
      assertNotNull(back, "reads work again once etcd is back");
      s.close().await(10, java.util.concurrent.TimeUnit.SECONDS);
    }
  }
}
