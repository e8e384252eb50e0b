package io.mvproxy.node.cluster;

import io.mvproxy.node.config.NodeConfig;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * Joins the node's Hazelcast cluster (a clustered Vert.x), trying again while the cluster turns new members away
 * for a while. During a split-brain merge Hazelcast sets the cluster state {@code FROZEN}, and a member that tries
 * to join then fails its join check and is shut down ("Node failed to start!"): a transient condition, like a
 * kube-apiserver starting while etcd elects a leader, so the join is retried with back-off (1, 2, 4, then every
 * 5 s) until the budget is spent, each attempt with a fresh cluster manager. With {@code --cluster-secret-file} the
 * member is started here, through {@link FleetNodeContext} ({@link FleetClusterManager}), so that every member
 * connection passes the {@link FleetHandshake}.
 */
public final class ClusterJoin {
  private static final Logger LOG = Logger.getLogger(ClusterJoin.class.getName());
  private static final long MAX_BACKOFF_MS = 5_000;

  /**
   * A joined cluster.
   *
   * @param vertx   the clustered Vert.x
   * @param manager its Hazelcast cluster manager
   */
  public record Joined(Vertx vertx, HazelcastClusterManager manager) {
  }

  private ClusterJoin() {
  }

  /**
   * @param config  the node config (Hazelcast settings through {@link HazelcastConfigFactory})
   * @param options Vert.x options (event bus host)
   * @param budget  how long to keep trying, from the first attempt
   * @param onRetry told each failed attempt that will be retried (for logs and tests)
   * @return the joined cluster, or the last attempt's failure once the budget is spent
   */
  public static Future<Joined> join(NodeConfig config, VertxOptions options, Duration budget,
                                    Consumer<Throwable> onRetry) {
    Promise<Joined> done = Promise.promise();
    attempt(config, options, System.nanoTime() + budget.toNanos(), 1_000, onRetry, done);
    return done.future();
  }

  private static void attempt(NodeConfig config, VertxOptions options, long deadline, long backoffMs,
                              Consumer<Throwable> onRetry, Promise<Joined> done) {
    FleetHandshake handshake;
    try {
      handshake = HazelcastConfigFactory.handshake(config);
    } catch (IllegalArgumentException e) {
      done.fail(e);
      return;
    }
    long t0 = System.nanoTime();
    Future<HazelcastClusterManager> manager = handshake == null
        ? Future.succeededFuture(new HazelcastClusterManager(HazelcastConfigFactory.create(config, null)))
        : startMember(config, handshake);
    manager.compose(mgr -> {
      long t1 = System.nanoTime();
      return Vertx.builder().with(options).withClusterManager(mgr).buildClustered()
          .map(v -> {
            // the two halves of a join, for the start-up stages (README "Start-up")
            LOG.info("cluster join: Hazelcast member " + (t1 - t0) / 1_000_000 + " ms, Vert.x clustered event bus "
                + (System.nanoTime() - t1) / 1_000_000 + " ms");
            return new Joined(v, mgr);
          })
          .onFailure(e -> {
            if (mgr instanceof FleetClusterManager f) {
              new Thread(f::shutdownMember, "mvproxy-hazelcast-shutdown").start();
            }
          });
    }).onComplete(ar -> {
      if (ar.succeeded()) {
        done.complete(ar.result());
        return;
      }
      Throwable e = ar.cause();
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (!retryable(e) || left < backoffMs) {
        done.fail(e);
        return;
      }
      LOG.warning("could not join the cluster " + config.clusterName() + " (" + e.getMessage()
          + "); trying again in " + backoffMs + " ms");
      onRetry.accept(e);
      CompletableFuture.delayedExecutor(backoffMs, TimeUnit.MILLISECONDS).execute(() ->
          attempt(config, options, deadline, Math.min(MAX_BACKOFF_MS, backoffMs * 2), onRetry, done));
    });
  }

  /**
   * Starts a member that runs the fleet handshake on every connection, on a thread of its own (Hazelcast's start
   * blocks while it joins).
   */
  private static Future<HazelcastClusterManager> startMember(NodeConfig config, FleetHandshake handshake) {
    Promise<HazelcastClusterManager> p = Promise.promise();
    Thread t = new Thread(() -> {
      try {
        p.complete(FleetClusterManager.start(HazelcastConfigFactory.create(config, handshake), handshake));
      } catch (Throwable e) {
        p.fail(e);
      }
    }, "mvproxy-hazelcast-start");
    t.setDaemon(true);
    t.start();
    return p.future();
  }

  /**
   * @param e a failed join
   * @return true for Hazelcast refusing or aborting the member's start-up (join check failed, cluster state not
   *     accepting members); false for address-in-use and other configuration failures, which fail at once
   */
  static boolean retryable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.net.BindException) {
        return false;
      }
      String m = String.valueOf(t.getMessage());
      if (m.contains("Node failed to start") || m.contains("Cluster state") || m.contains("join")) {
        return true;
      }
    }
    return false;
  }
}
