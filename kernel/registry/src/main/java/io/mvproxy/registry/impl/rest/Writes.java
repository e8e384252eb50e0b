package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.mvproxy.api.storage.StoredObject;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Create (POST, 201) and update (PUT, 200) of the main resource and of its {@code status} and {@code scale}
 * subresources (apiserver {@code pkg/endpoints/handlers/create.go}, {@code update.go}); unknown fields are pruned
 * ({@link FieldPruner}), defaults applied ({@link SchemaDefaults}) and the result validated
 * ({@link SchemaValidator}, against the defaulted stored object on updates for ratcheting and transition rules)
 * per the version schema. Each write records its manager's fields in {@code managedFields} ({@link FieldManager}:
 * operation Update, or Apply for server-side apply, which {@link Patches} handles).
 */
public final class Writes {
  /**
   * The error of a create whose object carries a resourceVersion (apiserver {@code storage/errors.go}
   * {@code ErrResourceVersionSetOnCreate}, from {@code etcd3/store.go Create}); not a Status error upstream, so it
   * reaches the client as a {@code 500} Status without a reason.
   */
  public static final String RESOURCE_VERSION_SET_ON_CREATE = "resourceVersion should not be set on objects to be "
      + "created";
  /** Attempts of a create whose name the server generates (apiserver {@code maxNameGenerationCreateAttempts}). */
  static final int GENERATE_NAME_ATTEMPTS = 8;
  private final CrdRuntime rt;

  /** @param rt the CRD runtime */
  public Writes(CrdRuntime rt) {
    this.rt = rt;
  }

  /**
   * POST: answers 201 with the stored object; 409 AlreadyExists, 422 Invalid, 400 BadRequest; 500 without a reason
   * ({@link #RESOURCE_VERSION_SET_ON_CREATE}) when the object carries a resourceVersion (not for dryRun, whose storage
   * skips that check upstream).
   */
  public void create(CrdRequest req) {
    WriteOptions.validate(req, "CreateOptions", null);
    BodyReader.read(req.ctx(), rt.options().maxBodyBytes())
        .compose(body -> create(req, rt.strategy().decodeBody(req, rt.rules().decode(req,
            BodyTypes.requireObject(req, body))), false, false))
        .onSuccess(o -> Responses.send(req.ctx(), 201, req.view(o)))
        .onFailure(t -> Responses.fail(req, t));
  }

  /**
   * Creates {@code o} (also used by server-side apply of an absent object).
   *
   * @param nameFromPath true when the path names the object (apply, or a PUT creating it): the request's verb was
   *                     not {@code create}, so that is authorized here ({@link #authorizeCreate})
   * @param applied      true for server-side apply ({@code o} carries its Apply entry); false: an Update entry is
   *                     recorded
   * @return the stored object in storage form
   */
  Future<JsonObject> create(CrdRequest req, JsonObject o, boolean nameFromPath, boolean applied) {
    // a metadata of the wrong JSON type gets its decoding error from createOnce (checkIdentity)
    if (nameFromPath || req.dryRun() || !(o.getValue("metadata") instanceof JsonObject meta)
        || !(meta.getValue("generateName") instanceof String base) || base.isEmpty()
        || meta.getValue("name") != null && !"".equals(meta.getValue("name"))) {
      return createOnce(req, o, nameFromPath, applied);
    }
    return createGenerated(req, o, applied, 1);
  }

  /**
   * A create whose name the server generates, tried again with a new name when the generated one exists, up to
   * {@link #GENERATE_NAME_ATTEMPTS} attempts in all (apiserver {@code registry/generic/registry/store.go}
   * {@code createWithGenerateNameRetry}, feature RetryGenerateName, GA in 1.32): five random characters of 27 meet
   * an existing name in a namespace of a few thousand objects often enough for clients to see it (bench/compare's
   * create workload did, through the hop). Each attempt runs the whole create again on a copy of {@code o}: name,
   * validation and admission (validating policies may look at the name; mutating webhooks run again too, which
   * their required {@code sideEffects: None} allows; upstream runs its mutating admission once, before the name).
   *
   * @param attempt this attempt, from 1
   * @return the stored object in storage form; the last attempt's 409 AlreadyExists when every name existed
   */
  private Future<JsonObject> createGenerated(CrdRequest req, JsonObject o, boolean applied, int attempt) {
    Future<JsonObject> f = createOnce(req, o.copy(), false, applied);
    if (attempt >= GENERATE_NAME_ATTEMPTS) {
      return f;
    }
    return f.recover(t -> t instanceof StatusException se && se.reason() == StatusReason.AlreadyExists
        ? createGenerated(req, o, applied, attempt + 1)
        : Future.failedFuture(t));
  }

