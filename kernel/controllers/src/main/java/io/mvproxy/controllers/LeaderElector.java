package io.mvproxy.controllers;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.logging.Logger;

/**
 * Leader election on a {@code coordination.k8s.io/v1} Lease, as client-go's
 * {@code tools/leaderelection/leaderelection.go} with {@code ReleaseOnCancel}: every retry period (jittered by 1.2
 * while a candidate) the Lease is read; absent -> created with this identity; held by another and changed within
 * its {@code leaseDurationSeconds} as observed on THIS node's clock -> wait; otherwise taken over
 * ({@code acquireTime} now, {@code leaseTransitions} + 1) by an update carrying the read {@code resourceVersion},
 * so of two candidates one gets 409 and waits. The leader renews {@code renewTime} every retry period; when no
 * renewal succeeded for the renew deadline it stops leading (client-go's process exits; here the node becomes a
 * candidate again). {@link #stop()} releases a held Lease ({@code holderIdentity} empty,
 * {@code leaseDurationSeconds} 1), so another node takes over within about one retry period. Runs on the Vert.x
 * context that called {@link #start()}; callbacks run there too.
 */
public final class LeaderElector {
  private static final Logger LOG = Logger.getLogger(LeaderElector.class.getName());
  /** client-go's JitterFactor for the acquire loop. */
  static final double JITTER = 1.2;

  /**
   * Timings and lock coordinates.
   *
   * @param namespace     the Lease's namespace ({@code kube-system})
   * @param name          the Lease's name
   * @param identity      holder identity (the server ID)
   * @param leaseDuration how long a non-renewed lease keeps others waiting (kube-controller-manager: 15 s)
   * @param renewDeadline how long the leader keeps trying to renew before giving up (10 s)
   * @param retryPeriod   time between attempts (2 s)
   */
  public record Config(String namespace, String name, String identity, Duration leaseDuration,
                       Duration renewDeadline, Duration retryPeriod) {
    /** kube-controller-manager's defaults (component-base {@code config/v1alpha1/defaults.go}). */
    public static Config kubeControllerManager(String namespace, String name, String identity) {
      return new Config(namespace, name, identity, Duration.ofSeconds(15), Duration.ofSeconds(10),
          Duration.ofSeconds(2));
    }
  }

  /** What the owner of the elector is told. */
  public interface Callbacks {
    /** This node now leads. */
    void startedLeading();

    /** This node stopped leading (renewal failed for the renew deadline, or {@link #stop()}). */
    void stoppedLeading();

    /** @param holder the holder seen in the Lease changed (possibly to this node) */
    default void newLeader(String holder) {
    }
  }

  private final Vertx vertx;
  private final ApiClient api;
  private final Config config;
  private final Callbacks callbacks;
  private final String path;
  private JsonObject observedSpec;
  private long observedNanos;
  private String observedRv;
  private String reportedLeader;
  private boolean leading;
  private long lastRenewNanos;
  private boolean running;
  private boolean attempt;
  private long timer = -1;

  /**
   * @param vertx     the node's Vert.x
   * @param api       the client, authenticated as {@code system:kube-controller-manager}
   * @param config    lock and timings
   * @param callbacks leadership changes
   */
  public LeaderElector(Vertx vertx, ApiClient api, Config config, Callbacks callbacks) {
    this.vertx = vertx;
    this.api = api;
    this.config = config;
    this.callbacks = callbacks;
    this.path = "/apis/coordination.k8s.io/v1/namespaces/" + config.namespace() + "/leases/" + config.name();
  }

  /** Starts campaigning (no-op when started). */
  public void start() {
    if (running) {
      return;
    }
    running = true;
    LOG.info("attempting to acquire leader lease " + config.namespace() + "/" + config.name() + "...");
    schedule(0);
  }

  /** @return true while this node holds the lease (as last renewed) */
  public boolean leading() {
    return leading;
  }

  /**
   * Stops campaigning; a held lease is released first (one update, then leadership ends either way).
   *
   * @return completes when released (never fails)
   */
  public Future<Void> stop() {
    running = false;
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
    if (!leading) {
      return Future.succeededFuture();
    }
    Promise<Void> done = Promise.promise();
    release(observedRv, 3).onComplete(ar -> {
      if (ar.succeeded() && ar.result().ok()) {
        LOG.info("released leader lease " + config.namespace() + "/" + config.name());
      } else {
        LOG.warning("failed to release lease " + config.namespace() + "/" + config.name() + ": "
            + (ar.succeeded() ? ar.result().message() : ar.cause()));
      }
      lose();
      done.complete();
    });
    return done.future();
  }

  /**
   * Writes the released record over the given resourceVersion; a conflict (a renewal that was in flight when
   * {@link #stop()} was called landed first) reads the Lease again and, while this node still holds it, retries.
   */
  private Future<ApiResponse> release(String rv, int attemptsLeft) {
    JsonObject spec = new JsonObject().put("holderIdentity", "").put("leaseDurationSeconds", 1)
        .put("acquireTime", MicroTime.micro(Instant.now())).put("renewTime", MicroTime.micro(Instant.now()))
        .put("leaseTransitions", observedSpec == null ? 0 : observedSpec.getInteger("leaseTransitions", 0));
    return api.update(path, lease(spec, rv)).compose(r -> {
      if (r.status() != 409 || attemptsLeft <= 1) {
        return Future.succeededFuture(r);
      }
      return api.get(path).compose(cur -> {
        JsonObject md = cur.body().getJsonObject("metadata", new JsonObject());
        String holder = cur.body().getJsonObject("spec", new JsonObject()).getString("holderIdentity", "");
        if (!cur.ok() || !config.identity().equals(holder)) {
          return Future.succeededFuture(r);
        }
        observedSpec = cur.body().getJsonObject("spec").copy();
        return release(md.getString("resourceVersion"), attemptsLeft - 1);
      });
    });
  }

