package io.mvproxy.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.storage.ListOptions;
import io.mvproxy.api.storage.ListResult;
import io.mvproxy.api.storage.Preconditions;
import io.mvproxy.api.storage.ResourceStorage;
import io.mvproxy.api.storage.ResourceVersionMatch;
import io.mvproxy.api.storage.StorageException;
import io.mvproxy.api.storage.StoredObject;
import io.mvproxy.api.storage.Watch;
import io.mvproxy.api.storage.WatchEvent;
import io.mvproxy.api.storage.WatchListener;
import io.mvproxy.api.storage.WatchOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The storage conformance suite (storage.md): run against each backend by a subclass that provides a started
 * {@link NodeStorage}. Every test uses its own resource prefix.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class StorageConformance {
  protected Vertx vertx = Vertx.vertx();
  protected NodeStorage storage;
  protected ResourceStorage rs;

  /** @return the storage under test (built once per class) */
  protected abstract NodeStorage open() throws Exception;

  /** @return true when the backend serves lists at older revisions (etcd until compaction) */
  protected abstract boolean keepsHistory();

  @BeforeEach
  void fresh() throws Exception {
    if (storage == null) {
      storage = open();
    }
    rs = storage.resource("conformance.example.com/r" + UUID.randomUUID().toString().substring(0, 8));
  }

  @AfterAll
  void closeAll() throws Exception {
    if (storage != null) {
      storage.close().await(20, TimeUnit.SECONDS);
    }
    vertx.close().await(20, TimeUnit.SECONDS);
  }

  static <T> T await(Future<T> f) {
    try {
      return f.await(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("no answer within 30 s", e);
    }
  }

  static StorageException failure(Future<?> f) {
    try {
      f.await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      Throwable t = e;
      while (!(t instanceof StorageException) && t.getCause() != null) {
        t = t.getCause();
      }
      return assertInstanceOf(StorageException.class, t, String.valueOf(e));
    }
    throw new AssertionError("expected a failure");
  }

  static JsonObject obj(String ns, String name, int v) {
    return new JsonObject().put("apiVersion", "conformance.example.com/v1").put("kind", "R")
        .put("metadata", new JsonObject().put("name", name).put("namespace", ns).put("uid", "uid-" + name))
        .put("spec", new JsonObject().put("v", v));
  }

  StoredObject create(String ns, String name, int v) {
    return await(rs.create(ns + "/" + name, obj(ns, name, v)));
  }

  @Test
  void nonAsciiTextRoundTrips() {
    JsonObject o = obj("ns1", "u", 1).put("text", "h\u00e9llo \u4e16\u754c \ud83d\ude00");
    await(rs.create("ns1/u", o));
    assertEquals("h\u00e9llo \u4e16\u754c \ud83d\ude00", await(rs.get("ns1/u")).object().getString("text"),
        "values are UTF-8 bytes in the backend, read back as the same text");
  }

  @Test
  void createGetAndKeyExists() {
    StoredObject a = create("ns1", "a", 1);
    assertTrue(a.resourceVersion() > 0);
    assertEquals(Long.toString(a.resourceVersion()), a.object().getJsonObject("metadata").getString("resourceVersion"));
    StoredObject got = await(rs.get("ns1/a"));
    assertEquals(a.resourceVersion(), got.resourceVersion());
    assertEquals(1, got.object().getJsonObject("spec").getInteger("v"));
    assertEquals(StorageException.Code.KEY_EXISTS, failure(rs.create("ns1/a", obj("ns1", "a", 2))).storageCode());
    assertEquals(StorageException.Code.NOT_FOUND, failure(rs.get("ns1/zz")).storageCode());
    assertEquals(StorageException.Code.BAD_REQUEST, failure(rs.get("ns1/../x")).storageCode());
    JsonObject withRv = obj("ns1", "b", 1);
    withRv.getJsonObject("metadata").put("resourceVersion", "5");
    assertEquals(400, failure(rs.create("ns1/b", withRv)).code());
    StoredObject b = create("ns1", "c", 1);
    assertTrue(b.resourceVersion() > a.resourceVersion(), "revision strictly increasing");
  }

  @Test
  void guaranteedUpdateUnderConcurrentWritersLosesNothing() {
    create("ns1", "counter", 0);
    List<Future<StoredObject>> fs = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      fs.add(rs.guaranteedUpdate("ns1/counter", Preconditions.NONE, cur -> {
        JsonObject n = cur.object().copy();
        n.getJsonObject("spec").put("v", n.getJsonObject("spec").getInteger("v") + 1);
        return n;
      }));
    }
    await(Future.all(fs));
    StoredObject end = await(rs.get("ns1/counter"));
    assertEquals(20, end.object().getJsonObject("spec").getInteger("v"));
    StoredObject same = await(rs.guaranteedUpdate("ns1/counter", Preconditions.NONE, cur -> cur.object().copy()));
    assertEquals(end.resourceVersion(), same.resourceVersion(), "an unchanged object is not written");
    StorageException stale = failure(rs.guaranteedUpdate("ns1/counter", new Preconditions(null, "1"),
        cur -> cur.object().copy().put("x", 1)));
    assertEquals(409, stale.code());
    assertEquals(StorageException.Code.NOT_FOUND, failure(rs.guaranteedUpdate("ns1/none", Preconditions.NONE,
        cur -> cur.object())).storageCode());
  }

  @Test
  void deleteWithPreconditions() {
    StoredObject a = create("ns1", "d", 1);
    StorageException e = failure(rs.delete("ns1/d", new Preconditions("other", null), null));
    assertEquals(409, e.code());
    assertEquals("Precondition failed: UID in precondition: other, UID in object meta: uid-d", e.getMessage());
    assertEquals(409, failure(rs.delete("ns1/d", new Preconditions(null, "1"), null)).code());
    StoredObject last = await(rs.delete("ns1/d", new Preconditions("uid-d", Long.toString(a.resourceVersion())),
        null));
    assertTrue(last.resourceVersion() > a.resourceVersion(), "the last state carries the delete's revision");
    assertEquals(StorageException.Code.NOT_FOUND, failure(rs.get("ns1/d")).storageCode());
    assertEquals(StorageException.Code.NOT_FOUND, failure(rs.delete("ns1/d", Preconditions.NONE, null))
        .storageCode());
  }

  @Test
  void listPagesWithKubeContinueTokens() {
    long max = 0;
    for (int i = 0; i < 5; i++) {
      max = Math.max(max, create(i < 3 ? "ns1" : "ns2", "o" + i, i).resourceVersion());
    }
    ListResult all = await(rs.list(ListOptions.all("")));
    assertEquals(5, all.items().size());
    assertTrue(all.resourceVersion() >= max, "list RV covers every item");
    ListResult ns1 = await(rs.list(ListOptions.all("ns1/")));
    assertEquals(3, ns1.items().size());

    ListResult p1 = await(rs.list(new ListOptions("", null, null, 2, null, null)));
    assertEquals(List.of("ns1/o0", "ns1/o1"), p1.items().stream().map(StoredObject::key).toList());
    assertEquals(3L, p1.remainingItemCount());
    JsonObject token = new JsonObject(new String(Base64.getUrlDecoder().decode(p1.continueToken()),
        StandardCharsets.UTF_8));
    assertEquals(new JsonObject().put("v", "meta.k8s.io/v1").put("rv", p1.resourceVersion())
        .put("start", "ns1/o1\u0000"), token);
    create("ns2", "o9", 9);
    if (!keepsHistory()) {
      StorageException e = failure(rs.list(new ListOptions("", null, null, 2, p1.continueToken(), null)));
      assertEquals(410, e.code(), "memory keeps no old versions: a changed resource cannot be continued");
      assertNotNull(e.continueToken());
      return;
    }
    ListResult p2 = await(rs.list(new ListOptions("", null, null, 2, p1.continueToken(), null)));
    assertEquals(p1.resourceVersion(), p2.resourceVersion(), "every page has the first page's RV");
    assertEquals(List.of("ns1/o2", "ns2/o3"), p2.items().stream().map(StoredObject::key).toList());
    ListResult p3 = await(rs.list(new ListOptions("", null, null, 2, p2.continueToken(), null)));
    assertEquals(List.of("ns2/o4"), p3.items().stream().map(StoredObject::key).toList(),
        "the object created after the first page is not in the walk");
    assertNull(p3.continueToken());
  }

  @Test
  void filteredPagesAreFilledAndCarryNoRemainingCount() {
    for (int i = 0; i < 9; i++) {
      create("ns1", "f" + i, i % 3);
    }
    ListResult p = await(rs.list(new ListOptions("", null, null, 2, null,
        o -> o.getJsonObject("spec").getInteger("v") == 0)));
    assertEquals(List.of("ns1/f0", "ns1/f3"), p.items().stream().map(StoredObject::key).toList());
    assertNotNull(p.continueToken());
    assertNull(p.remainingItemCount());
  }

  @Test
  void tamperedContinueTokensAre400() {
    create("ns1", "t", 1);
    for (String bad : List.of("%%%", b64("{\"v\":\"meta.k8s.io/v1\",\"rv\":5,\"start\":\"../x\"}"),
        b64("{\"v\":\"meta.k8s.io/v1\",\"rv\":-99,\"start\":\"a\"}"), b64("{\"v\":\"x\",\"rv\":5,\"start\":\"a\"}"),
        b64("{\"v\":\"meta.k8s.io/v1\",\"rv\":5,\"start\":\"\"}"), b64("not json"))) {
      StorageException e = failure(rs.list(new ListOptions("", null, null, 2, bad, null)));
      assertEquals(400, e.code(), bad);
      assertTrue(e.getMessage().startsWith("invalid continue token: "), e.getMessage());
    }
    assertEquals("specifying resource version is not allowed when using continue", failure(rs.list(
        new ListOptions("", "7", null, 2, b64("{\"v\":\"meta.k8s.io/v1\",\"rv\":5,\"start\":\"a\"}"), null)))
        .getMessage());
  }

  static String b64(String s) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void resourceVersionSemantics() {
    StoredObject a = create("ns1", "v", 1);
    await(rs.guaranteedUpdate("ns1/v", Preconditions.NONE, cur -> cur.object().copy().put("x", 2)));
    long cur = await(rs.currentRevision());
    ListResult nowNotOlder = await(rs.list(new ListOptions("", Long.toString(a.resourceVersion()),
        ResourceVersionMatch.NOT_OLDER_THAN, 0, null, null)));
    assertTrue(nowNotOlder.resourceVersion() >= cur);
    if (keepsHistory()) {
      ListResult exact = await(rs.list(new ListOptions("", Long.toString(a.resourceVersion()),
          ResourceVersionMatch.EXACT, 0, null, null)));
      assertEquals(a.resourceVersion(), exact.resourceVersion());
      assertNull(exact.items().get(0).object().getValue("x"), "exact returns the state at that revision");
    } else {
      StorageException e = failure(rs.list(new ListOptions("", Long.toString(a.resourceVersion()),
          ResourceVersionMatch.EXACT, 0, null, null)));
      assertEquals(410, e.code());
      assertEquals(StorageException.LIST_TOO_OLD, e.getMessage());
    }
    StorageException tooLarge = failure(rs.list(new ListOptions("", Long.toString(cur + 1000),
        ResourceVersionMatch.EXACT, 0, null, null)));
    assertEquals(504, tooLarge.code());
    assertTrue(tooLarge.getMessage().startsWith("Timeout: Too large resource version: " + (cur + 1000)
        + ", current: "), tooLarge.getMessage());
    assertEquals(1, tooLarge.retryAfterSeconds());
    assertEquals(400, failure(rs.list(new ListOptions("", "abc", null, 0, null, null))).code());
  }

  /** Collects a watch's output. */
  static final class Collector implements WatchListener {
    final BlockingQueue<Object> q = new LinkedBlockingQueue<>();

    @Override
    public void onEvent(WatchEvent event) {
      q.add(event);
    }

    @Override
    public void onInitialEventsEnd(long revision) {
      q.add(revision);
    }

    @Override
    public void onError(StorageException error) {
      q.add(error);
    }

    Object next() throws InterruptedException {
      Object o = q.poll(20, TimeUnit.SECONDS);
      assertNotNull(o, "no watch output within 20 s");
      return o;
    }

    WatchEvent event() throws InterruptedException {
      return assertInstanceOf(WatchEvent.class, next());
    }
  }

  @Test
  void watchFromRevisionAndInitialEvents() throws Exception {
    StoredObject a = create("ns1", "a", 1);
    StoredObject b = create("ns1", "b", 2);
    Collector c = new Collector();
    Watch w = await(rs.watch(new WatchOptions("", a.resourceVersion(), false), c));
    WatchEvent e1 = c.event();
    assertEquals(WatchEvent.Type.ADDED, e1.type());
    assertEquals("ns1/b", e1.object().key());
    assertEquals(b.resourceVersion(), e1.revision());
    StoredObject b2 = await(rs.guaranteedUpdate("ns1/b", Preconditions.NONE, cur -> cur.object().copy().put("x", 1)));
    WatchEvent e2 = c.event();
    assertEquals(WatchEvent.Type.MODIFIED, e2.type());
    assertEquals(b2.resourceVersion(), e2.revision());
    assertEquals(b.resourceVersion(), e2.previous().resourceVersion());
    StoredObject gone = await(rs.delete("ns1/a", Preconditions.NONE, null));
    WatchEvent e3 = c.event();
    assertEquals(WatchEvent.Type.DELETED, e3.type());
    assertEquals(gone.resourceVersion(), e3.revision());
    Awaitility.await().pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10))
        .atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertTrue(w.progressRevision() >= gone.resourceVersion()));
    w.cancel();

    Collector init = new Collector();
    Watch wi = await(rs.watch(new WatchOptions("ns1/", 0, true), init));
    WatchEvent added = init.event();
    assertEquals(WatchEvent.Type.ADDED, added.type());
    assertEquals("ns1/b", added.object().key());
    long end = (Long) init.next();
    assertTrue(end >= b2.resourceVersion());
    create("ns2", "other", 1);
    StoredObject c3 = create("ns1", "c", 3);
    WatchEvent next = init.event();
    assertEquals("ns1/c", next.object().key(), "other namespaces are filtered out");
    assertEquals(c3.resourceVersion(), next.revision());
    wi.cancel();
  }

  @Test
  void oneBackendWatchPerResourceFannedOut() throws Exception {
    StoredObject a = create("ns1", "a", 1);
    List<Collector> cs = new ArrayList<>();
    List<Watch> ws = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      Collector c = new Collector();
      cs.add(c);
      ws.add(await(rs.watch(new WatchOptions("", a.resourceVersion(), false), c)));
    }
    assertEquals(1, ((ObjectStore) rs).cache().backendWatches());
    StoredObject b = create("ns1", "b", 1);
    for (Collector c : cs) {
      assertEquals(b.resourceVersion(), c.event().revision());
    }
    ws.forEach(Watch::cancel);
  }

  /** A watch from before the cache's window: one 410 error, "too old resource version: N (M)" (watch_cache.go). */
  @Test
  void watchOlderThanTheCacheWindowIs410TooOld() throws Exception {
    StoredObject a = create("ns1", "a", 1);
    StoredObject b = create("ns1", "b", 1);
    Collector first = new Collector();
    Watch w = await(rs.watch(new WatchOptions("", b.resourceVersion(), false), first)); // the cache starts at b
    StorageException old = watchFailure(new WatchOptions("", a.resourceVersion() - 1, false));
    assertEquals(410, old.code());
    assertEquals("too old resource version: " + (a.resourceVersion() - 1) + " (" + b.resourceVersion() + ")",
        old.getMessage());
    StoredObject c = create("ns1", "c", 1);
    assertEquals(c.resourceVersion(), first.event().revision(), "the cache's other watches go on");
    assertEquals(1, ((ObjectStore) rs).cache().backendWatches());
    w.cancel();
  }

  /**
   * sendInitialEvents from a revision ahead of the store waits for it (3 s, waitUntilFreshAndBlock), then 504
   * Too large resource version; a write within the wait lets it start with a snapshot at least that new.
   */
  @Test
  void initialEventsAheadOfTheStoreWaitThen504() throws Exception {
    long cur = await(rs.currentRevision());
    long t0 = System.nanoTime();
    StorageException e = failure(rs.watch(new WatchOptions("", cur + 1000, true), new Collector()));
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertEquals(504, e.code());
    assertEquals(StorageException.Code.TOO_LARGE_RESOURCE_VERSION, e.storageCode());
    assertTrue(ms >= io.mvproxy.api.storage.ResourceVersions.FRESH_WAIT_MS - 100, "waited " + ms + " ms");
    long now = await(rs.currentRevision());
    Collector c = new Collector();
    Future<Watch> f = rs.watch(new WatchOptions("", now + 1, true), c);
    StoredObject x = create("ns1", "x", 1);
    Watch w = await(f);
    WatchEvent added = c.event();
    assertEquals("ns1/x", added.object().key());
    assertTrue((Long) c.next() >= x.resourceVersion(), "the snapshot is not older than requested");
    w.cancel();
  }

  /** @return the 410/503 a watch ends with, whether its start failed or its first output is the error */
  StorageException watchFailure(WatchOptions o) throws InterruptedException {
    Collector c = new Collector();
    Future<Watch> f = rs.watch(o, c);
    try {
      f.await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      return failure(f);
    }
    return assertInstanceOf(StorageException.class, c.next());
  }

  /**
   * A watch from a revision ahead of the store is served as the cacher does: nothing before it, then exactly the
   * events after it (the 504 is only sendInitialEvents', which waits for the store first).
   */
  @Test
  void watchAheadOfTheStoreStartsAfterThatRevision() throws Exception {
    long from = await(rs.currentRevision()) + 2;
    Collector c = new Collector();
    Watch w = await(rs.watch(new WatchOptions("ahead/", from, false), c));
    java.util.List<String> want = new java.util.ArrayList<>();
    StoredObject last = null;
    for (int i = 0; i < 4; i++) {
      last = create("ahead", "x" + i, i);
      if (last.resourceVersion() > from) {
        want.add(last.key());
      }
    }
    java.util.List<String> got = new java.util.ArrayList<>();
    WatchEvent e;
    do {
      e = c.event();
      assertTrue(e.revision() > from, "an event at or before " + from + ": " + e.revision());
      got.add(e.object().key());
    } while (e.revision() < last.resourceVersion());
    assertEquals(want, got);
    w.cancel();
  }
}