  private Future<JsonObject> createOnce(CrdRequest req, JsonObject o, boolean nameFromPath, boolean applied) {
    rt.rules().checkIdentity(req, o, nameFromPath);
    boolean versionSet = !applied && resourceVersionSet(o);
    JsonObject pruned = SchemaDefaults.apply(req.version(), FieldPruner.apply(req, o));
    OwnerReferences.dedup(req, pruned, false);
    JsonObject prepared = rt.strategy().prepareCreate(req, rt.rules().prepareCreate(req, pruned));
    if (!applied) {
      FieldManager.update(null, prepared, manager(req), req.apiVersion(), "", FieldManager.resetFields(req));
    }
    io.mvproxy.api.admission.Admission admission = AdmissionStep.active(rt);
    if (admission == null) {
      SchemaValidator.validate(req, prepared, null, false);
      ObjectBounds.check(req, prepared);
    }
    return GuaranteedUpdate.validateBlocking(rt, req, null, prepared)
        .compose(v -> rt.strategy().admitCreate(req, prepared)).compose(admitted -> {
          if (nameFromPath) {
            // createValidation: after NamespaceLifecycle and the RBAC escalation check, before validating admission
            authorizeCreate(req);
          }
          return Future.<Void>succeededFuture();
        }).compose(authorized -> admission == null
        ? Future.succeededFuture(prepared)
        : AdmissionStep.admit(admission, rt.rules(), req, "CREATE", prepared, null, null, "CreateOptions"))
        .compose(obj -> {
      if (req.dryRun()) {
        // DryRunnableStorage.Create: an object that exists is 409 AlreadyExists, as the real create
        String key = req.key(obj.getJsonObject("metadata").getString("name"));
        return rt.store(req).get(key).transform(ar -> ar.succeeded()
            ? Future.failedFuture(io.mvproxy.api.storage.StorageException.keyExists(key))
            : ar.cause() instanceof io.mvproxy.api.storage.StorageException se
                && se.storageCode() == io.mvproxy.api.storage.StorageException.Code.NOT_FOUND
            ? Future.succeededFuture(obj) : Future.failedFuture(ar.cause()));
      }
      if (versionSet) {
        return Future.failedFuture(StatusException.withoutReason(500, RESOURCE_VERSION_SET_ON_CREATE));
      }
      String name = obj.getJsonObject("metadata").getString("name");
      return rt.store(req).create(req.key(name), obj).map(StoredObject::object);
    });
  }

  /**
   * @return true when {@code o} carries a {@code metadata.resourceVersion} the storage versioner reads as non-zero
   *     ({@code strconv.ParseUint}: digits only, within uint64); an unparsable one is ignored on create, as upstream
   */
  static boolean resourceVersionSet(JsonObject o) {
    try {
      return !resourceVersion(o).isEmpty();
    } catch (StatusException unparsable) {
      return false;
    }
  }


