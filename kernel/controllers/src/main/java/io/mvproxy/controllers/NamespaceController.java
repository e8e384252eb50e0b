package io.mvproxy.controllers;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;

/**
 * The namespace controller ({@code pkg/controller/namespace/namespace_controller.go} and
 * {@code deletion/namespaced_resources_deleter.go}): a namespace with {@code deletionTimestamp} is turned
 * {@code Terminating}, emptied of every namespaced resource the fleet's discovery lists (deletecollection, else
 * list and delete each, {@code propagationPolicy: Background}; resources only a peer serves go through the peer
 * proxy), its five conditions written through {@code status}, and finalized ({@code PUT .../finalize} without the
 * {@code kubernetes} finalizer) once nothing remains and nothing failed. A group-version that cannot be discovered
 * ({@code Stale}: only a departed node served it) or answers 503 is an error, never "empty": the namespace waits,
 * its conditions name the group-version, and the pass is retried (exponential back-off 5 ms..60 s as upstream, and
 * at once when the fleet's discovery changes). Only answers 404/405 to deletecollection and list mean "not
 * supported", as upstream (PR #93790) — which the fleet's routing never gives for a resource it lists.
 */
public final class NamespaceController {
  /** The finalizer this controller owns. */
  public static final String FINALIZER = "kubernetes";
  /** Requeue estimate when remaining items carry finalizers, seconds ({@code finalizerEstimateSeconds}). */
  static final long FINALIZER_ESTIMATE_S = 15;
  private static final Logger LOG = Logger.getLogger(NamespaceController.class.getName());
  private static final Backoff BACKOFF = new Backoff(Duration.ofMillis(5), Duration.ofSeconds(60));

  /** One pass's verdict. */
  public sealed interface Outcome {
    /** Nothing (more) to do for the namespace. */
    record Done() implements Outcome {
    }

    /** Content remains (with finalizers): look again later. @param seconds upstream's estimate */
    record Requeue(long seconds) implements Outcome {
    }

    /** The pass failed: retry with back-off. @param error {@code deletion of namespace ... failed: ...} */
    record Failed(String error) implements Outcome {
    }
  }

  private final Vertx vertx;
  private final ApiClient api;
  private final FleetDiscovery discovery;
  private final Duration poll;
  private final Map<String, Long> due = new HashMap<>();
  private final Map<String, Integer> failures = new HashMap<>();
  private final java.util.Set<String> inFlight = new java.util.HashSet<>();
  private String lastDiscovery;
  private boolean running;
  private boolean polling;
  private long timer = -1;
  private boolean kicked;
  private final Reflector informer;

  /**
   * @param vertx     the node's Vert.x
   * @param api       the client, authenticated as {@code system:serviceaccount:kube-system:namespace-controller}
   * @param discovery the node's discovery through the API
   * @param poll      how often the work queue is looked at while namespaces are terminating (due retries,
   *                  discovery changes); the namespaces themselves come from a list and watch ({@link Reflector},
   *                  resync {@link #RESYNC})
   */
  public NamespaceController(Vertx vertx, ApiClient api, FleetDiscovery discovery, Duration poll) {
    this.vertx = vertx;
    this.api = api;
    this.discovery = discovery;
    this.poll = poll;
    this.informer = new Reflector(vertx, api, "/api/v1/namespaces", RESYNC, this::onChange);
  }

  /** The namespace informer's resync period (kube-controller-manager's {@code --namespace-sync-period}). */
  public static final Duration RESYNC = Duration.ofMinutes(5);

  /** Starts (on the caller's context): the namespace list and watch, and the work loop. */
  public void start() {
    running = true;
    informer.start();
    schedule();
  }

  /** Stops after the passes in flight. */
  public void stop() {
    running = false;
    informer.stop();
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
  }

  /** A namespace the watch (or a list) shows with a deletionTimestamp is looked at now, not at the next tick. */
  private void onChange(Reflector.Change c) {
    if (!running || "DELETED".equals(c.type())
        || c.object().getJsonObject("metadata", new JsonObject()).getValue("deletionTimestamp") == null) {
      return;
    }
    if (polling) {
      kicked = true;
      return;
    }
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
    timer = vertx.setTimer(1, t -> pollOnce());
  }

