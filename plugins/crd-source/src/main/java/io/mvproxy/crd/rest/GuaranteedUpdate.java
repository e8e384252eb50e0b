package io.mvproxy.crd.rest;

import io.mvproxy.api.StatusException;
import io.mvproxy.crd.store.StoredObject;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * Read-transform-compare-and-set loop of one object, as apiserver's {@code storage/etcd3/store.go GuaranteedUpdate}:
 * the transform sees the current object and returns the next one (or throws, e.g. 409 for a stale
 * resourceVersion it was given); a lost compare-and-set re-reads and re-runs the transform. An unchanged object is
 * not written. An update that leaves a deleting object without finalizers deletes it instead of writing it
 * ({@code registry/generic/registry/store.go} {@code shouldDeleteDuringUpdate}, {@code deleteWithoutFinalizers}).
 */
public final class GuaranteedUpdate {
  /**
   * Attempts before giving up with 409 Conflict. etcd3's GuaranteedUpdate retries without bound; a bound keeps a
   * pathological hot key from looping forever while letting dozens of concurrent writers through.
   */
  public static final int ATTEMPTS = 100;
  /** Upper bound in ms of the random pause before a retry (spreads writers racing for one key). */
  public static final int MAX_BACKOFF_MS = 20;

  private GuaranteedUpdate() {
  }

  /**
   * @param rt        the CRD runtime
   * @param req       the request (key, dryRun)
   * @param transform current stored object (do not modify) to the next object in storage form
   * @return the resulting object in storage form; fails 404 when absent, 409 after {@link #ATTEMPTS} lost races
   */
  public static Future<JsonObject> run(CrdRuntime rt, CrdRequest req, Function<StoredObject, JsonObject> transform) {
    return attempt(rt, req, transform, ATTEMPTS);
  }

  private static Future<JsonObject> attempt(CrdRuntime rt, CrdRequest req,
                                            Function<StoredObject, JsonObject> transform, int left) {
    return rt.store().get(req.key()).compose(cur -> {
      if (cur == null) {
        return Future.failedFuture(StatusException.notFound(req.gvr(), req.name()));
      }
      JsonObject next = transform.apply(cur);
      if (ObjectRules.sameContent(next, cur.object())) {
        return Future.succeededFuture(cur.object());
      }
      if (req.dryRun()) {
        ObjectRules.metadata(next).put("resourceVersion", Long.toString(cur.resourceVersion()));
        return Future.succeededFuture(next);
      }
      Future<StoredObject> written = deletingWithoutFinalizers(next) && req.strategy().deleteDuringUpdate(next)
          ? rt.store().delete(cur, next).map(last -> last == null ? null : new StoredObject(cur.key(), null, last,
              StoredObject.resourceVersionOf(last)))
          : rt.store().replace(cur, next);
      return written.compose(stored -> {
        if (stored == null) {
          return left > 1 ? backoff(rt, ATTEMPTS - left).compose(v -> attempt(rt, req, transform, left - 1))
              : Future.failedFuture(StatusException.conflict(req.gvr(), req.name()));
        }
        return Future.succeededFuture(stored.object());
      });
    });
  }

  /**
   * @param rt    the runtime (for the timer)
   * @param tries attempts made so far
   * @return completes after a random pause of up to min(tries + 1, {@link #MAX_BACKOFF_MS}) ms
   */
  static Future<Void> backoff(CrdRuntime rt, int tries) {
    long ms = 1 + ThreadLocalRandom.current().nextInt(Math.min(tries + 1, MAX_BACKOFF_MS));
    Promise<Void> p = Promise.promise();
    rt.vertx().setTimer(ms, id -> p.complete());
    return p.future();
  }

  /** @return true when {@code o} has a deletionTimestamp and no finalizers left */
  public static boolean deletingWithoutFinalizers(JsonObject o) {
    JsonObject m = o.getJsonObject("metadata", new JsonObject());
    return m.getValue("deletionTimestamp") != null && !hasFinalizers(o);
  }

  /** @return true when {@code metadata.finalizers} is non-empty */
  public static boolean hasFinalizers(JsonObject o) {
    Object f = o.getJsonObject("metadata", new JsonObject()).getValue("finalizers");
    return f instanceof JsonArray a && !a.isEmpty();
  }

  /**
   * Throws 409 Conflict when a resourceVersion given by the client differs from the stored one.
   *
   * @param given the client's resourceVersion ({@code null} or empty: no precondition)
   */
  public static void checkResourceVersion(CrdRequest req, String given, StoredObject cur) {
    if (given != null && !given.isEmpty() && !given.equals(Long.toString(cur.resourceVersion()))) {
      throw StatusException.conflict(req.gvr(), req.name());
    }
  }
}
