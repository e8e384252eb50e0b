package io.mvproxy.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.map.MapInterceptor;
import io.mvproxy.api.storage.StorageException;
import io.vertx.core.AbstractVerticle;
import io.vertx.core.Context;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.ThreadingModel;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The memory backend's calls answer on the caller's context whichever thread Hazelcast completes them on (event loop
 * and worker contexts; reads through Hazelcast's async API, counts and writes through worker threads), a read Hazelcast
 * does not answer within the request timeout is 504 (the late answer harms nothing), and a member without quorum
 * refuses a read at once with 503.
 */
@Tag("fleet")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MemoryBackendTest {
  /** Request timeout of the backend under test, ms. */
  private static final long TIMEOUT_MS = 500;
  /** Held by {@link Stall} while a read of a value holding {@link Stall#MARK} waits in Hazelcast. */
  private static volatile CountDownLatch stalled = new CountDownLatch(0);
  private final Vertx vertx = Vertx.vertx();
  private HazelcastInstance hz;
  /** Request timeout 30 s: a loaded machine's first calls (partition assignment) answer in time. */
  private MemoryBackend backend;
  /** The same storage with a request timeout of {@link #TIMEOUT_MS}. */
  private MemoryBackend quick;

  @BeforeAll
  void start() {
    int[] p = TestHazelcast.freePorts(1);
    hz = TestHazelcast.start(TestHazelcast.clusterName(), p[0], p[0]);
    backend = new MemoryBackend(vertx, hz, StorageConfig.memory().withRequestTimeout(Duration.ofSeconds(30)));
    quick = new MemoryBackend(vertx, hz, StorageConfig.memory().withRequestTimeout(Duration.ofMillis(TIMEOUT_MS)));
  }

  @AfterAll
  void stop() throws Exception {
    stalled.countDown();
    if (hz != null) {
      hz.getLifecycleService().terminate();
    }
    vertx.close().await(20, TimeUnit.SECONDS);
  }

  /** What a call ended with, and where its answer was delivered. */
  private record Outcome<T>(T result, Throwable failure, Context context, String thread) {
  }

  /** Calls {@code call} on {@code ctx}, waits for its answer. */
  private static <T> Outcome<T> on(Context ctx, Supplier<Future<T>> call) throws Exception {
    CompletableFuture<Outcome<T>> out = new CompletableFuture<>();
    ctx.runOnContext(v -> call.get().onComplete((r, t) -> out.complete(new Outcome<>(r, t, Vertx.currentContext(),
        Thread.currentThread().getName()))));
    return out.get(30, TimeUnit.SECONDS);
  }

  private static void answeredOn(Context ctx, String threadPrefix, Outcome<?> o) {
    assertSame(ctx, o.context(), "the answer is delivered on the caller's context");
    assertTrue(o.thread().startsWith(threadPrefix), o.thread());
  }

  private Context workerContext() throws Exception {
    CompletableFuture<Context> ctx = new CompletableFuture<>();
    vertx.deployVerticle(new AbstractVerticle() {
      @Override
      public void start() {
        ctx.complete(context);
      }
    }, new DeploymentOptions().setThreadingModel(ThreadingModel.WORKER)).await(20, TimeUnit.SECONDS);
    return ctx.get(20, TimeUnit.SECONDS);
  }

  @Test
  void everyCallAnswersOnTheCallersContext() throws Exception {
    String res = "/registry/ctx.example.com/things/";
    Context loop = vertx.getOrCreateContext();
    Context worker = workerContext();
    for (Context ctx : new Context[] {loop, worker}) {
      String prefix = ctx == loop ? "vert.x-eventloop-thread-" : "vert.x-worker-thread-";
      String key = res + "ns/" + (ctx == loop ? "a" : "b");
      Outcome<TxnResult> created = on(ctx, () -> backend.create(res, key, "{\"v\":1}"));
      answeredOn(ctx, prefix, created);
      assertNull(created.failure(), () -> String.valueOf(created.failure()));
      assertTrue(created.result().succeeded());
      Outcome<Kv> got = on(ctx, () -> backend.get(res, key));
      answeredOn(ctx, prefix, got);
      assertEquals("{\"v\":1}", got.result().value());
      assertEquals(created.result().revision(), got.result().modRevision());
      Outcome<Kv> absent = on(ctx, () -> backend.get(res, key + "-none"));
      answeredOn(ctx, prefix, absent);
      assertNull(absent.failure());
      assertNull(absent.result());
      Outcome<Long> rev = on(ctx, backend::currentRevision);
      answeredOn(ctx, prefix, rev);
      assertTrue(rev.result() >= created.result().revision());
      Outcome<long[]> count = on(ctx, () -> backend.count(res, res, Keys.prefixEnd(res)));
      answeredOn(ctx, prefix, count);
      assertEquals(ctx == loop ? 1 : 2, count.result()[0]);
    }
  }

  /**
   * Hazelcast runs a plain {@code whenComplete} callback on its default async executor: a new thread per callback
   * where {@code ForkJoinPool.commonPool()} has a parallelism of 1 (two cores). Reads must not start threads.
   */
  @Test
  void readsStartNoThreads() throws Exception {
    String res = "/registry/threads.example.com/things/";
    String key = res + "ns/t";
    Context ctx = vertx.getOrCreateContext();
    assertTrue(on(ctx, () -> backend.create(res, key, "{}")).result().succeeded());
    assertNotNull(on(ctx, () -> backend.get(res, key)).result());
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    int reads = 200;
    long before = threads.getTotalStartedThreadCount();
    for (int i = 0; i < reads; i++) {
      Outcome<Kv> o = on(ctx, () -> backend.get(res, key));
      assertNotNull(o.result(), String.valueOf(o.failure()));
    }
    long started = threads.getTotalStartedThreadCount() - before;
    assertTrue(started < reads / 2, started + " threads started during " + reads + " reads");
  }

  @Test
  void aReadHazelcastDoesNotAnswerWithinTheRequestTimeoutIs504() throws Exception {
    String res = "/registry/slow.example.com/things/";
    String key = res + "ns/slow";
    IMap<String, String> data = hz.getMap(MemoryBackend.DATA);
    data.set(key, "1,1\n{\"" + Stall.MARK + "\":1}");
    stalled = new CountDownLatch(1);
    String id = data.addInterceptor(new Stall());
    try {
      Context ctx = vertx.getOrCreateContext();
      Outcome<Kv> o = on(ctx, () -> quick.get(res, key));
      answeredOn(ctx, "vert.x-eventloop-thread-", o);
      StorageException e = assertInstanceOf(StorageException.class, o.failure());
      assertEquals(504, e.code());
      assertEquals("Timeout: storage did not answer get " + key + " within " + TIMEOUT_MS + " ms", e.getMessage());
    } finally {
      stalled.countDown();
      data.removeInterceptor(id);
    }
    Outcome<Kv> again = on(vertx.getOrCreateContext(), () -> backend.get(res, key));
    assertNotNull(again.result(), String.valueOf(again.failure()));
  }

  @Test
  void aMemberWithoutQuorumRefusesAReadAtOnceWith503() throws Exception {
    int[] p = TestHazelcast.freePorts(1);
    StorageConfig cfg = StorageConfig.memory().withRequestTimeout(Duration.ofSeconds(30));
    HazelcastInstance alone = TestHazelcast.start(TestHazelcast.clusterName(),
        c -> MemoryClusterConfig.apply(c, 3, cfg), p[0], p[0]);
    try {
      MemoryBackend b = new MemoryBackend(vertx, alone, cfg);
      Context ctx = vertx.getOrCreateContext();
      Outcome<Kv> o = on(ctx, () -> b.get("/registry/q/", "/registry/q/ns/a"));
      answeredOn(ctx, "vert.x-eventloop-thread-", o);
      StorageException e = assertInstanceOf(StorageException.class, o.failure());
      assertEquals(503, e.code(), "refused, not timed out: " + e.getMessage());
      assertTrue(e.getMessage().contains("split-brain protection"), e.getMessage());
    } finally {
      alone.getLifecycleService().terminate();
    }
  }

  /** Holds reads of values marked {@link #MARK} on Hazelcast's partition thread until {@link #stalled} opens. */
  static final class Stall implements MapInterceptor {
    static final String MARK = "stall-this-read";

    @Override
    public Object interceptGet(Object value) {
      if (value instanceof String s && s.contains(MARK)) {
        try {
          stalled.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return null;
    }

    @Override
    public void afterGet(Object value) {
    }

    @Override
    public Object interceptPut(Object oldValue, Object newValue) {
      return null;
    }

    @Override
    public void afterPut(Object value) {
    }

    @Override
    public Object interceptRemove(Object removedValue) {
      return null;
    }

    @Override
    public void afterRemove(Object value) {
    }
  }
}
