package io.mvproxy.controllers;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.logging.Logger;

/**
 * Keeps this server's identity {@code coordination.k8s.io/v1} Lease alive, as component-helpers'
 * {@code apimachinery/lease/controller.go} that kube-apiserver runs in its post-start hook
 * {@code start-kube-apiserver-identity-lease-controller} ({@code pkg/controlplane/apiserver/server.go}): every renew
 * interval (jittered by up to {@link #JITTER}) the Lease is updated with {@code renewTime} now, based on the
 * version this controller wrote last (no read); when that fails (conflict, deleted by the garbage collector, storage
 * down) the Lease is read, created when absent, and updated, the read retried with back-off from
 * {@link #INITIAL_BACKOFF} doubling to {@link #MAX_BACKOFF}. An update is retried at most {@link #MAX_UPDATE_RETRIES}
 * times in a row, a conflict first reading the Lease again. Every write asserts the labels and annotations of
 * {@link Config} (upstream's {@code labelAPIServerHeartbeatFunc}); here also {@code holderIdentity} and
 * {@code leaseDurationSeconds}, so a restarted node with other flags shows them (upstream keeps a found Lease's
 * values). Runs on the Vert.x context that called {@link #start()}.
 */
public final class IdentityLeaseController {
  private static final Logger LOG = Logger.getLogger(IdentityLeaseController.class.getName());
  /** Immediate successive update attempts before waiting for the next interval (upstream's maxUpdateRetries). */
  static final int MAX_UPDATE_RETRIES = 5;
  /** First wait after a failed read or create of the Lease (upstream starts at 100 ms and doubles first). */
  static final Duration INITIAL_BACKOFF = Duration.ofMillis(200);
  /** Longest wait between two reads of a Lease that could not be ensured (upstream's maxBackoff). */
  static final Duration MAX_BACKOFF = Duration.ofSeconds(7);
  /** Jitter factor of the renew interval (upstream's {@code wait.JitterUntil(..., 0.04, ...)}). */
  static final double JITTER = 0.04;

  /**
   * The Lease and its timings.
   *
   * @param namespace            the Lease's namespace ({@code kube-system})
   * @param name                 the Lease's name (the apiserver identity, {@code apiserver-<hash>})
   * @param holderIdentity       {@code spec.holderIdentity}
   * @param leaseDurationSeconds {@code spec.leaseDurationSeconds} ({@code --identity-lease-duration-seconds})
   * @param renewInterval        time between renewals ({@code --identity-lease-renew-interval-seconds})
   * @param labels               labels set on every write
   * @param annotations          annotations set on every write
   */
  public record Config(String namespace, String name, String holderIdentity, int leaseDurationSeconds,
                       Duration renewInterval, Map<String, String> labels, Map<String, String> annotations) {
    /** Copies the maps. */
    public Config {
      labels = Map.copyOf(labels);
      annotations = Map.copyOf(annotations);
    }
  }

  private final Vertx vertx;
  private final ApiClient api;
  private final Config config;
  private final String collection;
  private final String path;
  private JsonObject latest;
  private boolean running;
  private long timer = -1;

  /**
   * @param vertx  the node's Vert.x
   * @param api    a client with write access to Leases in the namespace (the node's loopback identity)
   * @param config the Lease and its timings
   */
  public IdentityLeaseController(Vertx vertx, ApiClient api, Config config) {
    this.vertx = vertx;
    this.api = api;
    this.config = config;
    this.collection = "/apis/coordination.k8s.io/v1/namespaces/" + config.namespace() + "/leases";
    this.path = collection + "/" + config.name();
  }

  /** Starts renewing at once (no-op when started). */
  public void start() {
    if (running) {
      return;
    }
    running = true;
    LOG.info("identity lease controller: keeping Lease " + config.namespace() + "/" + config.name() + " (holder "
        + config.holderIdentity() + ", " + config.leaseDurationSeconds() + " s, renewed every "
        + config.renewInterval().toSeconds() + " s)");
    schedule(0);
  }

  /** Stops renewing; the Lease stays (the garbage collector deletes it once expired, as upstream). */
  public void stop() {
    running = false;
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
  }

  /** @return the Lease as last written by this controller, or null before the first write */
  public JsonObject latest() {
    return latest == null ? null : latest.copy();
  }

  private void schedule(long delayMs) {
    if (!running) {
      return;
    }
    timer = vertx.setTimer(Math.max(1, delayMs), t -> {
      timer = -1;
      sync().onComplete(ar -> {
        long interval = config.renewInterval().toMillis();
        schedule(interval + (long) (interval * JITTER * ThreadLocalRandom.current().nextDouble()));
      });
    });
  }

