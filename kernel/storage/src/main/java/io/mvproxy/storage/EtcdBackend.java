package io.mvproxy.storage;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.common.exception.CompactedException;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchResponse;
import io.mvproxy.api.storage.StorageException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * The {@code etcd3} backend: a real etcd v3 cluster through jetcd ({@code io.etcd:jetcd-core}), as kube-apiserver's
 * {@code storage/etcd3/store.go} uses it. Reads are linearizable; create / update / delete are single txns comparing
 * the key's mod revision; watches ask for {@code prevKV} and progress notifications. Every call carries the
 * request deadline ({@code --request-timeout}, as upstream runs storage calls under the request's context) and 504
 * Timeout after it; calls do not wait for a connection: when no member can be reached they fail with 503
 * ServiceUnavailable after {@link #UNAVAILABLE_RETRY} of retries (etcd clientv3's unary retry budget, 100 x 25 ms),
 * never a hang. A periodic {@code get("health")} drives {@link #healthy()} (answered within
 * {@code --etcd-healthcheck-timeout}) and {@link #ready()} (within {@code --etcd-readycheck-timeout}), as
 * {@code storagebackend/factory/etcd3.go}'s health and readiness checks. Compaction runs in {@link EtcdCompactor}.
 */
public final class EtcdBackend implements Backend {
  private static final Logger LOG = Logger.getLogger(EtcdBackend.class.getName());
  /** Interval of the health probe, ms (kube-apiserver probes on demand; a node-side cache keeps /readyz cheap). */
  static final long HEALTH_INTERVAL_MS = 1000;
  /** How long a call retries while no etcd member is reachable (clientv3: 100 retries, 25 ms apart). */
  static final Duration UNAVAILABLE_RETRY = Duration.ofMillis(2500);

  private final Vertx vertx;
  private final Client client;
  private final KV kv;
  private final Watch watchClient;
  private final long timeoutMs;
  private final long healthTimeoutMs;
  private final long readyTimeoutMs;
  private final String endpoints;
  private final long healthTimer;
  private final EtcdCompactor compactor;
  private volatile boolean healthy;
  private volatile boolean ready;

  private EtcdBackend(Vertx vertx, Client client, StorageConfig cfg) {
    this.vertx = vertx;
    this.client = client;
    this.kv = client.getKVClient();
    this.watchClient = client.getWatchClient();
    this.timeoutMs = cfg.requestTimeout().toMillis();
    this.healthTimeoutMs = cfg.healthcheckTimeout().toMillis();
    this.readyTimeoutMs = cfg.readycheckTimeout().toMillis();
    this.endpoints = String.join(",", cfg.etcdServers());
    this.healthTimer = vertx.setPeriodic(0, HEALTH_INTERVAL_MS, id -> probe());
    this.compactor = cfg.compactionInterval().isZero() ? null
        : new EtcdCompactor(vertx, this, cfg.compactionInterval());
  }

  /**
   * Connects (lazily: the first call dials) to the etcd cluster of {@code cfg}.
   *
   * @param vertx the node's Vert.x (timers, contexts)
   * @param cfg   etcd3 settings
   * @return the backend
   * @throws IllegalArgumentException when the TLS files cannot be used
   */
  public static EtcdBackend connect(Vertx vertx, StorageConfig cfg) {
    ClientBuilder b = Client.builder().endpoints(cfg.etcdServers().toArray(new String[0]))
        .connectTimeout(Duration.ofSeconds(10)).keepaliveTime(Duration.ofSeconds(30))
        .keepaliveTimeout(Duration.ofSeconds(10)).waitForReady(false)
        .retryMaxDuration(cfg.requestTimeout().compareTo(UNAVAILABLE_RETRY) < 0 ? cfg.requestTimeout()
            : UNAVAILABLE_RETRY);
    if (cfg.caFile() != null || cfg.certFile() != null) {
      try {
        b.sslContext(ssl -> {
          if (cfg.caFile() != null) {
            ssl.trustManager(cfg.caFile().toFile());
          }
          if (cfg.certFile() != null && cfg.keyFile() != null) {
            ssl.keyManager(cfg.certFile().toFile(), cfg.keyFile().toFile());
          }
        });
      } catch (Exception e) {
        throw new IllegalArgumentException("cannot use the etcd TLS files: " + e.getMessage(), e);
      }
    }
    return new EtcdBackend(vertx, b.build(), cfg);
  }

  @Override
  public String name() {
    return StorageConfig.ETCD3;
  }

  /** @return the jetcd client (compaction) */
  Client client() {
    return client;
  }

  static ByteSequence bs(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  /** @return the bytes of a value: UTF-8 of JSON text, the bytes of an encrypted byte string ({@link Kv#value()}) */
  static ByteSequence bv(String s) {
    return ByteSequence.from(s, Kv.isEncrypted(s) ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
  }

  /** @return a value read: JSON text, or an encrypted value as a byte string ({@link Kv#value()}) */
  static String value(ByteSequence b) {
    return b.toString(b.startsWith(ENCRYPTED) ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
  }

  private static final ByteSequence ENCRYPTED = ByteSequence.from(Kv.ENCRYPTED);

  private static Kv kv(KeyValue k) {
    return new Kv(k.getKey().toString(StandardCharsets.UTF_8), value(k.getValue()),
        k.getModRevision(), k.getCreateRevision());
  }

  /** Runs one etcd call with the deadline, completing on the caller's context, errors mapped to Status codes. */
  <T> Future<T> call(String what, long deadlineMs, Supplier<CompletableFuture<T>> op) {
    Context ctx = vertx.getOrCreateContext();
    CompletableFuture<T> cf;
    try {
      cf = op.get().orTimeout(deadlineMs, TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      return Future.failedFuture(map(e, what, deadlineMs));
    }
    return Future.fromCompletionStage(cf, ctx).recover(t -> Future.failedFuture(map(t, what, deadlineMs)));
  }

  private <T> Future<T> call(String what, Supplier<CompletableFuture<T>> op) {
    return call(what, timeoutMs, op);
  }

  private StorageException map(Throwable t, String what, long deadlineMs) {
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof StorageException se) {
      return se;
    }
    if (t instanceof TimeoutException) {
      return StorageException.timeout(what + " (etcd " + endpoints + ")", deadlineMs);
    }
    String msg = String.valueOf(t.getMessage());
    if (t instanceof CompactedException || msg.contains("required revision has been compacted")) {
      return StorageException.expired(StorageException.LIST_TOO_OLD);
    }
    if (t instanceof EtcdException ee && ee.getErrorCode() == ErrorCode.DEADLINE_EXCEEDED) {
      return StorageException.timeout(what + " (etcd " + endpoints + ")", deadlineMs);
    }
    return StorageException.unavailable("etcd " + endpoints, msg);
  }

  @Override
  public Future<Kv> get(String resource, String key) {
    return call("get " + key, () -> kv.get(bs(key))).map(r -> r.getKvs().isEmpty() ? null : kv(r.getKvs().get(0)));
  }

  @Override
  public Future<Range> range(String resource, String from, String end, long revision, long limit) {
    GetOption.Builder o = GetOption.builder().withRange(bs(end));
    if (revision > 0) {
      o.withRevision(revision);
    }
    if (limit > 0) {
      o.withLimit(limit);
    }
    GetOption opt = o.build();
    return call("list " + from, () -> kv.get(bs(from), opt)).map(r -> {
      List<Kv> out = new ArrayList<>(r.getKvs().size());
      r.getKvs().forEach(k -> out.add(kv(k)));
      return new Range(out, r.getHeader().getRevision(), r.isMore(), r.getCount());
    }).recover(t -> {
      if (String.valueOf(t.getMessage()).contains("future revision")) {
        return currentRevision().compose(cur -> Future.failedFuture(
            StorageException.tooLargeResourceVersion(revision, cur)));
      }
      return Future.failedFuture(t);
    });
  }

  @Override
  public Future<long[]> count(String resource, String from, String end) {
    GetOption opt = GetOption.builder().withRange(bs(end)).withCountOnly(true).build();
    return call("count " + from, () -> kv.get(bs(from), opt))
        .map(r -> new long[] {r.getCount(), r.getHeader().getRevision()});
  }

  private static Kv current(TxnResponse r) {
    if (r.getGetResponses().isEmpty()) {
      return null;
    }
    GetResponse g = r.getGetResponses().get(0);
    return g.getKvs().isEmpty() ? null : kv(g.getKvs().get(0));
  }

  @Override
  public Future<TxnResult> create(String resource, String key, String value) {
    ByteSequence k = bs(key);
    return call("create " + key, () -> kv.txn().If(new Cmp(k, Cmp.Op.EQUAL, CmpTarget.modRevision(0)))
        .Then(Op.put(k, bv(value), PutOption.DEFAULT)).Else(Op.get(k, GetOption.DEFAULT)).commit())
        .map(r -> new TxnResult(r.isSucceeded(), r.getHeader().getRevision(), r.isSucceeded() ? null : current(r)));
  }

  @Override
  public Future<TxnResult> update(String resource, String key, long modRevision, String value) {
    ByteSequence k = bs(key);
    return call("update " + key, () -> kv.txn().If(new Cmp(k, Cmp.Op.EQUAL, CmpTarget.modRevision(modRevision)))
        .Then(Op.put(k, bv(value), PutOption.DEFAULT)).Else(Op.get(k, GetOption.DEFAULT)).commit())
        .map(r -> new TxnResult(r.isSucceeded(), r.getHeader().getRevision(), r.isSucceeded() ? null : current(r)));
  }

  @Override
  public Future<TxnResult> delete(String resource, String key, long modRevision) {
    ByteSequence k = bs(key);
    return call("delete " + key, () -> kv.txn().If(new Cmp(k, Cmp.Op.EQUAL, CmpTarget.modRevision(modRevision)))
        .Then(Op.delete(k, DeleteOption.builder().withPrevKV(true).build())).Else(Op.get(k, GetOption.DEFAULT))
        .commit())
        .map(r -> {
          Kv prev = null;
          if (r.isSucceeded() && !r.getDeleteResponses().isEmpty()
              && !r.getDeleteResponses().get(0).getPrevKvs().isEmpty()) {
            prev = kv(r.getDeleteResponses().get(0).getPrevKvs().get(0));
          }
          return new TxnResult(r.isSucceeded(), r.getHeader().getRevision(), r.isSucceeded() ? prev : current(r));
        });
  }

  @Override
  public Future<Long> currentRevision() {
    return call("read the current revision", () -> kv.get(bs("compact_rev_key"), GetOption.builder()
        .withCountOnly(true).build())).map(r -> r.getHeader().getRevision());
  }

  @Override
  public BackendWatch watch(String resource, String from, String end, long afterRevision,
                           BackendWatch.Listener listener) {
    WatchOption opt = WatchOption.builder().withRange(bs(end)).withRevision(afterRevision + 1).withPrevKV(true)
        .withProgressNotify(true).build();
    Watch.Watcher w = watchClient.watch(bs(from), opt, Watch.listener((WatchResponse r) -> {
      if (r.isProgressNotify()) {
        listener.onProgress(r.getHeader().getRevision());
        return;
      }
      List<BackendEvent> out = new ArrayList<>(r.getEvents().size());
      for (io.etcd.jetcd.watch.WatchEvent e : r.getEvents()) {
        Kv now = kv(e.getKeyValue());
        Kv prev = e.getPrevKV() == null || e.getPrevKV().getKey().isEmpty() ? null : kv(e.getPrevKV());
        out.add(new BackendEvent(e.getEventType() == io.etcd.jetcd.watch.WatchEvent.EventType.DELETE, now, prev,
            now.modRevision()));
      }
      listener.onEvents(out);
    }, t -> listener.onError(t instanceof CompactedException
        ? StorageException.expired(StorageException.WATCH_TOO_OLD)
        : StorageException.unavailable("etcd " + endpoints, String.valueOf(t.getMessage())))));
    return w::close;
  }

  private void probe() {
    long t0 = System.nanoTime();
    call("health check", Math.max(healthTimeoutMs, readyTimeoutMs), () -> kv.get(bs("health"))).onComplete(ar -> {
      long ms = (System.nanoTime() - t0) / 1_000_000;
      boolean h = ar.succeeded() && ms <= healthTimeoutMs;
      if (healthy != h) {
        LOG.info("etcd " + endpoints + (h ? " is reachable"
            : " is not reachable: " + (ar.succeeded() ? "answered in " + ms + " ms" : ar.cause())));
      }
      healthy = h;
      ready = ar.succeeded() && ms <= readyTimeoutMs;
    });
  }

  /** @return true when the last probe was answered within {@code --etcd-healthcheck-timeout} ({@code /livez/etcd}) */
  @Override
  public boolean healthy() {
    return healthy;
  }

  /**
   * @return true when the last probe was answered within {@code --etcd-readycheck-timeout}
   *     ({@code /readyz/etcd-readiness})
   */
  @Override
  public boolean ready() {
    return ready;
  }

  @Override
  public Future<Void> close() {
    vertx.cancelTimer(healthTimer);
    if (compactor != null) {
      compactor.stop();
    }
    return vertx.executeBlocking(() -> {
      client.close();
      return null;
    }, false);
  }
}
