package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.mvproxy.api.storage.StoredObject;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * PATCH of the main resource, {@code /status} and {@code /scale} (apiserver {@code pkg/endpoints/handlers/patch.go}):
 * the patch is applied to the current object as the client sees it (its version, or the Scale), then stored like an
 * update. A {@code metadata.resourceVersion} set by the patch is a precondition (409 when stale); otherwise lost
 * races are retried. Server-side apply creates an absent object (201; the {@code create} verb authorized as well,
 * {@link Writes#authorizeCreate}) and otherwise merges the configuration,
 * removing fields the same manager applied before and dropped since, with conflicts against every other manager
 * ({@link FieldManager}); other patches are recorded as Updates of their manager.
 */
public final class Patches {
  private final CrdRuntime rt;
  private final Writes writes;
  private final PatchApplier applier = new PatchApplier();

  /**
   * @param rt     the CRD runtime
   * @param writes the create/update logic patches reuse
   */
  public Patches(CrdRuntime rt, Writes writes) {
    this.rt = rt;
    this.writes = writes;
  }

  /**
   * PATCH: 200 with the patched object (201 when apply created it); 404, 409, 415, 422 (also for invalid
   * {@link WriteOptions}, checked after the body is read as upstream), 400.
   */
  public void patch(CrdRequest req) {
    PatchApplier.Type type;
    try {
      type = PatchApplier.type(req.ctx().request().getHeader("Content-Type"), rt.strategy().strategicMergePatch());
    } catch (StatusException e) {
      Responses.fail(req, e);
      return;
    }
    BodyReader.read(req.ctx(), rt.options().maxBodyBytes())
        .compose(body -> {
          WriteOptions.validate(req, "PatchOptions", type == PatchApplier.Type.APPLY);
          if (type == PatchApplier.Type.APPLY && req.info().subresource().isEmpty()) {
            return applyCreateOrPatch(req, body);
          }
          return patchExisting(req, type, body).map(o -> new Result(200, o));
        })
        .onSuccess(r -> Responses.send(req.ctx(), r.code(), r.body()))
        .onFailure(t -> Responses.fail(req, t));
  }

  private record Result(int code, JsonObject body) {
  }

  private Future<Result> applyCreateOrPatch(CrdRequest req, Buffer body) {
    JsonObject config = applier.applyConfiguration(body, req.apiVersion(), req.crd().kind());
    return rt.store(req).get(req.key()).map(cur -> (StoredObject) cur).recover(t ->
        t instanceof io.mvproxy.api.storage.StorageException se
            && se.storageCode() == io.mvproxy.api.storage.StorageException.Code.NOT_FOUND
            ? Future.succeededFuture(null) : Future.failedFuture(t)).compose(cur -> {
      if (cur != null) {
        return patchExisting(req, PatchApplier.Type.APPLY, body).map(o -> new Result(200, o));
      }
      JsonObject created = config.copy();
      FieldManager.applyCreate(created, config, manager(req), req.apiVersion(), req.info().subresource(),
          FieldManager.resetFields(req));
      if (ObjectRules.metadata(created).getValue("uid") instanceof String uid && !uid.isEmpty()) {
        // handlers/patch.go applyPatch: an apply naming a uid found no object with it
        throw io.mvproxy.api.storage.StorageException.conflict(req.key(), "uid mismatch: the provided object "
            + "specified uid " + uid + ", and no existing object was found").forResource(req.gvr(), req.name());
      }
      return writes.create(req, created, true, true).map(o -> new Result(201, req.view(o)))
          .recover(t -> t instanceof StatusException se && se.reason() == StatusReason.AlreadyExists
              ? patchExisting(req, PatchApplier.Type.APPLY, body).map(o -> new Result(200, o))
              : Future.failedFuture(t));
    });
  }

  /** @return the apply manager ({@link WriteOptions} has made sure there is one) */
  private static String manager(CrdRequest req) {
    return req.param("fieldManager");
  }

  private Future<JsonObject> patchExisting(CrdRequest req, PatchApplier.Type type, Buffer body) {
    boolean scale = "scale".equals(req.info().subresource());
    if (!"Ignore".equals(req.param("fieldValidation"))) {
      List<String> problems = PatchApplier.strictProblems(type, body);
      if (!problems.isEmpty()) {
        req.ctx().put(FieldValidation.BODY_PROBLEMS_KEY, problems);  // reported first, with the object's own
      }
    }
    return GuaranteedUpdate.run(rt, req, cur -> next(req, type, body, cur, scale))
        .map(o -> scale ? ScaleCodec.toScale(req.view(o), req.version().scale()) : req.view(o));
  }

  private JsonObject next(CrdRequest req, PatchApplier.Type type, Buffer body, StoredObject cur, boolean scale) {
    String curRv = Long.toString(cur.resourceVersion());
    JsonObject base = scale ? ScaleCodec.toScale(cur.object(), req.version().scale()) : req.view(cur.object());
    JsonObject config = type != PatchApplier.Type.APPLY ? null : applier.applyConfiguration(body,
        scale ? "autoscaling/v1" : req.apiVersion(), scale ? "Scale" : req.crd().kind());
    JsonObject patched = config == null
        ? applier.apply(type, base, body, scale ? PatchMeta.NONE : rt.strategy().strategicMergePatch(),
            !"Ignore".equals(req.param("fieldValidation")))
        : scale ? PatchApplier.merge(base, config)  // the Scale's apply: a merge of the configuration read above
        : FieldManager.apply(base, config, manager(req), req.apiVersion(), req.info().subresource(),
            io.mvproxy.api.BoolParam.of(req.param("force")), FieldManager.resetFields(req));
    JsonObject meta = ObjectRules.metadata(patched);
    String rv = meta.getValue("resourceVersion") instanceof String s ? s : "";
    GuaranteedUpdate.checkResourceVersion(req, rv, cur);
    meta.put("resourceVersion", curRv);
    if (scale) {
      return writes.scaleTo(req, cur, patched);
    }
    if (type == PatchApplier.Type.APPLY) {
      rt.rules().checkIdentity(req, patched, true);
      return writes.next(req, cur, patched, true);
    }
    // pruning drops the unknown fields a Strict error names: the value shown is the object before it
    JsonObject before = "Strict".equals(req.param("fieldValidation")) ? patched.copy() : patched;
    try {
      rt.rules().checkIdentity(req, patched, true);
      return writes.next(req, cur, patched, false);
    } catch (StatusException e) {
      throw decodeFailure(req, e, type, body, before);
    }
  }

  /**
   * The patched object failing to decode (a JSON type its Go type refuses; with {@code fieldValidation=Strict} an
   * unknown or duplicate field) is not the create's 400 but {@code patch.go}'s {@code NewInvalid(schema.GroupKind{},
   * "", ...)} on the field {@code patch}: {@code  "" is invalid: patch: Invalid value: "<v>": strict decoding error:
   * unknown field "dat"}, {@code <v>} the patch map as {@code %+v} prints it for a strategic merge patch
   * ({@code applyPatchToObject}), the patched JSON for merge and JSON patches ({@code applyPatchToCurrentObject}).
   *
   * @param patched the patched object as it was before decoding
   * @return {@code e} itself when it is another error
   */
  static StatusException decodeFailure(CrdRequest req, StatusException e, PatchApplier.Type type, Buffer body,
                                       JsonObject patched) {
    String kind = req.crd().kind();
    String prefix = kind + " in version \"" + req.version().name() + "\" cannot be handled as a " + kind + ": ";
    if (e.reason() != StatusReason.BadRequest || e.getMessage() == null || !e.getMessage().startsWith(prefix)) {
      return e;
    }
    String value;
    if (type == PatchApplier.Type.STRATEGIC) {
      Object patch;
      try {
        patch = io.vertx.core.json.Json.decodeValue(body);
      } catch (RuntimeException unreadable) {
        return e;
      }
      value = io.mvproxy.registry.impl.schema.GoValues.plain(patch);
    } else {
      value = io.mvproxy.registry.impl.schema.GoValues.json(patched);
    }
    String cause = "Invalid value: " + io.mvproxy.api.GoStrings.quote(value) + ": "
        + e.getMessage().substring(prefix.length());
    return new StatusException(StatusReason.Invalid, " \"\" is invalid: patch: " + cause, new JsonObject()
        .put("causes", new io.vertx.core.json.JsonArray().add(new JsonObject().put("reason", "FieldValueInvalid")
            .put("message", cause).put("field", "patch"))));
  }
}