  /**
   * PUT on the object, {@code /status} or {@code /scale}: 200, or 404, 409 Conflict, 422, 400 (apiserver
   * {@code registry/generic/registry/store.go Update}); 201 when a kind that allows it
   * ({@link ObjectStrategy#allowCreateOnUpdate}) creates the absent object.
   */
  public void update(CrdRequest req) {
    WriteOptions.validate(req, "UpdateOptions", null);
    BodyReader.read(req.ctx(), rt.options().maxBodyBytes())
        .compose(body -> {
          JsonObject in = rt.strategy().decodeBody(req, rt.rules().decode(req, BodyTypes.requireObject(req, body)));
          String sub = req.info().subresource();
          if ("scale".equals(sub)) {
            JsonObject scaleMeta = in.getValue("metadata") instanceof JsonObject sm ? sm : new JsonObject();
            checkScaleName(req, scaleMeta);
            String rv = scaleMeta.getString("resourceVersion");
            String scaleUid = scaleMeta.getValue("uid") instanceof String u ? u : "";
            return GuaranteedUpdate.run(rt, req, cur -> {
              checkUid(req, scaleUid, cur.uid());  // the Scale's uid is the update's precondition, as the object's
              GuaranteedUpdate.checkResourceVersion(req, rv, cur);
              return scaleTo(req, cur, in);
            }).map(o -> new Written(200, ScaleCodec.toScale(req.view(o), req.version().scale())));
          }
          if (!(ObjectRules.metadata(in).getValue("name") instanceof String n) || n.isEmpty()) {
            // handlers/rest.go checkName: namer.ObjectName refuses an empty name
            throw StatusException.badRequest("the name of the object (" + req.name() + " based on URL) was "
                + "undeterminable: name must be provided");
          }
          rt.rules().checkIdentity(req, in, true);
          return updateOrCreate(req, in, CREATE_ON_UPDATE_ATTEMPTS);
        })
        .onSuccess(w -> Responses.send(req.ctx(), w.code(), w.body()))
        .onFailure(t -> Responses.fail(req, t));
  }

  /** An answer and its status code. */
  private record Written(int code, JsonObject body) {
  }

  /**
   * {@code update.go checkName} for a Scale: its name must be the URL's, its namespace (when set) too.
   *
   * @throws StatusException 400 BadRequest with upstream's texts
   */
  private static void checkScaleName(CrdRequest req, JsonObject scaleMeta) {
    String name = scaleMeta.getValue("name") instanceof String n ? n : "";
    if (name.isEmpty()) {
      throw StatusException.badRequest("the name of the object (" + req.name() + " based on URL) was "
          + "undeterminable: name must be provided");
    }
    if (!name.equals(req.name())) {
      throw StatusException.badRequest("the name of the object (" + name + ") does not match the name on the URL ("
          + req.name() + ")");
    }
    String ns = scaleMeta.getValue("namespace") instanceof String n ? n : "";
    if (req.namespace() != null && !req.namespace().isEmpty() && !ns.isEmpty() && !ns.equals(req.namespace())) {
      throw StatusException.badRequest("the namespace of the object (" + ns + ") does not match the namespace on the "
          + "URL (" + req.namespace() + ")");
    }
  }

  /**
   * Attempts of a PUT that creates its object and meets one created meanwhile: each attempt updates the object
   * found, or creates it when absent (upstream's {@code GuaranteedUpdate} retries its create in the same way).
   */
  static final int CREATE_ON_UPDATE_ATTEMPTS = 3;

