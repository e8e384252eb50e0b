package io.mvproxy.controllers;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.logging.Logger;

/**
 * The service account controller ({@code pkg/controller/serviceaccount/serviceaccounts_controller.go}): every
 * {@code Active} namespace has a ServiceAccount named {@code default}; it is created when missing (also after it was
 * deleted), never in a {@code Terminating} namespace, and an {@code AlreadyExists} answer is success. Reads as
 * the controller manager's shared informers do, as {@code system:kube-controller-manager} (list on every resource),
 * polling namespaces and {@code default} ServiceAccounts every period (the stand-in for those informers); writes as
 * {@code system:serviceaccount:kube-system:service-account-controller} (bootstrap role
 * {@code system:controller:service-account-controller}: create serviceaccounts, nothing else).
 */
public final class ServiceAccountController {
  /** The service account every namespace gets ({@code serviceaccounts_controller.go DefaultServiceAccountsControllerOptions}). */
  public static final String DEFAULT = "default";
  private static final Logger LOG = Logger.getLogger(ServiceAccountController.class.getName());

  private final Vertx vertx;
  private final ApiClient informers;
  private final ApiClient api;
  private final Duration period;
  private boolean running;
  private boolean syncing;
  private long timer = -1;

  /**
   * @param vertx     the node's Vert.x
   * @param informers the client lists are made with, authenticated as {@code system:kube-controller-manager}
   * @param api       the client writes are made with, authenticated as the service-account-controller service
   *                  account
   * @param period    time between passes
   */
  public ServiceAccountController(Vertx vertx, ApiClient informers, ApiClient api, Duration period) {
    this.vertx = vertx;
    this.informers = informers;
    this.api = api;
    this.period = period;
  }

  /** Starts (on the caller's context). */
  public void start() {
    running = true;
    schedule(1);
  }

  /** Stops after the pass in flight. */
  public void stop() {
    running = false;
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
  }

  private void schedule(long delayMs) {
    if (running) {
      timer = vertx.setTimer(Math.max(1, delayMs), t -> {
        if (!syncing) {
          syncing = true;
          sync().onComplete(ar -> {
            syncing = false;
            schedule(period.toMillis());
          });
        }
      });
    }
  }

  /**
   * One pass: lists namespaces and the {@code default} ServiceAccounts and creates the missing ones.
   *
   * @return completes when the pass is done (never fails; errors are retried next pass)
   */
  Future<Void> sync() {
    return informers.get("/api/v1/namespaces").compose(nss -> !nss.ok() ? Future.succeededFuture()
        : informers.get("/api/v1/serviceaccounts?fieldSelector=metadata.name%3D" + DEFAULT).compose(sas -> {
          if (!sas.ok()) {
            return Future.succeededFuture();
          }
          Set<String> have = new HashSet<>();
          sas.items().forEach(o -> have.add(((JsonObject) o).getJsonObject("metadata").getString("namespace")));
          List<Future<?>> creates = new ArrayList<>();
          for (String ns : missing(nss.items(), have)) {
            creates.add(api.create("/api/v1/namespaces/" + ns + "/serviceaccounts", new JsonObject()
                .put("apiVersion", "v1").put("kind", "ServiceAccount")
                .put("metadata", new JsonObject().put("name", DEFAULT))).onSuccess(r -> {
                  if (!r.ok() && r.status() != 409) {
                    LOG.warning("creating the default ServiceAccount in " + ns + ": " + r.message());
                  }
                }));
          }
          return Future.join(creates).mapEmpty();
        })).<Void>mapEmpty().otherwiseEmpty();
  }

  /**
   * @param namespaces Namespace objects
   * @param have       namespaces that already have the {@code default} ServiceAccount
   * @return the Active namespaces without it (upstream skips namespaces whose phase is not Active)
   */
  static List<String> missing(io.vertx.core.json.JsonArray namespaces, Set<String> have) {
    List<String> out = new ArrayList<>();
    for (Object o : namespaces) {
      JsonObject ns = (JsonObject) o;
      JsonObject md = ns.getJsonObject("metadata", new JsonObject());
      String phase = ns.getJsonObject("status", new JsonObject()).getString("phase", "Active");
      if ("Active".equals(phase) && md.getValue("deletionTimestamp") == null && !have.contains(md.getString("name"))) {
        out.add(md.getString("name"));
      }
    }
    return out;
  }
}
