package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.mvproxy.api.storage.ListOptions;
import io.mvproxy.api.storage.Preconditions;
import io.mvproxy.api.storage.StorageException;
import io.mvproxy.api.storage.StoredObject;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * DELETE of one object and deletecollection (apiserver {@code registry/generic/registry/store.go Delete},
 * {@code DeleteCollection}): DeleteOptions {@code preconditions} (uid, resourceVersion; 409 when they fail); an
 * object with finalizers gets {@code deletionTimestamp} and stays (200 with the object) until an update removes the
 * last finalizer; otherwise it is removed (200 with a Success Status). {@code propagationPolicy} /
 * {@code orphanDependents} set the garbage collector's {@code orphan} / {@code foregroundDeletion} finalizers first
 * ({@link GcFinalizers}). The options come from the body, or from the query when the body is empty
 * ({@link DeleteOptionsReader}), and are validated before anything is read or written.
 */
public final class Deletes {
  private final CrdRuntime rt;

  /** @param rt the CRD runtime */
  public Deletes(CrdRuntime rt) {
    this.rt = rt;
  }

  /** DELETE of {@code req.name()}: 200 (object or Success Status), 404, 409 on failed preconditions. */
  public void delete(CrdRequest req) {
    BodyReader.read(req.ctx(), rt.options().maxBodyBytes())
        .compose(body -> deleteOne(req, req.key(), req.name(), options(req, body), GuaranteedUpdate.ATTEMPTS))
        .onSuccess(o -> Responses.send(req.ctx(), 200, o))
        .onFailure(t -> Responses.fail(req, t));
  }

  /**
   * DELETE of the collection: 200 with a {@code <Kind>List} of what was deleted or marked for deletion; when an
   * item's delete fails (other than 404), that error (the first in list order) is the answer, the other items'
   * deletes having run.
   */
  public void deleteCollection(CrdRequest req) {
    ListFilter filter;
    try {
      ListQuery.decode(req::param);
      filter = ListFilter.of(req);
    } catch (StatusException e) {
      Responses.fail(req, e);
      return;
    }
    BodyReader.read(req.ctx(), rt.options().maxBodyBytes()).compose(body -> {
      JsonObject opts = options(req, body);
      return rt.store(req).list(ListOptions.all(req.keyPrefix())).compose(page -> {
        List<Future<JsonObject>> fs = new ArrayList<>();
        for (StoredObject so : page.items()) {
          if (filter.matches(so.object())) {
            String name = so.object().getJsonObject("metadata").getString("name");
            fs.add(deleteOne(req, so.key(), name, opts, GuaranteedUpdate.ATTEMPTS)
                .map(r -> "Status".equals(r.getString("kind")) ? req.view(so.object()) : r)
                .recover(t -> t instanceof StorageException se && se.storageCode() == StorageException.Code.NOT_FOUND
                    ? Future.succeededFuture(null) : Future.failedFuture(t)));
          }
        }
        return Future.join(fs).transform(done -> {
          // store.go DeleteCollection: the first item's error (other than NotFound) is the answer
          for (Future<JsonObject> f : fs) {
            if (f.failed()) {
              return Future.failedFuture(f.cause());
            }
          }
          return Future.succeededFuture();
        }).map(cf -> {
          JsonArray items = new JsonArray();
          fs.forEach(f -> {
            if (f.result() != null) {
              items.add(f.result());
            }
          });
          return new JsonObject().put("kind", rt.crd().listKind()).put("apiVersion", req.apiVersion())
              .put("metadata", new JsonObject()).put("items", items);
        });
      });
    }).onSuccess(o -> Responses.send(req.ctx(), 200, o)).onFailure(t -> Responses.fail(req, t));
  }

  /** The body's DeleteOptions, else the query's, validated ({@link DeleteOptionsReader}; 400 / 422). */
  private JsonObject options(CrdRequest req, Buffer body) {
    return DeleteOptionsReader.read(body.length() == 0 ? null : rt.rules().decode(body), req.ctx().request().params());
  }

  private static boolean dryRun(CrdRequest req, JsonObject opts) {
    return DeleteOptionsReader.dryRun(opts);
  }

  private Future<JsonObject> deleteOne(CrdRequest req, String key, String name, JsonObject opts, int left) {
    return rt.store(req).get(key).compose(cur -> {
      checkPreconditions(req, name, opts, cur); // rest.BeforeDelete, before the validating admission
      return admitDelete(req, name, opts, cur);
    }).compose(cur -> {
      JsonObject meta = cur.object().getJsonObject("metadata");
      Preconditions read = new Preconditions(cur.uid(), Long.toString(cur.resourceVersion()));
      JsonObject replacement = req.strategy().onDelete(req, cur.object());
      if (replacement != null) {
        if (dryRun(req, opts)) {
          return Future.succeededFuture(req.view(replacement));
        }
        return retryOnRace(req, key, name, opts, left,
            rt.store(req).guaranteedUpdate(key, read, c -> replacement).map(stored -> req.view(stored.object())));
      }
      JsonObject withGc = GcFinalizers.apply(cur.object(), opts);
      if (GuaranteedUpdate.hasFinalizers(withGc)) {
        if (meta.getValue("deletionTimestamp") != null && withGc == cur.object()) {
          return Future.succeededFuture(req.view(cur.object()));
        }
        JsonObject next = withGc.copy();
        if (meta.getValue("deletionTimestamp") == null) {
          next.getJsonObject("metadata").put("deletionTimestamp", ObjectRules.now())
              .put("deletionGracePeriodSeconds", 0);
        }
        if (dryRun(req, opts)) {
          return Future.succeededFuture(req.view(next));
        }
        return retryOnRace(req, key, name, opts, left,
            rt.store(req).guaranteedUpdate(key, read, c -> next).map(stored -> req.view(stored.object())));
      }
      Future<JsonObject> deleted = dryRun(req, opts) ? Future.succeededFuture(cur.object())
          : rt.store(req).delete(key, read, null).map(StoredObject::object);
      return retryOnRace(req, key, name, opts, left, deleted.map(last ->
          Responses.deleted(req.name().isEmpty() ? withName(req, name) : req, meta.getString("uid"))));
    });
  }

