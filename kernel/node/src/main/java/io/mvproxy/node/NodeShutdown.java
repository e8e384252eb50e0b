package io.mvproxy.node;

import io.mvproxy.node.audit.AuditFilter;
import io.mvproxy.node.config.NodeConfig;
import io.mvproxy.node.ingress.IngressGroup;
import io.mvproxy.storage.NodeStorage;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.logging.Logger;

/**
 * A node's graceful departure, step by step, each step bounded in time so that one hanging step does not keep the
 * node from stopping (like kube-apiserver's {@code --shutdown-delay-duration} and
 * {@code --shutdown-send-retry-after} sequence): the controller manager's lease and, at the same time, the
 * membership record then the delay for peers; then the drain, the audit queue, the API sources, storage, the
 * cluster.
 */
final class NodeShutdown {
  /**
   * After the record is withdrawn, how long peers get to stop routing here before the server stops accepting, ms
   * (like kube-apiserver's --shutdown-delay-duration; membership changes propagate in well under a second).
   */
  static final long SHUTDOWN_DELAY_MS = 1000;
  private static final Logger LOG = Logger.getLogger(Node.class.getName());

  /**
   * Deployment IDs of the verticles, undeployed in reverse order on stop.
   *
   * @param plugins     the plugin verticle (closing the API sources)
   * @param membership  the membership verticle (withdrawing the record)
   * @param controllers the controller-manager verticle (releasing its lease)
   */
  record Deployments(String plugins, String membership, String controllers) {
  }

  private final Vertx vertx;
  private final NodeConfig config;
  private final NodeLifecycle lifecycle;
  private final Deployments deployments;
  private final IngressGroup ingress;
  private final AuditFilter audit;
  private final NodeStorage storage;

  /**
   * @param vertx       the node's Vert.x (closed last)
   * @param config      the node config (grace period, server ID)
   * @param lifecycle   readiness and requests in flight
   * @param deployments the verticles to undeploy
   * @param ingress     the HTTPS servers
   * @param audit       the audit filter, or null when auditing is off
   * @param storage     the node's storage
   */
  NodeShutdown(Vertx vertx, NodeConfig config, NodeLifecycle lifecycle, Deployments deployments,
               IngressGroup ingress, AuditFilter audit, NodeStorage storage) {
    this.vertx = vertx;
    this.config = config;
    this.lifecycle = lifecycle;
    this.deployments = deployments;
    this.ingress = ingress;
    this.audit = audit;
    this.storage = storage;
  }

  /**
   * Runs the steps once (a later call completes at once); see {@link Node#stop()}. The last line on stderr says how
   * long the stop took and each step ({@code stopped in 1274 ms (lease 3 ms, record 41 ms, delay 1001 ms, drain 2 ms,
   * sources 12 ms, storage 1 ms, cluster 190 ms)}).
   *
   * @return completes when stopped (never fails: a failed or timed-out step is logged and the next one runs)
   */
  Future<Void> run() {
    if (!lifecycle.beginShutdown()) {
      return Future.succeededFuture();
    }
    Duration grace = config.shutdownGracePeriod();
    long t0 = System.nanoTime();
    LOG.info("shutting down: leaving the fleet, draining " + lifecycle.inFlight() + " request(s) for up to "
        + grace.toSeconds() + " s");
    StringBuilder steps = new StringBuilder();
    // the lease is released while the record is withdrawn and peers get their delay: both only need the ingress,
    // which stops accepting once both are done (a leader's release took 0.1-0.8 s, which the delay used to follow)
    Future<Void> lease = step("release the controller manager's lease", "lease",
        vertx.undeploy(deployments.controllers()), 3000, steps);
    Future<Void> leave = step("leave the fleet", "record", vertx.undeploy(deployments.membership()), 3000, steps)
        .compose(v -> timed("delay", delay(Math.min(SHUTDOWN_DELAY_MS, grace.toMillis())), steps));
    return Future.join(lease, leave).<Void>transform(ar -> Future.succeededFuture()) // neither fails: steps log
        .compose(v -> {
          ingress.shutdown(grace).onFailure(e -> LOG.fine("server shutdown: " + e));
          return timed("drain", drained(System.currentTimeMillis() + grace.toMillis()), steps);
        })
        .compose(v -> {
          if (audit != null) {
            audit.close(); // the queued events are written (a few seconds at most)
          }
          return Future.<Void>succeededFuture();
        })
        .compose(v -> step("close API sources", "sources", vertx.undeploy(deployments.plugins()), 5000, steps))
        .compose(v -> step("close storage", "storage", storage.close(), 5000, steps))
        .compose(v -> step("leave the cluster", "cluster", vertx.close(), 10_000, steps))
        .onComplete(ar -> System.err.println("mvproxy: node " + config.serverId() + " stopped in "
            + (System.nanoTime() - t0) / 1_000_000 + " ms (" + steps + ")"));
  }

  /** Appends {@code label N ms} (the time from this call to {@code f}'s completion) to {@code steps}. */
  private static Future<Void> timed(String label, Future<Void> f, StringBuilder steps) {
    long t0 = System.nanoTime();
    return f.onComplete(ar -> {
      synchronized (steps) {
        steps.append(steps.length() == 0 ? "" : ", ").append(label).append(' ')
            .append((System.nanoTime() - t0) / 1_000_000).append(" ms");
      }
    });
  }

  /** As {@link #step(String, Future, long)}, its duration appended to {@code steps} as {@code label N ms}. */
  private Future<Void> step(String what, String label, Future<?> f, long timeoutMs, StringBuilder steps) {
    return timed(label, step(what, f, timeoutMs), steps);
  }

  /** Runs one shutdown step with a time limit; a failure or time-out is logged and shutdown goes on. */
  private Future<Void> step(String what, Future<?> f, long timeoutMs) {
    Promise<Void> p = Promise.promise();
    long timer = vertx.setTimer(timeoutMs, t -> {
      if (p.tryComplete()) {
        LOG.warning("shutdown step '" + what + "' did not finish within " + timeoutMs + " ms");
      }
    });
    f.onComplete(ar -> {
      vertx.cancelTimer(timer);
      if (ar.failed()) {
        LOG.warning("shutdown step '" + what + "' failed: " + ar.cause());
      }
      p.tryComplete();
    });
    return p.future();
  }

  private Future<Void> delay(long ms) {
    Promise<Void> p = Promise.promise();
    vertx.setTimer(Math.max(1, ms), t -> p.complete());
    return p.future();
  }

  private Future<Void> drained(long deadline) {
    if (lifecycle.inFlight() <= 0 || System.currentTimeMillis() >= deadline) {
      return Future.succeededFuture();
    }
    return delay(50).compose(v -> drained(deadline));
  }
}