  private void schedule() {
    if (running) {
      timer = vertx.setTimer(Math.max(1, poll.toMillis()), t -> pollOnce());
    }
  }

  private void pollOnce() {
    if (!running || polling) {
      schedule();
      return;
    }
    polling = true;
    kicked = false;
    Future<Void> f = Future.<Void>succeededFuture().compose(x -> {
      if (!informer.synced()) {
        return Future.succeededFuture();
      }
      List<String> terminating = new ArrayList<>();
      for (JsonObject o : informer.store().values()) {
        JsonObject md = o.getJsonObject("metadata", new JsonObject());
        if (md.getValue("deletionTimestamp") != null) {
          terminating.add(md.getString("name"));
        }
      }
      due.keySet().retainAll(terminating);
      failures.keySet().retainAll(terminating);
      if (terminating.isEmpty()) {
        return Future.succeededFuture();
      }
      return discovery.discover().map(d -> {
        String fp = d.failed().keySet() + "|" + d.resources().size();
        boolean changed = lastDiscovery != null && !fp.equals(lastDiscovery);
        lastDiscovery = fp;
        long now = System.currentTimeMillis();
        for (String ns : terminating) {
          if (changed) {
            due.put(ns, now);
          }
          if (due.getOrDefault(ns, 0L) <= now && inFlight.add(ns)) {
            sync(ns).onComplete(ar -> {
              inFlight.remove(ns);
              Outcome out = ar.succeeded() ? ar.result() : new Outcome.Failed(String.valueOf(ar.cause()));
              requeue(ns, out);
            });
          }
        }
        return null;
      });
    });
    f.onComplete(ar -> {
      polling = false;
      if (kicked && running) {
        timer = vertx.setTimer(1, t -> pollOnce());
      } else {
        schedule();
      }
    });
  }

  private void requeue(String ns, Outcome out) {
    long now = System.currentTimeMillis();
    if (out instanceof Outcome.Failed fail) {
      int n = failures.merge(ns, 1, Integer::sum);
      LOG.warning(fail.error());
      due.put(ns, now + BACKOFF.delayMs(n - 1));
    } else if (out instanceof Outcome.Requeue r) {
      failures.remove(ns);
      due.put(ns, now + (r.seconds() / 2 + 1) * 1000);
    } else {
      failures.remove(ns);
      due.remove(ns);
    }
  }

  /**
   * One pass of upstream's {@code namespacedResourcesDeleter.Delete} for a namespace.
   *
   * @param ns the namespace
   * @return the outcome (never a failed future)
   */
  public Future<Outcome> sync(String ns) {
    String path = "/api/v1/namespaces/" + ns;
    return api.get(path).compose(r -> {
      if (r.notFound()) {
        return done();
      }
      if (!r.ok()) {
        return failed(ns, r.message());
      }
      JsonObject nsObj = r.body();
      JsonObject md = nsObj.getJsonObject("metadata", new JsonObject());
      if (md.getValue("deletionTimestamp") == null) {
        return done();
      }
      String uid = md.getString("uid");
      Future<JsonObject> terminating = "Terminating".equals(phase(nsObj)) ? Future.succeededFuture(nsObj)
          : updateStatus(nsObj, s -> s.put("phase", "Terminating"));
      return terminating.compose(cur -> {
        if (cur == null) {
          return done();
        }
        if (!finalizers(cur).contains(FINALIZER)) {
          return done();
        }
        return deleteAllContent(cur).compose(res -> {
          if (res.error() != null) {
            return failed(ns, res.error());
          }
          if (res.estimateSeconds() > 0) {
            return Future.succeededFuture(new Outcome.Requeue(res.estimateSeconds()));
          }
          return finalizeNamespace(ns, uid);
        });
      });
    }).otherwise(t -> new Outcome.Failed("deletion of namespace " + ns + " failed: " + t));
  }