  /**
   * The webhooks of a DELETE (operation DELETE, {@code oldObject} the stored object, {@code options} the
   * DeleteOptions), mutating then validating, as kube-apiserver's {@code delete.go} and {@code store.go Delete}.
   */
  private Future<StoredObject> admitDelete(CrdRequest req, String name, JsonObject opts, StoredObject cur) {
    io.mvproxy.api.admission.Admission a = AdmissionStep.active(rt);
    if (a == null) {
      return Future.succeededFuture(cur);
    }
    CrdRequest named = req.name().isEmpty() ? withName(req, name) : req;
    JsonObject options = opts.copy().put("kind", "DeleteOptions").put("apiVersion", "meta.k8s.io/v1");
    io.mvproxy.api.admission.Admission.Attributes a0 = AdmissionStep.attributes(named, "DELETE", null,
        cur.object(), options);
    // the DeleteOptions of the body may ask for the dry run too
    io.mvproxy.api.admission.Admission.Attributes attrs = new io.mvproxy.api.admission.Admission.Attributes(
        a0.group(), a0.version(), a0.resource(), a0.subresource(), a0.kind(), a0.namespace(), a0.name(),
        a0.operation(), null, a0.oldObject(), a0.options(), a0.dryRun() || dryRun(req, opts), a0.user(),
        a0.namespaced(), a0.equivalentVersions(), a0.warnings(), a0.annotations());
    return a.mutate(attrs).compose(x -> a.validate(attrs)).compose(v -> AdmissionStep.withinDeadline(req, cur));
  }

  /** Re-runs the delete when the object changed between the read and the write (a lost race, not the client's). */
  private Future<JsonObject> retryOnRace(CrdRequest req, String key, String name, JsonObject opts, int left,
                                         Future<JsonObject> attempt) {
    return attempt.recover(t -> t instanceof StorageException se && se.storageCode() == StorageException.Code.CONFLICT
        && left > 1 ? deleteOne(req, key, name, opts, left - 1) : Future.failedFuture(t));
  }

  private CrdRequest withName(CrdRequest req, String name) {
    io.mvproxy.api.RequestInfo i = req.info();
    return new CrdRequest(req.ctx(), new io.mvproxy.api.RequestInfo(i.resourceRequest(), i.path(), i.verb(),
        i.apiPrefix(), i.group(), i.version(), i.namespace(), i.resource(), name, i.subresource()), req.user(),
        req.crd(), req.version(), req.strategy());
  }

  /**
   * The early check of DeleteOptions {@code preconditions} ({@code rest.BeforeDelete}), with its texts.
   *
   * @throws StatusException 409 Conflict {@code Operation cannot be fulfilled on Role.rbac.authorization.k8s.io "x":
   *     the UID in the precondition (a) does not match the UID in record (b). The object might have been deleted and
   *     then recreated} (or {@code the ResourceVersion in the precondition (1) does not match the ResourceVersion in
   *     record (2). The object might have been modified}); named by kind, as upstream's {@code NewConflict} there
   */
  private static void checkPreconditions(CrdRequest req, String name, JsonObject opts, StoredObject cur) {
    JsonObject pre = opts.getValue("preconditions") instanceof JsonObject p ? p : new JsonObject();
    JsonObject meta = cur.object().getJsonObject("metadata");
    String uid = pre.getString("uid");
    if (uid != null && !uid.equals(meta.getString("uid"))) {
      throw preconditionFailed(req, name, "the UID in the precondition (" + uid + ") does not match the UID in "
          + "record (" + meta.getString("uid") + "). The object might have been deleted and then recreated");
    }
    String rv = pre.getString("resourceVersion");
    if (rv != null && !rv.equals(meta.getString("resourceVersion"))) {
      throw preconditionFailed(req, name, "the ResourceVersion in the precondition (" + rv + ") does not match the "
          + "ResourceVersion in record (" + meta.getString("resourceVersion") + "). The object might have been "
          + "modified");
    }
  }

  private static StatusException preconditionFailed(CrdRequest req, String name, String what) {
    String group = req.crd().group();
    String kind = req.crd().kind();
    JsonObject details = new JsonObject().put("name", name);
    if (!group.isEmpty()) {
      details.put("group", group);
    }
    return new StatusException(StatusReason.Conflict, "Operation cannot be fulfilled on " + kind
        + (group.isEmpty() ? "" : "." + group) + " \"" + name + "\": " + what, details.put("kind", kind));
  }
}
