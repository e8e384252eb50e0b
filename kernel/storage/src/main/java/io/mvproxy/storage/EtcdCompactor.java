package io.mvproxy.storage;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.logging.Logger;

/**
 * Fleet-wide etcd compaction exactly as kube-apiserver's {@code storage/etcd3/compact.go}: every interval each node
 * runs the txn "if version(compact_rev_key) == the version I last saw then put(compact_rev_key, my last revision)
 * else get(compact_rev_key)". Only the winner compacts, and it compacts to the revision it recorded one interval
 * earlier, so at least one interval of history survives; nothing is compacted on the first round. Coordination is
 * etcd's own txn, never a separate lock. {@code compact_rev_key} is that literal key, outside {@code --etcd-prefix}.
 */
final class EtcdCompactor {
  /** The key kube-apiserver coordinates compaction on. */
  static final String COMPACT_REV_KEY = "compact_rev_key";
  private static final Logger LOG = Logger.getLogger(EtcdCompactor.class.getName());

  private final Vertx vertx;
  private final EtcdBackend etcd;
  private final long timer;
  private long compactTime;
  private long rev;
  private boolean running;

  EtcdCompactor(Vertx vertx, EtcdBackend etcd, Duration interval) {
    this.vertx = vertx;
    this.etcd = etcd;
    this.timer = vertx.setPeriodic(interval.toMillis(), id -> round());
  }

  /** One round of compact.go's {@code compact(ctx, client, t, rev)}. */
  Future<Void> round() {
    if (running) {
      return Future.succeededFuture();
    }
    running = true;
    ByteSequence key = EtcdBackend.bs(COMPACT_REV_KEY);
    long t = compactTime;
    long r = rev;
    return etcd.call("compaction txn", 10_000, () -> etcd.client().getKVClient().txn()
        .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.version(t)))
        .Then(Op.put(key, EtcdBackend.bs(Long.toString(r)), PutOption.DEFAULT))
        .Else(Op.get(key, GetOption.DEFAULT)).commit()).compose(resp -> {
          long curRev = resp.getHeader().getRevision();
          if (!resp.isSucceeded()) {
            compactTime = resp.getGetResponses().get(0).getKvs().get(0).getVersion();
            rev = curRev;
            return Future.<Void>succeededFuture();
          }
          compactTime = t + 1;
          rev = curRev;
          if (r == 0) {
            return Future.<Void>succeededFuture();
          }
          return etcd.call("compact", 60_000, () -> etcd.client().getKVClient().compact(r))
              .onSuccess(c -> LOG.info("etcd: compacted rev (" + r + ")")).mapEmpty();
        })
        .onFailure(e -> LOG.warning("etcd: compact failed: " + e.getMessage()))
        .onComplete(ar -> running = false);
  }

  void stop() {
    vertx.cancelTimer(timer);
  }
}
