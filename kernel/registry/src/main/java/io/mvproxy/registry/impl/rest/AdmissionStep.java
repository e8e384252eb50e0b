package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.admission.Admission;
import io.mvproxy.registry.impl.model.CrdVersion;
import io.mvproxy.registry.impl.schema.VersionSchema;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * The webhook admission step of the write path (kube-apiserver's admission chain in
 * {@code endpoints/handlers/create.go}, {@code update.go}, {@code patch.go}, {@code delete.go}): builds the
 * {@link Admission.Attributes} of a request in the version it addresses and maps the mutated object back to storage
 * form (pruned and defaulted by the version's schema, as kube-apiserver decodes a patched custom resource).
 */
final class AdmissionStep {
  private AdmissionStep() {
  }

  /**
   * @param rt the runtime
   * @return the node's admission when webhook configurations exist, else null (nothing to call)
   */
  static Admission active(CrdRuntime rt) {
    Admission a = rt.admission();
    return a != null && a.active() ? a : null;
  }

  /**
   * @param req       the request
   * @param operation CREATE, UPDATE or DELETE
   * @param object    the new object in storage form (null for DELETE)
   * @param old       the stored object in storage form (null for CREATE)
   * @param options   the operation's options object
   * @return the attributes, objects in the request's version
   */
  static Admission.Attributes attributes(CrdRequest req, String operation, JsonObject object, JsonObject old,
                                         JsonObject options) {
    List<String> others = new ArrayList<>();
    for (CrdVersion v : req.crd().servedVersions()) {
      if (!v.name().equals(req.version().name())) {
        others.add(v.name());
      }
    }
    JsonObject md = object != null ? ObjectRules.metadata(object) : old != null ? ObjectRules.metadata(old)
        : new JsonObject();
    String name = req.name() != null && !req.name().isEmpty() ? req.name() : md.getString("name", "");
    return new Admission.Attributes(req.crd().group(), req.version().name(), req.crd().plural(),
        req.info().subresource() == null ? "" : req.info().subresource(), req.crd().kind(),
        req.crd().namespaced() ? req.namespace() : "", name, operation, inRequestVersion(req, object),
        old == null ? null : req.view(old), options, req.dryRun(), req.user(), req.crd().namespaced(), others,
        w -> warn(req, w), (k, v) -> annotate(req, k, v));
  }

  /**
   * Adds an audit annotation of admission ({@code admission.Attributes.AddAnnotation}, {@code checkKeyFormat}): the
   * key must be a qualified name {@code <DNS subdomain prefix>/<name>}, and a key already set keeps its value
   * (admission annotations are not overridden); a refused one is logged, as upstream.
   */
  private static void annotate(CrdRequest req, String key, String value) {
    io.mvproxy.api.RequestScope scope = req.ctx() == null ? null : io.mvproxy.api.RequestScope.of(req.ctx());
    if (scope == null || !scope.auditing()) {
      return;
    }
    List<String> problems = key.split("/", -1).length != 2 ? List.of("the right format is a DNS subdomain prefix "
        + "and '/' and key name") : ObjectMetaValidator.qualifiedName(key);
    String old = scope.auditAnnotations().get(key);
    if (!problems.isEmpty() || old != null && !old.equals(value)) {
      java.util.logging.Logger.getLogger(AdmissionStep.class.getName()).warning("admission: audit annotation " + key
          + " not set: " + (problems.isEmpty() ? "admission annotations are not allowed to be overridden, old value: "
          + old : "annotation key has invalid format: " + String.join(",", problems)));
      return;
    }
    scope.annotate(key, value);
  }

  /** Adds a warning to the response ({@link io.mvproxy.api.Warnings#add}, apiserver's {@code warning.AddWarning}). */
  private static void warn(CrdRequest req, String text) {
    io.mvproxy.api.Warnings.add(req.ctx(), text);
  }

  private static JsonObject inRequestVersion(CrdRequest req, JsonObject o) {
    return o == null ? null : o.copy().put("apiVersion", req.apiVersion());
  }

  /**
   * @param req      the request
   * @param original the object before mutation, storage form
   * @param mutated  the object the webhooks returned (the same instance when unchanged)
   * @return storage form: {@code original} when unchanged, else the mutated copy with the storage apiVersion,
   *     pruned and defaulted with the request version's schema
   * @throws io.mvproxy.api.StatusException 422 {@code kind: Invalid value: "X": must be <Kind>} when a webhook changed
   *     the kind (apiextensions' {@code ValidateTypeMeta})
   */
  static JsonObject toStorage(CrdRequest req, JsonObject original, JsonObject mutated, JsonObject sent) {
    if (mutated == sent) {
      return original;
    }
    Object kind = mutated.getValue("kind");
    if (!req.crd().kind().equals(kind)) {
      Object name = mutated.getValue("metadata") instanceof JsonObject md ? md.getValue("name") : null;
      throw io.mvproxy.api.StatusException.invalid(req.gvr(), req.crd().kind(), name instanceof String n ? n : "",
          new io.vertx.core.json.JsonArray().add(new JsonObject().put("reason", "FieldValueInvalid").put("field",
              "kind").put("message", "Invalid value: " + io.mvproxy.registry.impl.schema.GoValues.quote(String.valueOf(kind))
              + ": must be " + req.crd().kind())));
    }
    JsonObject o = mutated.copy();
    o.put("apiVersion", original.getValue("apiVersion"));
    o.put("kind", original.getValue("kind"));
    VersionSchema schema = req.version().validation();
    if (schema != null) {
      schema.prune(o);
    }
    return SchemaDefaults.apply(req.version(), o);
  }

  /** @return {@code meta.k8s.io/v1} options of kind {@code kind} with the request's dryRun and fieldManager */
  static JsonObject options(CrdRequest req, String kind) {
    JsonObject o = new JsonObject().put("kind", kind).put("apiVersion", "meta.k8s.io/v1");
    if (req.dryRun()) {
      o.put("dryRun", new io.vertx.core.json.JsonArray().add("All"));
    }
    String fm = req.param("fieldManager");
    if (fm != null && !fm.isEmpty()) {
      o.put("fieldManager", fm);
    }
    if (io.mvproxy.api.BoolParam.of(req.param("force"))) {
      o.put("force", true);
    }
    return o;
  }

  /**
   * Mutates, validates against the schema, then runs the validating webhooks (the order of kube-apiserver's
   * create and update paths).
   *
   * @param a         the admission
   * @param rules     the kind's object rules (applied again to a mutated object)
   * @param req       the request
   * @param operation CREATE or UPDATE
   * @param next      the object about to be stored, storage form, not yet validated
   * @param old       the stored object (storage form) for UPDATE, else null
   * @param oldView   the stored object as the schema validation sees it ({@code req.stored}) or null
   * @param optionsKind the options kind ({@code CreateOptions}, {@code UpdateOptions}, {@code PatchOptions})
   * @return the object to store; fails 400 when a mutating webhook moved it to another namespace, 422 when it made
   *     the metadata invalid or renamed an updated object ({@link ObjectRules#afterMutation})
   */
  static Future<JsonObject> admit(Admission a, ObjectRules rules, CrdRequest req, String operation, JsonObject next,
                                  JsonObject old, JsonObject oldView, String optionsKind) {
    Admission.Attributes attrs = attributes(req, operation, next, old, options(req, optionsKind));
    JsonObject sent = attrs.object();
    return a.mutate(attrs).compose(mutated -> {
      JsonObject converted = toStorage(req, next, mutated, sent);
      if (converted != next) {
        OwnerReferences.dedup(req, converted, true);
      }
      JsonObject stored = converted == next ? next : rules.afterMutation(req, converted, next, oldView);
      validateSchema(req, stored, oldView);
      return a.validate(attrs.withObject(inRequestVersion(req, stored))).compose(v -> withinDeadline(req, stored));
    });
  }

  /** kube-apiserver's text of the {@code 504} of a request past its deadline ({@code filters/timeout.go}). */
  static final String TIMEOUT_MESSAGE = "Timeout: request did not complete within the allotted timeout";

  /**
   * Checks, after the (asynchronous) admission and before the storage write, that the request's deadline
   * ({@link io.mvproxy.api.RequestScope#deadlineMillis()}) has not passed: kube-apiserver's storage call runs in the
   * request's context, cancelled at the deadline, so a write whose webhooks outlived it is never stored (its client
   * already got the {@code 504}).
   *
   * @param req   the request
   * @param value what the write goes on with
   * @return {@code value}, or a failed future with {@code 504 Timeout} when the deadline passed
   */
  static <T> Future<T> withinDeadline(CrdRequest req, T value) {
    long deadline = req.ctx() == null ? 0 : io.mvproxy.api.RequestScope.of(req.ctx()).deadlineMillis();
    if (deadline > 0 && System.currentTimeMillis() >= deadline) {
      return Future.failedFuture(new io.mvproxy.api.StatusException(io.mvproxy.api.StatusReason.Timeout,
          TIMEOUT_MESSAGE, new JsonObject()));
    }
    return Future.succeededFuture(value);
  }

  /** The schema validation and size bounds of {@link Writes} on the object about to be stored. */
  static void validateSchema(CrdRequest req, JsonObject next, JsonObject oldView) {
    SchemaValidator.validate(req, next, oldView, "status".equals(req.info().subresource()));
    ObjectBounds.check(req, next);
  }
}
