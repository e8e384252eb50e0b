package io.mvproxy.builtin;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Re-runs an idempotent start-up step (storing the system namespaces, reconciling the default RBAC policy) until it
 * succeeds, with a doubling delay from 200 ms to 5 s, as kube-apiserver's post-start hooks retry their bootstrap
 * writes. A storage error while the fleet forms (Hazelcast partitions without owners, an etcd not yet reachable)
 * must not leave the node unready forever.
 */
final class StartRetry {
  private static final Logger LOG = Logger.getLogger(StartRetry.class.getName());
  private static final long FIRST_DELAY_MS = 200;
  private static final long MAX_DELAY_MS = 5_000;

  private StartRetry() {
  }

  /**
   * @param vertx timers for the retries
   * @param what  what the step does, for the log ("storing the system namespaces")
   * @param step  the step; each call starts a new attempt
   * @return completes when one attempt succeeded; never fails
   */
  static Future<Void> run(Vertx vertx, String what, Supplier<Future<?>> step) {
    Promise<Void> done = Promise.promise();
    attempt(vertx, what, step, done, FIRST_DELAY_MS);
    return done.future();
  }

  private static void attempt(Vertx vertx, String what, Supplier<Future<?>> step, Promise<Void> done, long delay) {
    Future<?> f;
    try {
      f = step.get();
    } catch (RuntimeException e) {
      f = Future.failedFuture(e);
    }
    f.onComplete(ar -> {
      if (ar.succeeded()) {
        done.tryComplete();
        return;
      }
      LOG.warning(what + " failed, retrying in " + delay + " ms: " + ar.cause());
      vertx.setTimer(delay, t -> attempt(vertx, what, step, done, Math.min(delay * 2, MAX_DELAY_MS)));
    });
  }
}