  private void schedule(long delayMs) {
    if (!running) {
      return;
    }
    timer = vertx.setTimer(Math.max(1, delayMs), t -> {
      timer = -1;
      tick();
    });
  }

  private void tick() {
    if (!running || attempt) {
      return;
    }
    attempt = true;
    long retry = config.retryPeriod().toMillis();
    tryAcquireOrRenew().onComplete(ar -> {
      attempt = false;
      boolean ok = ar.succeeded() && ar.result();
      if (!running) {
        return;
      }
      if (ok) {
        lastRenewNanos = System.nanoTime();
        if (!leading) {
          leading = true;
          LOG.info("successfully acquired lease " + config.namespace() + "/" + config.name());
          callbacks.startedLeading();
        }
      } else if (leading && System.nanoTime() - lastRenewNanos > config.renewDeadline().toNanos()) {
        LOG.warning("failed to renew lease " + config.namespace() + "/" + config.name()
            + ": timed out waiting for the condition");
        lose();
      }
      schedule(leading ? retry : (long) (retry * (1 + ThreadLocalRandom.current().nextDouble() * JITTER)));
    });
  }

  private void lose() {
    if (leading) {
      leading = false;
      LOG.info("leader lease " + config.namespace() + "/" + config.name() + " lost by " + config.identity());
      callbacks.stoppedLeading();
    }
  }

  /** One attempt of client-go's {@code tryAcquireOrRenew}. @return true when this node holds the lease now */
  Future<Boolean> tryAcquireOrRenew() {
    Instant now = Instant.now();
    String nowText = MicroTime.micro(now);
    return api.get(path).compose(r -> {
      if (r.notFound()) {
        JsonObject spec = new JsonObject().put("holderIdentity", config.identity())
            .put("leaseDurationSeconds", (int) config.leaseDuration().toSeconds())
            .put("acquireTime", nowText).put("renewTime", nowText).put("leaseTransitions", 0);
        return api.create("/apis/coordination.k8s.io/v1/namespaces/" + config.namespace() + "/leases",
            lease(spec, null)).map(c -> observe(c, spec));
      }
      if (!r.ok()) {
        LOG.fine("error retrieving resource lock " + config.namespace() + "/" + config.name() + ": "
            + r.message());
        return Future.succeededFuture(false);
      }
      JsonObject spec = r.body().getJsonObject("spec", new JsonObject());
      observedRv = r.body().getJsonObject("metadata", new JsonObject()).getString("resourceVersion");
      if (!spec.equals(observedSpec)) {
        observedSpec = spec.copy();
        observedNanos = System.nanoTime();
      }
      String holder = spec.getString("holderIdentity", "");
      reportLeader(holder);
      boolean mine = config.identity().equals(holder);
      long heldFor = Duration.ofSeconds(spec.getInteger("leaseDurationSeconds", 0)).toNanos();
      if (!holder.isEmpty() && !mine && System.nanoTime() - observedNanos < heldFor) {
        return Future.succeededFuture(false);
      }
      int transitions = spec.getInteger("leaseTransitions", 0);
      JsonObject next = new JsonObject().put("holderIdentity", config.identity())
          .put("leaseDurationSeconds", (int) config.leaseDuration().toSeconds())
          .put("acquireTime", mine && spec.getString("acquireTime") != null ? spec.getString("acquireTime") : nowText)
          .put("renewTime", nowText).put("leaseTransitions", mine ? transitions : transitions + 1);
      return api.update(path, lease(next, observedRv)).map(u -> observe(u, next));
    });
  }

  private boolean observe(ApiResponse r, JsonObject spec) {
    if (!r.ok()) {
      LOG.fine("failed to write lease " + config.namespace() + "/" + config.name() + ": " + r.message());
      return false;
    }
    observedSpec = spec.copy();
    observedNanos = System.nanoTime();
    observedRv = r.body().getJsonObject("metadata", new JsonObject()).getString("resourceVersion");
    reportLeader(config.identity());
    return true;
  }

  private void reportLeader(String holder) {
    if (!holder.isEmpty() && !Objects.equals(holder, reportedLeader)) {
      reportedLeader = holder;
      if (!holder.equals(config.identity())) {
        LOG.info("new leader elected: " + holder);
      }
      callbacks.newLeader(holder);
    }
  }

  private JsonObject lease(JsonObject spec, String rv) {
    JsonObject md = new JsonObject().put("name", config.name()).put("namespace", config.namespace());
    if (rv != null) {
      md.put("resourceVersion", rv);
    }
    return new JsonObject().put("apiVersion", "coordination.k8s.io/v1").put("kind", "Lease").put("metadata", md)
        .put("spec", spec);
  }
}