  /**
   * The update of the main resource or {@code status}, in {@code store.go Update}'s order: an absent object is
   * {@code 404}, or created ({@code 201}) when the kind allows create on update (main resource only; the
   * {@code create} verb authorized as well, create admission, a resourceVersion sent ignored); a {@code metadata.uid}
   * sent must be the stored object's ({@code DefaultUpdatedObjectInfo.Preconditions}: {@code 409}); then the
   * resourceVersion sent is read as the storage versioner reads it ({@link #resourceVersion}); a present object
   * needs the stored resourceVersion ({@code 409} when stale), or none when the kind allows unconditional updates
   * ({@link ObjectStrategy#allowUnconditionalUpdate}; otherwise {@code 422} "must be specified for an update", named
   * by the resource as upstream does: {@code leases.coordination.k8s.io "l1" is invalid}).
   *
   * @param in       the object sent
   * @param attempts attempts left ({@link #CREATE_ON_UPDATE_ATTEMPTS})
   * @return 200 with the updated object, or 201 with the created one
   */
  private Future<Written> updateOrCreate(CrdRequest req, JsonObject in, int attempts) {
    ObjectStrategy strategy = rt.strategy();
    String uid = ObjectRules.metadata(in).getValue("uid") instanceof String u ? u : "";
    Future<Written> updated = GuaranteedUpdate.run(rt, req, cur -> {
      checkUid(req, uid, cur.uid());
      String rv = resourceVersion(in);
      JsonObject sent = in.copy();
      if (!rv.isEmpty()) {
        GuaranteedUpdate.checkResourceVersion(req, rv, cur);
        ObjectRules.metadata(sent).put("resourceVersion", rv);
      } else if (strategy.allowUnconditionalUpdate()) {
        ObjectRules.metadata(sent).put("resourceVersion", Long.toString(cur.resourceVersion()));
      } else {
        throw StatusException.invalid(req.gvr(), req.gvr().resource(), req.name(), new JsonArray().add(
            new JsonObject().put("reason", "FieldValueInvalid").put("field", "metadata.resourceVersion")
                .put("message", "Invalid value: 0x0: must be specified for an update")));
      }
      return next(req, cur, sent, false);
    }).map(o -> new Written(200, req.view(o)));
    if (!req.info().subresource().isEmpty() || !strategy.allowCreateOnUpdate()) {
      return updated;
    }
    return updated.recover(t -> {
      if (!(t instanceof io.mvproxy.api.storage.StorageException se
          && se.storageCode() == io.mvproxy.api.storage.StorageException.Code.NOT_FOUND)) {
        return Future.failedFuture(t);
      }
      checkUid(req, uid, "");
      resourceVersion(in);
      JsonObject created = in.copy();
      ObjectRules.metadata(created).remove("resourceVersion");
      return create(req, created, true, false).map(o -> new Written(201, req.view(o))).recover(c ->
          c instanceof StatusException ce && ce.reason() == StatusReason.AlreadyExists && attempts > 1
              ? updateOrCreate(req, in, attempts - 1) : Future.failedFuture(c));
    });
  }

  /**
   * The {@code metadata.resourceVersion} of an update body as the storage versioner reads it
   * ({@code APIObjectVersioner.ObjectResourceVersion}: {@code strconv.ParseUint}, base 10, 64 bits).
   *
   * @return {@code ""} when none is given or it is {@code 0} (both mean "not specified"), else its decimal value
   * @throws StatusException 500 without a reason, Go's text ({@code strconv.ParseUint: parsing "abc": invalid
   *     syntax}, {@code ...: value out of range}), as kube-apiserver answers a storage error that is not a Status
   */
  static String resourceVersion(JsonObject in) {
    String rv = ObjectRules.metadata(in).getValue("resourceVersion") instanceof String s ? s : "";
    if (rv.isEmpty()) {
      return "";
    }
    String parsing = "strconv.ParseUint: parsing " + io.mvproxy.registry.impl.schema.GoValues.quote(rv) + ": ";
    if (!rv.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw StatusException.withoutReason(500, parsing + "invalid syntax");
    }
    java.math.BigInteger v = new java.math.BigInteger(rv);
    if (v.bitLength() > 64) {
      throw StatusException.withoutReason(500, parsing + "value out of range");
    }
    return v.signum() == 0 ? "" : v.toString();
  }

  /**
   * A {@code metadata.uid} in an update body is a precondition on the stored object ({@code rest.defaultUpdatedObjectInfo
   * Preconditions}, checked by the storage's {@code Preconditions.Check}, an absent object's uid being empty).
   *
   * @param uid    the uid sent, {@code ""} for none
   * @param stored the stored object's uid, {@code ""} when absent
   * @throws StatusException 409 Conflict {@code Operation cannot be fulfilled on <resource> "<name>": Precondition
   *     failed: UID in precondition: <uid>, UID in object meta: <stored>}
   */
  static void checkUid(CrdRequest req, String uid, String stored) {
    if (!uid.isEmpty() && !uid.equals(stored)) {
      throw io.mvproxy.api.storage.StorageException.conflict(req.key(), "Precondition failed: UID in precondition: "
          + uid + ", UID in object meta: " + stored).forResource(req.gvr(), req.name());
    }
  }