  private static Future<Outcome> done() {
    return Future.succeededFuture(new Outcome.Done());
  }

  private static Future<Outcome> failed(String ns, String error) {
    return Future.succeededFuture(new Outcome.Failed("deletion of namespace " + ns + " failed: " + error));
  }

  /** Result of deleting the content: the requeue estimate (0: empty) and the aggregated error, if any. */
  private record ContentResult(long estimateSeconds, String error) {
  }

  private Future<ContentResult> deleteAllContent(JsonObject nsObj) {
    String ns = nsObj.getJsonObject("metadata").getString("name");
    return discovery.discover().compose(d -> {
      NamespaceConditions conditions = new NamespaceConditions();
      List<String> errors = new ArrayList<>();
      if (d.failureText() != null) {
        errors.add(d.failureText());
        conditions.discoveryFailed(d.failed().size(), d.failureText());
      }
      List<ApiResource> deletable = d.preferred(true, "delete");
      long[] estimate = {0};
      Future<Void> chain = Future.succeededFuture();
      for (ApiResource res : deletable) {
        chain = chain.compose(v -> deleteResource(ns, res).map(gvr -> {
          if (gvr.error() != null) {
            errors.add(gvr.error());
            conditions.contentFailed(gvr.error());
          }
          estimate[0] = Math.max(estimate[0], gvr.estimate());
          conditions.remaining(res.groupResource(), gvr.remaining(), gvr.finalizers());
          return null;
        }));
      }
      return chain.compose(v -> writeConditions(nsObj, conditions))
          .map(v -> new ContentResult(estimate[0], errors.isEmpty() ? null
              : errors.size() == 1 ? errors.get(0) : "[" + String.join(", ", errors) + "]"));
    });
  }

  /** One resource's leftovers: {@code gvrDeletionMetadata} and the error. */
  private record GvrResult(long estimate, int remaining, Map<String, Integer> finalizers, String error) {
  }

  private Future<GvrResult> deleteResource(String ns, ApiResource res) {
    String coll = res.collectionPath(ns);
    JsonObject background = new JsonObject().put("propagationPolicy", "Background");
    Future<Boolean> deleted;
    if (res.verbs().contains("deletecollection")) {
      deleted = api.delete(coll, background).compose(r -> {
        if (r.ok()) {
          return Future.succeededFuture(true);
        }
        if (r.status() == 404 || r.status() == 405) {
          return Future.succeededFuture(false);
        }
        return Future.failedFuture(r.message());
      });
    } else {
      deleted = Future.succeededFuture(false);
    }
    return deleted.compose(done -> done || !res.verbs().contains("list") ? Future.succeededFuture((Void) null)
        : deleteEach(coll, res, ns, background)).compose(v -> api.get(coll).compose(r -> {
          if (r.status() == 404 || r.status() == 405) {
            return Future.succeededFuture(new GvrResult(0, 0, Map.of(), null));
          }
          if (!r.ok()) {
            return Future.failedFuture(r.message());
          }
          JsonArray items = r.items();
          if (items.isEmpty()) {
            return Future.succeededFuture(new GvrResult(0, 0, Map.of(), null));
          }
          Map<String, Integer> fin = new HashMap<>();
          for (Object o : items) {
            JsonObject md = ((JsonObject) o).getJsonObject("metadata", new JsonObject());
            for (Object f : md.getJsonArray("finalizers", new JsonArray())) {
              fin.merge(String.valueOf(f), 1, Integer::sum);
            }
          }
          if (!fin.isEmpty()) {
            return Future.succeededFuture(new GvrResult(FINALIZER_ESTIMATE_S, items.size(), fin, null));
          }
          return Future.succeededFuture(new GvrResult(0, items.size(), fin, "unexpected items still remain in "
              + "namespace: " + ns + " for gvr: " + res.gvrText()));
        })).recover(t -> Future.succeededFuture(new GvrResult(0, 0, Map.of(), t.getMessage())));
  }

