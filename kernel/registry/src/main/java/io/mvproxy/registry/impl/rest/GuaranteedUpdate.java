package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.storage.Preconditions;
import io.mvproxy.api.storage.StorageException;
import io.mvproxy.api.storage.StoredObject;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.function.Function;

/**
 * The update step of apiserver's {@code registry/generic/registry/store.go Update} over
 * {@link io.mvproxy.api.storage.ResourceStorage#guaranteedUpdate}: the transform sees the current object and returns
 * the next one (or throws, e.g. 409 for a stale resourceVersion it was given); the storage retries it on lost races.
 * An unchanged object is not written. A dry run stops before the write. An update that leaves a deleting object
 * without finalizers deletes it instead ({@code shouldDeleteDuringUpdate}, {@code deleteWithoutFinalizers}: the
 * update aborts with {@code errEmptiedFinalizers}, then a delete with the uid and resourceVersion read).
 */
public final class GuaranteedUpdate {
  /** Attempts of the delete-after-emptied-finalizers race before 409. */
  public static final int ATTEMPTS = 100;

  private GuaranteedUpdate() {
  }

  /** Thrown inside the transform to end it without writing; carries the object the request answers with. */
  private static final class Stop extends RuntimeException {
    final JsonObject next;
    final StoredObject current;
    final boolean delete;

    Stop(JsonObject next, StoredObject current, boolean delete) {
      super(null, null, false, false);
      this.next = next;
      this.current = current;
      this.delete = delete;
    }
  }

  /**
   * @param rt        the CRD runtime
   * @param req       the request (key, dryRun)
   * @param transform current stored object (do not modify) to the next object in storage form
   * @return the resulting object in storage form; fails 404 when absent, 409 for failed preconditions
   */
  public static Future<JsonObject> run(CrdRuntime rt, CrdRequest req, Function<StoredObject, JsonObject> transform) {
    io.mvproxy.api.admission.Admission admission = AdmissionStep.active(rt);
    if (admission == null && rt.strategy().validatesBlocking()) {
      return readValidateWrite(rt, req, transform, ATTEMPTS);
    }
    if (admission == null) {
      return attempt(rt, req, cur -> {
        JsonObject next = transform.apply(cur);
        AdmissionStep.validateSchema(req, next, req.stored(cur.object()));
        return next;
      }, ATTEMPTS, Preconditions.NONE);
    }
    return admitted(rt, req, transform, admission, ATTEMPTS);
  }

  /**
   * The update with webhooks: read, transform, admit (mutating webhooks, schema validation, validating webhooks:
   * asynchronous, outside the storage's retry loop), then write only if the object is still the one read; a lost
   * race runs it all again, as kube-apiserver re-runs admission in each {@code GuaranteedUpdate} attempt.
   */
  private static Future<JsonObject> admitted(CrdRuntime rt, CrdRequest req,
                                             Function<StoredObject, JsonObject> transform,
                                             io.mvproxy.api.admission.Admission admission, int left) {
    String optionsKind = "PATCH".equals(req.ctx().request().method().name()) ? "PatchOptions" : "UpdateOptions";
    return rt.store(req).get(req.key()).compose(cur -> {
      JsonObject next = transform.apply(cur);
      return validateBlocking(rt, req, cur.object(), next).compose(v -> AdmissionStep.admit(admission, rt.rules(), req, "UPDATE", next, cur.object(), req.stored(cur.object()),
              optionsKind))
          .compose(fin -> attempt(rt, req, c -> fin, 1,
              new Preconditions(cur.uid(), Long.toString(cur.resourceVersion()))));
    }).recover(t -> t instanceof StorageException se && se.storageCode() == StorageException.Code.CONFLICT
        && left > 1 ? admitted(rt, req, transform, admission, left - 1) : Future.failedFuture(t));
  }

  /**
   * The update without webhooks of a kind with {@link ObjectStrategy#validatesBlocking}: read, transform, schema
   * validation, the strategy's validation on a worker thread, then write only if the object is still the one read;
   * a lost race runs it all again (as {@link #admitted}).
   */
  private static Future<JsonObject> readValidateWrite(CrdRuntime rt, CrdRequest req,
                                                      Function<StoredObject, JsonObject> transform, int left) {
    return rt.store(req).get(req.key()).compose(cur -> {
      JsonObject next = transform.apply(cur);
      AdmissionStep.validateSchema(req, next, req.stored(cur.object()));
      return validateBlocking(rt, req, cur.object(), next).compose(v -> attempt(rt, req, c -> next, 1,
          new Preconditions(cur.uid(), Long.toString(cur.resourceVersion()))));
    }).recover(t -> t instanceof StorageException se && se.storageCode() == StorageException.Code.CONFLICT
        && left > 1 ? readValidateWrite(rt, req, transform, left - 1) : Future.failedFuture(t));
  }

  /**
   * Runs the strategy's {@link ObjectStrategy#validateBlocking} on a worker thread (unordered: requests do not wait
   * for each other), when the strategy has one.
   *
   * @param old the stored object, or null for a create
   * @param obj the prepared object
   * @return completes on the caller's context; fails with the validation's StatusException (e.g. 422)
   */
  static Future<Void> validateBlocking(CrdRuntime rt, CrdRequest req, JsonObject old, JsonObject obj) {
    ObjectStrategy s = rt.strategy();
    if (!s.validatesBlocking()) {
      return Future.succeededFuture();
    }
    return rt.vertx().executeBlocking(() -> {
      s.validateBlocking(req, old, obj);
      return null;
    }, false);
  }

  private static Future<JsonObject> attempt(CrdRuntime rt, CrdRequest req,
                                            Function<StoredObject, JsonObject> transform, int left,
                                            Preconditions pre) {
    return rt.store(req).guaranteedUpdate(req.key(), pre, cur -> {
      JsonObject next = transform.apply(cur);
      if (ObjectRules.sameContent(next, cur.object())) {
        return cur.object();
      }
      boolean delete = deletingWithoutFinalizers(next) && req.strategy().deleteDuringUpdate(next);
      if (req.dryRun() || delete) {
        throw new Stop(next, cur, delete);
      }
      return next;
    }).map(StoredObject::object).recover(t -> {
      if (!(t instanceof Stop stop)) {
        return Future.failedFuture(t);
      }
      if (!stop.delete) {
        ObjectRules.metadata(stop.next).put("resourceVersion", Long.toString(stop.current.resourceVersion()));
        return Future.succeededFuture(stop.next);
      }
      if (req.dryRun()) {
        return Future.succeededFuture(stop.next);
      }
      Preconditions read = new Preconditions(stop.current.uid(), Long.toString(stop.current.resourceVersion()));
      return rt.store(req).delete(req.key(), read, null).map(StoredObject::object).recover(d ->
          d instanceof StorageException se && se.storageCode() == StorageException.Code.CONFLICT && left > 1
              ? attempt(rt, req, transform, left - 1, pre) : Future.failedFuture(d));
    });
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
