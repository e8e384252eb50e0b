package io.mvproxy.storage;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.query.Predicates;
import com.hazelcast.ringbuffer.ReadResultSet;
import com.hazelcast.ringbuffer.Ringbuffer;
import com.hazelcast.ringbuffer.StaleSequenceException;
import com.hazelcast.splitbrainprotection.SplitBrainProtection;
import com.hazelcast.splitbrainprotection.SplitBrainProtectionException;
import io.mvproxy.api.storage.StorageException;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.PromiseInternal;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * The {@code memory} backend: the fleet's own Hazelcast memory, volatile, for a demo without an install.
 *
 * <ul>
 *   <li>Data: one {@link IMap} {@value #DATA} (backup count n - quorum, at least 1), key the
 *   full key, value {@code <modRevision>,<createRevision>\n<json>}.</li>
 *   <li>Revision: an entry of the map {@value #META} with backup count 6 (a copy on every member of a fleet of up to
 *   7), written under that map's lock after the data, so a revision is only visible once its write is. When the
 *   entry is lost with every copy (a full restart), it is seeded from the wall clock in microseconds, so the
 *   revision never goes backwards, whatever members are lost.</li>
 *   <li>Writes and range reads hold the fleet-wide lock of {@value #META} (lease-bounded, released when its holder
 *   dies; a hold whose release the split-brain protection refused is released again, never re-entered,
 *   {@link #unlock}): writes are serialized (compare-and-set on the mod revision as etcd's txns) and a list is a
 *   consistent snapshot at the current revision.</li>
 *   <li>History: one {@link Ringbuffer} per resource ({@value #EVENTS}{@code <resource key prefix>}, backup count 6)
 *   holds its last {@link #HISTORY_FACTOR} x {@code watchCacheSize} changes in revision order; watches read it from any revision it still
 *   covers (410 Expired before). No older object versions are kept: a list at an older revision is served only when
 *   the resource has not changed since (else 410), which is what etcd answers after a compaction.</li>
 * </ul>
 * Splits: {@link MemoryClusterConfig} (split-brain protection, merge policy, backups); on a side without quorum every
 * call fails at once with 503. Every call is bounded by the request timeout (504 after it) and completes on the
 * caller's context: reads without the lock ({@link #get}, {@link #currentRevision}) use Hazelcast's async API from the
 * caller's thread; calls that hold the lock or have no async form (writes, {@link #range}, {@link #count}) run on
 * worker threads.
 */
public final class MemoryBackend implements Backend {
  /** Map of the objects. */
  static final String DATA = "mvproxy.storage.kv";
  /** Map of the revision counter, its epoch and the write lock. */
  static final String META = "mvproxy.storage.meta";
  /** Prefix of the per-resource event ringbuffers. */
  static final String EVENTS = "mvproxy.storage.events.";
  /** Changes kept per resource, as a multiple of the watch cache size (5000 with the default 1000). */
  static final int HISTORY_FACTOR = 5;
  /** Tick of the deadline wheel, ms. */
  static final long DEADLINE_TICK_MS = 50;
  private static final String REVISION = "revision";
  private static final String EPOCH = "epoch";
  static final String LOCK = "lock";
  /** Lease of the write lock, ms: a holder that hangs cannot block the fleet longer. */
  static final long LOCK_LEASE_MS = 10_000;
  /** Pause between tries of an unlock the split-brain protection refused, ms: a fleet regains quorum in seconds. */
  static final long UNLOCK_RETRY_MS = 100;
  /** Logged when this member's side of a split merged into the other side (its storage entries discarded). */
  public static final String MERGED_LOG = "memory storage: this member merged back into the fleet after a split;"
      + " its side's objects and revision were discarded in favour of the side it joined (DiscardMergePolicy)";
  private static final Logger LOG = Logger.getLogger(MemoryBackend.class.getName());
  /** Runs a Hazelcast completion callback on the completing thread: it only completes a future and hops away. */
  private static final Executor ON_COMPLETING_THREAD = Runnable::run;
  /**
   * The deadlines of every call, on one timer wheel (one daemon thread ticking every {@value #DEADLINE_TICK_MS} ms,
   * a 504 at most that much after the request timeout): adding and cancelling a deadline is a lock-free queue offer
   * that wakes no thread. Not a timer per call (a Vert.x timer, or {@code CompletableFuture.orTimeout}, whose one
   * JDK scheduler thread is woken by every call while its queue is empty: about 2 us of CPU per read).
   */
  private static final HashedWheelTimer DEADLINES = new HashedWheelTimer(r -> {
    Thread t = new Thread(r, "mvproxy-storage-deadlines");
    t.setDaemon(true);
    return t;
  }, MemoryBackend.DEADLINE_TICK_MS, TimeUnit.MILLISECONDS, 512);

  private final Vertx vertx;
  private final HazelcastInstance hz;
  private final long timeoutMs;
  private final IMap<String, String> data;
  private final IMap<String, Long> meta;
  /** Per thread: it may still hold the write lock (its last unlock was refused); see {@link #unlock}. */
  private final ThreadLocal<Boolean> mayHold = ThreadLocal.withInitial(() -> false);
  private final SplitBrainProtection protection;
  private final int quorum;
  /** Highest revision this member committed: the counter never goes below it, even when its entry is lost. */
  private final AtomicLong localMax = new AtomicLong();

  /**
   * @param vertx the node's Vert.x
   * @param hz    the node's Hazelcast member
   * @param cfg   settings (request timeout)
   */
  public MemoryBackend(Vertx vertx, HazelcastInstance hz, StorageConfig cfg) {
    this.vertx = vertx;
    this.hz = hz;
    this.timeoutMs = cfg.requestTimeout().toMillis();
    com.hazelcast.config.Config c = hz.getConfig();
    String protection = c.getSplitBrainProtectionConfigs().containsKey(MemoryClusterConfig.PROTECTION)
        ? MemoryClusterConfig.PROTECTION : null;
    // a member configured by MemoryClusterConfig.apply has these already; others (tests) get them here
    if (c.getMapConfigOrNull(DATA) == null) {
      addConfig(() -> c.addMapConfig(MemoryClusterConfig.dataMap(1, protection)));
    }
    if (c.getMapConfigOrNull(META) == null) {
      addConfig(() -> c.addMapConfig(MemoryClusterConfig.metaMap(protection)));
    }
    if (!c.getRingbufferConfigs().containsKey(EVENTS + "*")) {
      addConfig(() -> c.addRingBufferConfig(MemoryClusterConfig.rings(MemoryClusterConfig.ringCapacity(cfg),
          protection)));
    }
    this.protection = protection == null ? null
        : hz.getSplitBrainProtectionService().getSplitBrainProtection(protection);
    this.quorum = protection == null ? 0
        : c.getSplitBrainProtectionConfig(protection).getMinimumClusterSize();
    hz.getLifecycleService().addLifecycleListener(e -> {
      if (e.getState() == com.hazelcast.core.LifecycleEvent.LifecycleState.MERGED) {
        LOG.warning(MERGED_LOG);
      }
    });
    this.data = hz.getMap(DATA);
    this.meta = hz.getMap(META);
  }

  private static void addConfig(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      // an equal configuration was added by another member already
    }
  }

  @Override
  public String name() {
    return StorageConfig.MEMORY;
  }

  /** @return the caller's context (a new event-loop context off Vert.x threads): every answer completes on it */
  private ContextInternal context() {
    return (ContextInternal) vertx.getOrCreateContext();
  }

  /**
   * Runs a blocking Hazelcast call (one that holds the fleet-wide lock, or has no async form) on a worker thread,
   * bounded by the request timeout.
   *
   * @return completes on the caller's context: the call's result, or the error mapped to a Status
   */
  private <T> Future<T> blocking(String what, Callable<T> c) {
    ContextInternal ctx = context();
    CompletableFuture<T> cf = new CompletableFuture<>();
    ctx.executeBlocking(c, false).onComplete((v, t) -> {
      if (t != null) {
        cf.completeExceptionally(t);
      } else {
        cf.complete(v);
      }
    });
    return bounded(ctx, what, cf, Function.identity());
  }

  /**
   * Bounds an async Hazelcast call by the request timeout ({@link #bounded}) and hops back to the caller's context,
   * where {@code then} (decoding) and the error mapping run: Hazelcast completes its stages on its own partition or response threads, which never run
   * mvproxy code. The hop is made from the thread completing Hazelcast's stage ({@link #ON_COMPLETING_THREAD}):
   * Hazelcast runs a plain {@code whenComplete} callback on its default async executor, which is
   * {@code ForkJoinPool.commonPool()} (one more thread hop), or a new thread per callback where the common pool has
   * a parallelism of 1 (two cores).
   *
   * @param ctx  the caller's context
   * @param what the operation, for the 504 message
   * @param op   the Hazelcast call, already started
   * @param then applied to the result on {@code ctx}
   * @return completes on {@code ctx}
   */
  private <R, T> Future<T> async(ContextInternal ctx, String what, CompletionStage<R> op, Function<R, T> then) {
    CompletableFuture<R> cf = new CompletableFuture<>(); // ours: the timeout never completes Hazelcast's future
    op.whenCompleteAsync((v, t) -> {
      if (t != null) {
        cf.completeExceptionally(t);
      } else {
        cf.complete(v);
      }
    }, ON_COMPLETING_THREAD);
    return bounded(ctx, what, cf, then);
  }

  /**
   * Completes a future on {@code ctx} with {@code cf}'s outcome (run through {@code then}), failing it with 504 once
   * the request timeout passed ({@link #DEADLINES}). Never within the call: an outcome already there (Hazelcast
   * quicker than this thread) is answered on the next turn of {@code ctx}, as every backend call always answered; an
   * outcome arriving later on {@code ctx} itself (a worker's result) is answered at once, without another hop.
   */
  private <R, T> Future<T> bounded(ContextInternal ctx, String what, CompletableFuture<R> cf, Function<R, T> then) {
    PromiseInternal<T> p = ctx.promise();
    Timeout deadline = DEADLINES.newTimeout(x -> cf.completeExceptionally(new TimeoutException()), timeoutMs,
        TimeUnit.MILLISECONDS);
    boolean[] returned = new boolean[1]; // read on ctx: a stale false only costs one more hop
    cf.whenComplete((v, t) -> {
      deadline.cancel();
      if (returned[0] && ctx.isRunningOnContext()) {
        finish(p, what, v, t, then);
      } else {
        ctx.runOnContext(x -> finish(p, what, v, t, then));
      }
    });
    returned[0] = true;
    return p.future();
  }

  /** @return a future failed with {@code e} as a Status on the next turn of {@code ctx} (never within the call) */
  private <T> Future<T> failLater(ContextInternal ctx, String what, RuntimeException e) {
    PromiseInternal<T> p = ctx.promise();
    ctx.runOnContext(x -> p.fail(failure(what, e)));
    return p.future();
  }

  private <R, T> void finish(Promise<T> p, String what, R v, Throwable t, Function<R, T> then) {
    if (t != null) {
      p.fail(failure(what, t));
      return;
    }
    T out;
    try {
      out = then.apply(v);
    } catch (RuntimeException e) {
      p.fail(failure(what, e));
      return;
    }
    p.complete(out);
  }

  /** @return {@code t} as a Status: 504 after the deadline, 503 without quorum or for any other Hazelcast error */
  private StorageException failure(String what, Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof StorageException se) {
      return se;
    }
    if (t instanceof TimeoutException) {
      return StorageException.timeout(what, timeoutMs);
    }
    return t instanceof SplitBrainProtectionException ? noQuorum()
        : StorageException.unavailable("the fleet's memory", String.valueOf(t.getMessage()));
  }

  /**
   * Refuses an operation on a side of a split smaller than the quorum (Hazelcast checks it again per operation).
   *
   * @throws StorageException 503 naming the members seen and needed
   */
  private void ensureQuorum() {
    if (protection != null && !protection.hasMinimumSize()) {
      throw noQuorum();
    }
  }

  private StorageException noQuorum() {
    return StorageException.unavailable("the fleet's memory", "fewer than " + quorum + " cluster members (a majority"
        + " of --cluster-members) answer this node's heartbeats (split-brain protection " + MemoryClusterConfig.PROTECTION
        + ", members in its view: " + hz.getCluster().getMembers().size() + "): reads and writes are refused until"
        + " the fleet is whole again");
  }

  private <T> T locked(Callable<T> c) throws Exception {
    ensureQuorum();
    lock();
    long acquired = System.nanoTime();
    try {
      return c.call();
    } finally {
      unlock(acquired);
    }
  }

  /**
   * Releases this thread's hold after a write. An unlock the split-brain protection refuses (the fleet lost its
   * quorum during the write) is retried every {@link #UNLOCK_RETRY_MS} until it goes through or the lease is over
   * (or the member stops, or the thread is interrupted; the hold is then left to its lease and to {@link #lock}):
   * a hold left behind would be re-entered by this thread's next write (Hazelcast's lock is reentrant per member and
   * thread), every write extending its lease, and keep every other writer of the fleet out (PartitionTest on CI:
   * after a split and a restart the new member's writes timed out for minutes while one member's kept going).
   *
   * @param acquired {@link System#nanoTime()} when the lock was taken
   */
  private void unlock(long acquired) {
    while (true) {
      try {
        meta.unlock(LOCK);
        mayHold.set(false);
        return;
      } catch (IllegalMonitorStateException e) {
        mayHold.set(false);
        LOG.warning("storage lock lease expired during a write");
        return;
      } catch (RuntimeException e) {
        if (System.nanoTime() - acquired > TimeUnit.MILLISECONDS.toNanos(LOCK_LEASE_MS)
            || !hz.getLifecycleService().isRunning()) {
          LOG.warning("memory storage: the write lock could not be released (" + e.getMessage() + "); its lease"
              + " ends it, and this thread releases it before it writes again");
          return;
        }
        try {
          Thread.sleep(UNLOCK_RETRY_MS);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /**
   * Drops every hold this thread may still have on the lock (see {@link #unlock}) before it takes it again: each
   * unlock drops one; the one after the last fails with IllegalMonitorStateException (not the owner).
   *
   * @throws RuntimeException from Hazelcast when an unlock is refused (the caller answers 503)
   */
  private void releaseOwnHolds() {
    for (int i = 0; i < 1_000; i++) {
      try {
        meta.unlock(LOCK);
      } catch (IllegalMonitorStateException e) {
        mayHold.set(false);
        return;
      }
    }
    LOG.warning("memory storage: this thread still holds the write lock after 1000 unlocks; its lease ends it");
  }

  /**
   * Takes the fleet-wide write lock within the request timeout, after dropping any hold this thread may have left
   * ({@link #unlock}). A {@code tryLock} that fails (no quorum, a lost answer, an interrupt) may have been granted
   * before it failed: the thread then counts as a possible holder too.
   *
   * @throws StorageException 504 Timeout when the lock stays busy for the request timeout
   */
  private void lock() throws InterruptedException {
    if (mayHold.get()) {
      releaseOwnHolds();
    }
    boolean got;
    try {
      got = meta.tryLock(LOCK, timeoutMs, TimeUnit.MILLISECONDS, LOCK_LEASE_MS, TimeUnit.MILLISECONDS);
    } catch (RuntimeException | InterruptedException e) {
      mayHold.set(true);
      throw e;
    }
    if (!got) {
      throw StorageException.timeout("write (the storage lock is busy)", timeoutMs);
    }
    mayHold.set(true);
  }

  /** @return the committed revision; seeds it (and the epoch) from the clock when absent. Under the lock. */
  private long committed() {
    Long cur = meta.get(REVISION);
    if (cur == null) {
      long seed = Math.max(System.currentTimeMillis() * 1000, localMax.get());
      meta.set(EPOCH, seed);
      meta.set(REVISION, seed);
      LOG.info("memory storage: revision counter (re)started at " + seed);
      cur = seed;
    }
    return Math.max(cur, localMax.get());
  }

  private void commit(long rev) {
    meta.set(REVISION, rev);
    localMax.accumulateAndGet(rev, Math::max);
  }

  private static String enc(long mod, long create, String value) {
    return mod + "," + create + "\n" + value;
  }

  private static Kv dec(String key, String raw) {
    if (raw == null) {
      return null;
    }
    int nl = raw.indexOf('\n');
    int comma = raw.indexOf(',');
    return new Kv(key, raw.substring(nl + 1), Long.parseLong(raw.substring(0, comma)),
        Long.parseLong(raw.substring(comma + 1, nl)));
  }

  private Ringbuffer<String> ring(String resource) {
    return hz.getRingbuffer(EVENTS + resource);
  }

  private static String event(boolean delete, String key, String value, long mod, long create, Kv prev) {
    JsonObject e = new JsonObject().put("d", delete).put("k", key).put("v", value).put("m", mod).put("c", create);
    if (prev != null) {
      e.put("pv", prev.value()).put("pm", prev.modRevision()).put("pc", prev.createRevision());
    }
    return e.encode();
  }

  private static BackendEvent parse(String s) {
    JsonObject e = new JsonObject(s);
    Kv prev = e.containsKey("pv") ? new Kv(e.getString("k"), e.getString("pv"), e.getLong("pm"), e.getLong("pc"))
        : null;
    long m = e.getLong("m");
    return new BackendEvent(e.getBoolean("d"), new Kv(e.getString("k"), e.getString("v", ""), m, e.getLong("c")),
        prev, m);
  }

  /**
   * A read without the lock, from the caller's thread: the quorum check inline (a volatile read), then
   * {@link IMap#getAsync}; 503 without quorum, 504 after the request timeout.
   */
  @Override
  public Future<Kv> get(String resource, String key) {
    ContextInternal ctx = context();
    String what = "get " + key;
    CompletionStage<String> raw;
    try {
      ensureQuorum();
      raw = data.getAsync(key);
    } catch (RuntimeException e) {
      return failLater(ctx, what, e);
    }
    return async(ctx, what, raw, v -> dec(key, v));
  }

  @Override
  public Future<Range> range(String resource, String from, String end, long revision, long limit) {
    return blocking("list " + from, () -> locked(() -> {
      long cur = committed();
      if (revision > cur) {
        throw StorageException.tooLargeResourceVersion(revision, cur);
      }
      if (revision > 0 && revision < cur) {
        Long epoch = meta.get(EPOCH);
        if (epoch != null && revision < epoch || lastChange(resource) > revision) {
          throw StorageException.expired(StorageException.LIST_TOO_OLD);
        }
      }
      TreeMap<String, String> sorted = new TreeMap<>(data.getAll(data.keySet(Predicates.and(
          Predicates.greaterEqual("__key", from), Predicates.lessThan("__key", end)))));
      List<Kv> out = new ArrayList<>();
      for (Map.Entry<String, String> e : sorted.entrySet()) {
        if (limit > 0 && out.size() >= limit) {
          break;
        }
        out.add(dec(e.getKey(), e.getValue()));
      }
      return new Range(out, cur, limit > 0 && sorted.size() > limit, sorted.size());
    }));
  }

  /** @return the revision of the resource's last change held in its ring, 0 when none */
  private long lastChange(String resource) {
    Ringbuffer<String> rb = ring(resource);
    long tail = rb.tailSequence();
    if (tail < rb.headSequence() || tail < 0) {
      return 0;
    }
    try {
      return parse(rb.readOne(tail)).revision();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw StorageException.unavailable("the fleet's memory", "interrupted");
    }
  }

  @Override
  public Future<long[]> count(String resource, String from, String end) {
    return blocking("count " + from, () -> {
      ensureQuorum();
      long cur = committed();
      int n = data.keySet(Predicates.and(Predicates.greaterEqual("__key", from),
          Predicates.lessThan("__key", end))).size();
      return new long[] {n, cur};
    });
  }

  @Override
  public Future<TxnResult> create(String resource, String key, String value) {
    return blocking("create " + key, () -> locked(() -> {
      long cur = committed();
      Kv present = dec(key, data.get(key));
      if (present != null) {
        return new TxnResult(false, cur, present);
      }
      long rev = cur + 1;
      data.set(key, enc(rev, rev, value));
      ring(resource).add(event(false, key, value, rev, rev, null));
      commit(rev);
      return new TxnResult(true, rev, null);
    }));
  }

  @Override
  public Future<TxnResult> update(String resource, String key, long modRevision, String value) {
    return blocking("update " + key, () -> locked(() -> {
      long cur = committed();
      Kv present = dec(key, data.get(key));
      if (present == null || present.modRevision() != modRevision) {
        return new TxnResult(false, cur, present);
      }
      long rev = cur + 1;
      data.set(key, enc(rev, present.createRevision(), value));
      ring(resource).add(event(false, key, value, rev, present.createRevision(), present));
      commit(rev);
      return new TxnResult(true, rev, null);
    }));
  }

  @Override
  public Future<TxnResult> delete(String resource, String key, long modRevision) {
    return blocking("delete " + key, () -> locked(() -> {
      long cur = committed();
      Kv present = dec(key, data.get(key));
      if (present == null || present.modRevision() != modRevision) {
        return new TxnResult(false, cur, present);
      }
      long rev = cur + 1;
      data.delete(key);
      ring(resource).add(event(true, key, "", rev, present.createRevision(), present));
      commit(rev);
      return new TxnResult(true, rev, present);
    }));
  }

  /** Reads the counter with {@link IMap#getAsync}; only a lost counter is seeded, under the lock on a worker. */
  @Override
  public Future<Long> currentRevision() {
    String what = "read the current revision";
    ContextInternal ctx = context();
    CompletionStage<Long> raw;
    try {
      raw = meta.getAsync(REVISION);
    } catch (RuntimeException e) {
      return failLater(ctx, what, e);
    }
    return async(ctx, what, raw, Function.<Long>identity()).compose(cur -> cur == null
        ? blocking(what, () -> locked(this::committed)) : ctx.succeededFuture(Math.max(cur, localMax.get())));
  }

  @Override
  public BackendWatch watch(String resource, String from, String end, long afterRevision,
                           BackendWatch.Listener listener) {
    AtomicBoolean cancelled = new AtomicBoolean();
    Ringbuffer<String> rb = ring(resource);
    vertx.executeBlocking(() -> startSequence(rb, afterRevision), false).onComplete(ar -> {
      if (ar.failed()) {
        if (!cancelled.get()) {
          listener.onError(ar.cause() instanceof StorageException se ? se
              : StorageException.unavailable("the fleet's memory", String.valueOf(ar.cause().getMessage())));
        }
        return;
      }
      readFrom(rb, ar.result(), from, end, afterRevision, listener, cancelled);
    });
    return () -> cancelled.set(true);
  }

  /** @return the first ring sequence whose revision is above {@code after}; 410 when the ring lost some of them */
  private long startSequence(Ringbuffer<String> rb, long after) throws InterruptedException {
    Long epoch = meta.get(EPOCH);
    if (epoch != null && after < epoch) {
      throw StorageException.expired(StorageException.WATCH_TOO_OLD);
    }
    long head = rb.headSequence();
    long tail = rb.tailSequence();
    if (tail < head) {
      return tail + 1;
    }
    if (head > 0 && parse(rb.readOne(head)).revision() - 1 > after) {
      throw StorageException.expired("too old resource version: " + after + " ("
          + (parse(rb.readOne(head)).revision() - 1) + ")");
    }
    long lo = head;
    long hi = tail + 1;
    while (lo < hi) {
      long mid = (lo + hi) >>> 1;
      if (parse(rb.readOne(mid)).revision() > after) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  private void readFrom(Ringbuffer<String> rb, long seq, String from, String end, long after,
                        BackendWatch.Listener listener, AtomicBoolean cancelled) {
    if (cancelled.get()) {
      return;
    }
    java.util.concurrent.CompletionStage<ReadResultSet<String>> next;
    try {
      next = rb.readManyAsync(seq, 1, (int) Math.min(256, rb.capacity()), null);
    } catch (RuntimeException e) {
      cancelled.set(true);
      listener.onError(StorageException.unavailable("the fleet's memory", String.valueOf(e.getMessage())));
      return;
    }
    next.whenComplete((ReadResultSet<String> rs, Throwable t) -> {
      if (cancelled.get()) {
        return;
      }
      if (t != null) {
        Throwable c = t.getCause() != null ? t.getCause() : t;
        cancelled.set(true);
        listener.onError(c instanceof StaleSequenceException
            ? StorageException.expired(StorageException.WATCH_TOO_OLD)
            : StorageException.unavailable("the fleet's memory", String.valueOf(c.getMessage())));
        return;
      }
      List<BackendEvent> out = new ArrayList<>();
      long last = after;
      for (String s : rs) {
        BackendEvent e = parse(s);
        last = Math.max(last, e.revision());
        String k = e.kv().key();
        if (e.revision() > after && k.compareTo(from) >= 0 && k.compareTo(end) < 0) {
          out.add(e);
        }
      }
      if (!out.isEmpty()) {
        listener.onEvents(out);
      } else {
        listener.onProgress(last);
      }
      readFrom(rb, rs.getNextSequenceToReadFrom(), from, end, last, listener, cancelled);
    });
  }

  @Override
  public boolean healthy() {
    return hz.getLifecycleService().isRunning();
  }

  @Override
  public Future<Void> close() {
    return Future.succeededFuture();
  }
}
