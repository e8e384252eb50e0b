package io.mvproxy.controllers;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * Deletes expired apiserver identity Leases, as kube-apiserver's {@code start-kube-apiserver-identity-lease-garbage-
 * collector} ({@code pkg/controlplane/controller/apiserverleasegc/gc_controller.go}): every period, starting at once,
 * the Leases of the namespace carrying the identity label selector are listed; each {@link #expired} one is read
 * again and, still expired, deleted (a 404 means another server's collector was first). Every server runs one. Runs
 * on the Vert.x context that called {@link #start()}.
 */
public final class IdentityLeaseGc {
  private static final Logger LOG = Logger.getLogger(IdentityLeaseGc.class.getName());

  private final Vertx vertx;
  private final ApiClient api;
  private final Duration period;
  private final String collection;
  private final String selector;
  private boolean running;
  private long timer = -1;

  /**
   * @param vertx         the node's Vert.x
   * @param api           a client allowed to list, read and delete Leases in the namespace
   * @param period        time between two collections ({@code --identity-lease-duration-seconds})
   * @param namespace     the Leases' namespace ({@code kube-system})
   * @param labelSelector which Leases are identity Leases ({@code apiserver.kubernetes.io/identity=kube-apiserver})
   */
  public IdentityLeaseGc(Vertx vertx, ApiClient api, Duration period, String namespace, String labelSelector) {
    this.vertx = vertx;
    this.api = api;
    this.period = period;
    this.collection = "/apis/coordination.k8s.io/v1/namespaces/" + namespace + "/leases";
    this.selector = labelSelector;
  }

  /** Starts collecting: once now, then every period (no-op when started). */
  public void start() {
    if (running) {
      return;
    }
    running = true;
    LOG.info("Starting apiserver lease garbage collector");
    schedule(0);
  }

  /** Stops collecting. */
  public void stop() {
    running = false;
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
  }

  private void schedule(long delayMs) {
    if (!running) {
      return;
    }
    timer = vertx.setTimer(Math.max(1, delayMs), t -> {
      timer = -1;
      collect().onComplete(ar -> schedule(period.toMillis()));
    });
  }

  /**
   * One collection.
   *
   * @return the names of the Leases deleted (never fails: errors are logged)
   */
  public Future<List<String>> collect() {
    List<String> deleted = new ArrayList<>();
    return api.get(collection + "?labelSelector=" + URLEncoder.encode(selector, StandardCharsets.UTF_8))
        .compose(list -> {
          if (!list.ok()) {
            LOG.warning("Error while listing apiserver leases: " + list.message());
            return Future.succeededFuture(deleted);
          }
          Future<Void> chain = Future.succeededFuture();
          for (Object o : list.items()) {
            if (o instanceof JsonObject lease && expired(lease, Instant.now())) {
              String name = lease.getJsonObject("metadata", new JsonObject()).getString("name", "");
              chain = chain.compose(v -> collectOne(name, deleted));
            }
          }
          return chain.map(deleted);
        }).recover(e -> {
          LOG.warning("apiserver lease garbage collection failed: " + e);
          return Future.succeededFuture(deleted);
        });
  }

  /** Reads the Lease again and deletes it when it is still expired. */
  private Future<Void> collectOne(String name, List<String> deleted) {
    String path = collection + "/" + name;
    return api.get(path).compose(r -> {
      if (r.notFound()) {
        LOG.fine("cannot find apiserver lease " + name + ": collected by another server");
        return Future.succeededFuture();
      }
      if (!r.ok()) {
        LOG.warning("Error getting lease " + name + ": " + r.message());
        return Future.succeededFuture();
      }
      if (!expired(r.body(), Instant.now())) {
        return Future.succeededFuture();
      }
      return api.delete(path, null).map(d -> {
        if (d.ok()) {
          deleted.add(name);
          LOG.info("deleted expired apiserver identity lease " + name + " (holder "
              + r.body().getJsonObject("spec", new JsonObject()).getString("holderIdentity", "") + ")");
        } else if (!d.notFound()) {
          LOG.warning("Error deleting lease " + name + ": " + d.message());
        }
        return null;
      });
    });
  }

  /**
   * Upstream's {@code isLeaseExpired}: no {@code renewTime}, no {@code leaseDurationSeconds}, or the renewal plus
   * the duration is before {@code now}. A {@code renewTime} that does not parse counts as absent.
   *
   * @param lease a Lease
   * @param now   the current time
   * @return true when the Lease is expired (or invalid)
   */
  public static boolean expired(JsonObject lease, Instant now) {
    JsonObject spec = lease.getJsonObject("spec", new JsonObject());
    Object renew = spec.getValue("renewTime");
    Object duration = spec.getValue("leaseDurationSeconds");
    if (!(renew instanceof String text) || !(duration instanceof Number seconds)) {
      return true;
    }
    try {
      return Instant.parse(text).plusSeconds(seconds.longValue()).isBefore(now);
    } catch (DateTimeParseException e) {
      return true;
    }
  }
}
