package io.mvproxy.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.mvproxy.api.storage.StorageException;
import io.mvproxy.api.storage.WatchOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The watch cache when the shared backend watch fails within {@link Backend#watch} itself (a listener called before
 * the call returns, as a worker's answer that came before its listener was attached is): every client watch still
 * gets the error, none waits on a dead backend watch, and the next client watch opens a new one.
 */
@Tag("unit")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WatchCacheTest {
  private final Vertx vertx = Vertx.vertx();

  @AfterAll
  void stop() throws Exception {
    vertx.close().await(20, TimeUnit.SECONDS);
  }

  /** A backend at revision 10 whose watches fail at once, within the call, with 410. */
  private class FailingAtOnce implements Backend {
    final boolean revisionAtOnce;
    final AtomicInteger watches = new AtomicInteger();
    final AtomicInteger cancelled = new AtomicInteger();

    FailingAtOnce(boolean revisionAtOnce) {
      this.revisionAtOnce = revisionAtOnce;
    }

    @Override
    public String name() {
      return "failing-at-once";
    }

    private <T> Future<T> unused() {
      return Future.failedFuture(StorageException.unavailable("test backend", "not used"));
    }

    @Override
    public Future<Kv> get(String resource, String key) {
      return unused();
    }

    @Override
    public Future<Range> range(String resource, String from, String end, long revision, long limit) {
      return unused();
    }

    @Override
    public Future<long[]> count(String resource, String from, String end) {
      return unused();
    }

    @Override
    public Future<TxnResult> create(String resource, String key, String value) {
      return unused();
    }

    @Override
    public Future<TxnResult> update(String resource, String key, long modRevision, String value) {
      return unused();
    }

    @Override
    public Future<TxnResult> delete(String resource, String key, long modRevision) {
      return unused();
    }

    @Override
    public Future<Long> currentRevision() {
      if (revisionAtOnce) {
        return Future.succeededFuture(10L);
      }
      Promise<Long> p = Promise.promise();
      vertx.runOnContext(v -> p.complete(10L));
      return p.future();
    }

    @Override
    public BackendWatch watch(String resource, String from, String end, long afterRevision,
                              BackendWatch.Listener listener) {
      watches.incrementAndGet();
      listener.onError(StorageException.expired(StorageException.WATCH_TOO_OLD));
      return cancelled::incrementAndGet;
    }

    @Override
    public boolean healthy() {
      return true;
    }

    @Override
    public Future<Void> close() {
      return Future.succeededFuture();
    }
  }

  /**
   * A backend whose watches take one lock to open and cancel, and report an error holding it, as jetcd's
   * {@code WatchImpl} does (its transport thread calls the listener inside {@code synchronized (lock)}).
   */
  private final class LockingWatches extends FailingAtOnce {
    final Object lock = new Object();
    final java.util.concurrent.CountDownLatch cancelCalled = new java.util.concurrent.CountDownLatch(1);
    volatile BackendWatch.Listener listener;

    LockingWatches() {
      super(true);
    }

    @Override
    public BackendWatch watch(String resource, String from, String end, long afterRevision,
                              BackendWatch.Listener l) {
      synchronized (lock) {
        listener = l;
      }
      return () -> {
        cancelCalled.countDown();
        synchronized (lock) {
          cancelled.incrementAndGet();
        }
      };
    }
  }

  /**
   * The storage closing (a node stopping) while etcd's transport reports the shared watch's failure: the cache
   * cancelled the backend watch holding its monitor while jetcd, holding its lock, waited for that monitor to report
   * the error; both threads hung (EtcdStorageTest hung in its clean-up so). Now the cancel is made outside the
   * monitor and both complete.
   */
  @org.junit.jupiter.api.Test
  void closingWhileTheBackendReportsAnErrorDoesNotDeadlock() throws Exception {
    LockingWatches backend = new LockingWatches();
    ObjectStore store = new ObjectStore(vertx, backend, "/registry", "cache.example.com/things", 10);
    StorageConformance.Collector c = new StorageConformance.Collector();
    StorageConformance.await(store.watch(new WatchOptions("", 10, false), c));
    java.util.concurrent.CountDownLatch holding = new java.util.concurrent.CountDownLatch(1);
    Thread transport = new Thread(() -> {
      synchronized (backend.lock) {
        holding.countDown();
        try {
          backend.cancelCalled.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        backend.listener.onError(StorageException.unavailable("etcd test", "connection lost"));
      }
    }, "etcd-transport");
    transport.setDaemon(true);
    transport.start();
    assertEquals(true, holding.await(10, TimeUnit.SECONDS));
    Thread closer = new Thread(() -> store.cache().close(), "storage-close");
    closer.setDaemon(true);
    closer.start();
    closer.join(10_000);
    transport.join(10_000);
    assertEquals(false, closer.isAlive(), "close() returned");
    assertEquals(false, transport.isAlive(), "the error was delivered");
    assertEquals(1, backend.cancelled.get());
    assertInstanceOf(StorageException.class, c.next());
  }

  @ParameterizedTest(name = "current revision answered within the call: {0}")
  @ValueSource(booleans = {true, false})
  void aBackendWatchFailingWithinTheCallFailsEveryClientWatch(boolean revisionAtOnce) throws Exception {
    FailingAtOnce backend = new FailingAtOnce(revisionAtOnce);
    ObjectStore store = new ObjectStore(vertx, backend, "/registry", "cache.example.com/things", 10);
    for (int i = 1; i <= 2; i++) {
      StorageConformance.Collector c = new StorageConformance.Collector();
      StorageConformance.await(store.watch(new WatchOptions("", 1, false), c));
      StorageException e = assertInstanceOf(StorageException.class, c.next());
      assertEquals(410, e.code());
      assertEquals(i, backend.watches.get(), "each client watch after the failure opens a new backend watch");
      assertEquals(i, backend.cancelled.get(), "the failed backend watch is cancelled, not kept");
      assertEquals(0, store.cache().backendWatches());
      assertEquals(0, store.cache().watchers());
    }
  }
}