  /**
   * Authorizes the {@code create} a PUT or a server-side apply makes of an absent object: the request's own verb
   * was {@code update} or {@code patch} ({@code handlers/rest.go withAuthorization} with the handlers'
   * {@code createAuthorizerAttributes}). Nothing to do when the chain has no authorization step.
   *
   * @throws StatusException 403 Forbidden, {@code errors.NewForbidden} with the authorizer's reason:
   *     {@code roles.rbac.authorization.k8s.io "r" is forbidden: <reason>}
   */
  static void authorizeCreate(CrdRequest req) {
    io.mvproxy.api.RequestScope scope = io.mvproxy.api.RequestScope.of(req.ctx());
    io.mvproxy.api.authz.Authorizer authorizer = scope.authorizer();
    if (authorizer == null) {
      return;
    }
    io.mvproxy.api.RequestInfo info = req.info();
    io.mvproxy.api.authz.Decision d = authorizer.authorize(new io.mvproxy.api.authz.Attributes(req.user(), "create",
        true, info.path(), info.namespace(), info.group(), info.version(), info.resource(), info.subresource(),
        info.name()));
    if (!d.allowed()) {
      throw StatusException.forbidden(req.gvr(), req.name(), d.reason());
    }
  }

  /**
   * @param cur      the stored object
   * @param incoming the object sent (main or status) in any served version
   * @param applied  true for server-side apply ({@code incoming} carries the managedFields); false: the write is
   *                 recorded as an Update of its manager
   * @return the next stored object for the request's subresource ({@code ""} or {@code status}), not yet validated
   *     ({@link GuaranteedUpdate#run} validates it, after the mutating webhooks)
   */
  JsonObject next(CrdRequest req, StoredObject cur, JsonObject incoming, boolean applied) {
    boolean status = "status".equals(req.info().subresource());
    JsonObject old = req.stored(cur.object());
    JsonObject in = SchemaDefaults.apply(req.version(), FieldPruner.apply(req, incoming));
    OwnerReferences.dedup(req, in, false);
    JsonObject next;
    if (status && rt.strategy().statusUpdatesMetadata()) {
      // the sent metadata with the update's system fields and checks, the sent status; the kind resets the rest
      next = rt.rules().prepareUpdate(req, old, in.copy());
      if (in.containsKey("status")) {
        next.put("status", in.getValue("status"));
      } else {
        next.remove("status");
      }
    } else {
      next = status ? rt.rules().prepareStatusUpdate(old, in) : rt.rules().prepareUpdate(req, old, in);
    }
    next = rt.strategy().prepareUpdate(req, cur.object(), next);
    if (!applied) {
      FieldManager.update(old, next, manager(req), req.apiVersion(), req.info().subresource(),
          FieldManager.resetFields(req));
    } else if (status && ObjectRules.metadata(incoming).getValue("managedFields") != null) {
      ObjectRules.metadata(next).put("managedFields", ObjectRules.metadata(incoming).getValue("managedFields"));
    }
    return next;
  }

  /** @return the next stored object after setting the replicas of {@code scale}, not yet validated */
  JsonObject scaleTo(CrdRequest req, StoredObject cur, JsonObject scale) {
    OwnerReferences.dedup(req, scale, false);  // update.go / patch.go dedup the Scale too: only the warning shows
    JsonObject applied = ScaleCodec.applyScale(req, cur.object(), scale, req.version().scale());
    JsonObject old = req.stored(cur.object());
    JsonObject next = rt.rules().prepareUpdate(req, old, applied);
    FieldManager.update(old, next, manager(req), req.apiVersion(), "scale", FieldManager.resetFields(req));
    return next;
  }

  /** @return the Update manager of {@code req} ({@link FieldManager#updateManager}) */
  static String manager(CrdRequest req) {
    return FieldManager.updateManager(req.param("fieldManager"), req.ctx().request().getHeader("User-Agent"));
  }
}