  /** One round of upstream's {@code sync}. @return completes when done (never fails) */
  Future<Void> sync() {
    Future<Boolean> optimistic = latest == null ? Future.succeededFuture(false) : retryUpdate(latest, 0);
    return optimistic.compose(ok -> {
      if (ok || !running) {
        return Future.succeededFuture();
      }
      if (latest != null) {
        LOG.info("failed to update lease using latest lease, fallback to ensure lease");
      }
      return backoffEnsure(INITIAL_BACKOFF.toMillis() / 2).compose(e -> {
        if (e == null) {
          return Future.succeededFuture();
        }
        latest = e.lease();
        return e.created() ? Future.succeededFuture() : retryUpdate(e.lease(), 0).<Void>map(updated -> {
          if (!updated) {
            LOG.warning("failed " + MAX_UPDATE_RETRIES + " attempts to update lease " + path + ", will retry after "
                + config.renewInterval().toSeconds() + "s");
          }
          return null;
        });
      });
    }).recover(e -> {
      LOG.warning("identity lease " + path + ": " + e);
      return Future.succeededFuture();
    });
  }

  /** A Lease read or created. */
  private record Ensured(JsonObject lease, boolean created) {
  }

  /** Reads the Lease, creating it when absent, until that succeeds or the controller stops (then null). */
  private Future<Ensured> backoffEnsure(long lastSleepMs) {
    if (!running) {
      return Future.succeededFuture(null);
    }
    return ensure().compose(e -> {
      if (e != null) {
        return Future.succeededFuture(e);
      }
      long sleep = Math.min(2 * lastSleepMs, MAX_BACKOFF.toMillis());
      Promise<Ensured> p = Promise.promise();
      LOG.warning("failed to ensure lease " + path + " exists, will retry in " + sleep + " ms");
      vertx.setTimer(Math.max(1, sleep), t -> backoffEnsure(sleep).onComplete(p));
      return p.future();
    });
  }

  /** @return the Lease read, or created when absent; null when either failed */
  private Future<Ensured> ensure() {
    return api.get(path).compose(r -> {
      if (r.notFound()) {
        return api.create(collection, lease(null)).map(c -> {
          if (!c.ok()) {
            LOG.fine("creating lease " + path + " failed: " + c.message());
            return null;
          }
          return new Ensured(c.body(), true);
        });
      }
      if (!r.ok()) {
        LOG.fine("reading lease " + path + " failed: " + r.message());
        return Future.succeededFuture(null);
      }
      return Future.succeededFuture(new Ensured(r.body(), false));
    });
  }

  /** Upstream's {@code retryUpdateLease}. @return true when an update succeeded */
  private Future<Boolean> retryUpdate(JsonObject base, int attempt) {
    if (attempt >= MAX_UPDATE_RETRIES || !running) {
      return Future.succeededFuture(false);
    }
    return api.update(path, lease(base)).compose(r -> {
      if (r.ok()) {
        latest = r.body();
        return Future.succeededFuture(true);
      }
      LOG.fine("failed to update lease " + path + ": " + r.message());
      if (r.notFound()) {
        return Future.succeededFuture(false);  // deleted (expired and collected): ensure creates it again
      }
      if (r.status() == 409) {
        return backoffEnsure(INITIAL_BACKOFF.toMillis() / 2).compose(e -> e == null ? Future.succeededFuture(false)
            : retryUpdate(e.lease(), attempt + 1));
      }
      return retryUpdate(base, attempt + 1);
    });
  }

  /**
   * Upstream's {@code newLease}: a new Lease (base null) or a copy of base, with {@code renewTime} now and the
   * asserted fields.
   */
  JsonObject lease(JsonObject base) {
    JsonObject lease = base == null ? new JsonObject().put("apiVersion", "coordination.k8s.io/v1")
        .put("kind", "Lease").put("metadata", new JsonObject().put("name", config.name())
            .put("namespace", config.namespace())).put("spec", new JsonObject()) : base.copy();
    JsonObject md = lease.getJsonObject("metadata");
    JsonObject labels = md.getJsonObject("labels", new JsonObject());
    config.labels().forEach(labels::put);
    md.put("labels", labels);
    if (!config.annotations().isEmpty()) {
      JsonObject annotations = md.getJsonObject("annotations", new JsonObject());
      config.annotations().forEach(annotations::put);
      md.put("annotations", annotations);
    }
    lease.getJsonObject("spec").put("holderIdentity", config.holderIdentity())
        .put("leaseDurationSeconds", config.leaseDurationSeconds())
        .put("renewTime", MicroTime.micro(Instant.now()));
    return lease;
  }
}