  private Future<Void> deleteEach(String coll, ApiResource res, String ns, JsonObject options) {
    return api.get(coll).compose(r -> {
      if (r.status() == 404 || r.status() == 405) {
        return Future.succeededFuture();
      }
      if (!r.ok()) {
        return Future.failedFuture(r.message());
      }
      List<Future<Void>> fs = new ArrayList<>();
      for (Object o : r.items()) {
        String name = ((JsonObject) o).getJsonObject("metadata").getString("name");
        fs.add(api.delete(res.objectPath(ns, name), options).compose(d -> d.ok() || d.status() == 404
            || d.status() == 405 ? Future.succeededFuture() : Future.failedFuture(d.message())));
      }
      return Future.all(fs).mapEmpty();
    });
  }

  private Future<Void> writeConditions(JsonObject nsObj, NamespaceConditions conditions) {
    JsonArray current = nsObj.getJsonObject("status", new JsonObject()).getJsonArray("conditions");
    JsonArray next = conditions.conditions(current, Instant.now());
    if (next.equals(current)) {
      return Future.succeededFuture();
    }
    return updateStatus(nsObj, s -> s.put("conditions", next)).mapEmpty();
  }

  /** PUT status with a change, retried once on conflict after a fresh read. @return the new object, or null */
  private Future<JsonObject> updateStatus(JsonObject nsObj, java.util.function.UnaryOperator<JsonObject> change) {
    String name = nsObj.getJsonObject("metadata").getString("name");
    JsonObject next = nsObj.copy();
    next.put("status", change.apply(next.getJsonObject("status", new JsonObject()).copy()));
    return api.update("/api/v1/namespaces/" + name + "/status", next).compose(r -> {
      if (r.ok()) {
        return Future.succeededFuture(r.body());
      }
      if (r.notFound()) {
        return Future.succeededFuture(null);
      }
      if (r.status() == 409) {
        return api.get("/api/v1/namespaces/" + name).compose(fresh -> fresh.ok()
            ? api.update("/api/v1/namespaces/" + name + "/status", withStatus(fresh.body(), change))
                .compose(r2 -> r2.ok() ? Future.succeededFuture(r2.body()) : Future.failedFuture(r2.message()))
            : Future.failedFuture(fresh.message()));
      }
      return Future.failedFuture(r.message());
    });
  }

  private static JsonObject withStatus(JsonObject obj, java.util.function.UnaryOperator<JsonObject> change) {
    JsonObject next = obj.copy();
    next.put("status", change.apply(next.getJsonObject("status", new JsonObject()).copy()));
    return next;
  }

  /** {@code retryOnConflict} PUT of {@code finalize} without this controller's finalizer; a changed UID aborts. */
  private Future<Outcome> finalizeNamespace(String ns, String uid) {
    return api.get("/api/v1/namespaces/" + ns).compose(r -> {
      if (r.notFound()) {
        return done();
      }
      if (!r.ok()) {
        return failed(ns, r.message());
      }
      JsonObject obj = r.body();
      if (!uid.equals(obj.getJsonObject("metadata").getString("uid"))) {
        return done();
      }
      JsonArray left = new JsonArray();
      finalizers(obj).forEach(f -> {
        if (!FINALIZER.equals(f)) {
          left.add(f);
        }
      });
      JsonObject next = obj.copy();
      next.getJsonObject("spec", new JsonObject()).put("finalizers", left);
      if (!next.containsKey("spec")) {
        next.put("spec", new JsonObject().put("finalizers", left));
      }
      return api.update("/api/v1/namespaces/" + ns + "/finalize", next).compose(u -> {
        if (u.ok() || u.notFound()) {
          LOG.info("namespace " + ns + " finalized");
          return done();
        }
        if (u.status() == 409) {
          return finalizeNamespace(ns, uid);
        }
        return failed(ns, u.message());
      });
    });
  }

  private static String phase(JsonObject ns) {
    return ns.getJsonObject("status", new JsonObject()).getString("phase", "");
  }

  private static List<Object> finalizers(JsonObject ns) {
    return ns.getJsonObject("spec", new JsonObject()).getJsonArray("finalizers", new JsonArray()).getList();
  }
}
