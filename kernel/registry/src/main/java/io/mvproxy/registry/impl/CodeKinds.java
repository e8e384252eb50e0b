package io.mvproxy.registry.impl;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.ApiSourceContext;
import io.mvproxy.api.ForwardingApiSource;
import io.mvproxy.api.StatusException;
import io.mvproxy.registry.FieldViolation;
import io.mvproxy.registry.KindStrategy;
import io.mvproxy.registry.WriteRequest;
import io.mvproxy.registry.impl.model.CrdDefinition;
import io.mvproxy.registry.impl.model.CrdParser;
import io.mvproxy.registry.impl.rest.CrdRequest;
import io.mvproxy.registry.impl.rest.NamespaceAdmission;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.mvproxy.registry.impl.schema.FieldError;
import io.mvproxy.registry.impl.schema.VersionSchema;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * The implementation behind {@link io.mvproxy.registry.Registry#serve}: a code plugin's kind, described as a
 * one-version CRD manifest, parsed with the CRD rules ({@link CrdParser#parse}), built by {@link Kinds#build} over
 * the node's storage at {@code <group>/<plural>}, with the plugin's {@link KindStrategy} adapted to the registry's
 * internal {@link ObjectStrategy} after the NamespaceLifecycle check. The source is wrapped so that the node does not
 * publish it as a CustomResourceDefinition (a kind served by code, as kube-apiserver's built-in kinds, is not one).
 */
public final class CodeKinds {
  private CodeKinds() {
  }

  /**
   * @param manifest the kind as a CRD manifest ({@code KindDefinition.toCustomResourceDefinition()})
   * @param strategy the plugin's strategy (null: none)
   * @param context  the node's services
   * @return the started source, named {@code kind/<plural>.<group>}
   * @throws StatusException 422 Invalid when the manifest breaks a CRD rule
   */
  public static ApiSource serve(JsonObject manifest, KindStrategy strategy, ApiSourceContext context) {
    CrdDefinition crd = CrdParser.parse(manifest);
    KindStrategy s = strategy == null ? KindStrategy.NONE : strategy;
    ObjectStrategy adapted = new NamespaceAdmission(context::namespaceLifecycle).then(new Adapter(s));
    CrdApiSource source = Kinds.build(crd, manifest, context, crd.storageKey(),
        CrdDiscovery.groupVersions(crd, CrdDiscovery.GROUP_PRIORITY, CrdDiscovery.VERSION_PRIORITY,
            adapted::allowsVerb), adapted, CrdSourceOptions.DEFAULTS).start();
    return new CodeKindSource(source, "kind/" + crd.name());
  }

  /** A plugin's {@link KindStrategy} as the registry's {@link ObjectStrategy}. */
  static final class Adapter implements ObjectStrategy {
    private final KindStrategy strategy;

    Adapter(KindStrategy strategy) {
      this.strategy = strategy;
    }

    /** A code kind is a typed kind of its plugin: a body without {@code kind} takes the path's, as a built-in's. */
    @Override
    public boolean requiresKind() {
      return false;
    }

    private static WriteRequest request(CrdRequest req) {
      return new WriteRequest(req.info(), req.user(), req.dryRun());
    }

    @Override
    public JsonObject prepareCreate(CrdRequest req, JsonObject obj) {
      WriteRequest w = request(req);
      JsonObject out = strategy.prepareForCreate(w, obj);
      out = out == null ? obj : out;
      check(req, out, null, strategy.validate(w, out));
      return out;
    }

    @Override
    public JsonObject prepareUpdate(CrdRequest req, JsonObject old, JsonObject next) {
      WriteRequest w = request(req);
      JsonObject oldView = req.stored(old);
      JsonObject out = strategy.prepareForUpdate(w, next, oldView);
      out = out == null ? next : out;
      check(req, out, oldView, strategy.validateUpdate(w, out, oldView));
      return out;
    }

    @Override
    public boolean allowsVerb(String verb) {
      return strategy.allowsVerb(verb);
    }

    /**
     * What {@link #check} would answer for {@code obj}: none when the strategy finds no violation
     * ({@link KindStrategy#validate}, or {@link KindStrategy#validateUpdate} when {@code oldView} is set), else the
     * schema's errors then the strategy's.
     */
    @Override
    public io.vertx.core.json.JsonArray violations(CrdRequest req, JsonObject obj, JsonObject oldView) {
      WriteRequest w = request(req);
      return FieldError.causes(all(req, obj, oldView, oldView == null ? strategy.validate(w, obj)
          : strategy.validateUpdate(w, obj, oldView)));
    }

    /** @return none without violations, else the schema's errors of {@code obj} then the violations */
    private static List<FieldError> all(CrdRequest req, JsonObject obj, JsonObject old,
        List<FieldViolation> violations) {
      if (violations == null || violations.isEmpty()) {
        return List.of();
      }
      List<FieldError> errs = new ArrayList<>();
      VersionSchema vs = req.version().validation();
      if (vs != null) {
        errs.addAll(vs.validate(obj, old, "status".equals(req.info().subresource()), new ArrayList<>()));
      }
      errs.addAll(errors(violations));
      return errs;
    }

    private static List<FieldError> errors(List<FieldViolation> violations) {
      List<FieldError> errs = new ArrayList<>();
      for (FieldViolation v : violations == null ? List.<FieldViolation>of() : violations) {
        errs.add(switch (v.type()) {
          case REQUIRED -> FieldError.required(v.field(), v.detail());
          case INVALID -> FieldError.invalid(v.field(), v.badValue(), v.detail());
          case FORBIDDEN -> FieldError.forbidden(v.field(), v.detail());
          case DUPLICATE -> FieldError.duplicate(v.field(), v.badValue());
          case NOT_SUPPORTED -> new FieldError(v.type().reason(), v.field(), v.badValue(), v.detail());
        });
      }
      return errs;
    }

    /**
     * Answers 422 when the strategy found violations: the schema's errors of the same object first (its warnings
     * are left to the schema validation that follows on success), then the strategy's, as one
     * {@code field.ErrorList}.
     */
    private static void check(CrdRequest req, JsonObject obj, JsonObject old, List<FieldViolation> violations) {
      req.failIfInvalid(obj, all(req, obj, old, violations));
    }
  }

  /**
   * The registry's source of a code kind under its own name, forwarding everything else (readiness, change
   * notifications, status, ...) but the CRD publication capability.
   */
  static final class CodeKindSource extends ForwardingApiSource {
    private final String name;

    /**
     * @param source the registry's source of the kind
     * @param name   {@code kind/<plural>.<group>}
     */
    CodeKindSource(ApiSource source, String name) {
      super(source);
      this.name = name;
    }

    /** @return {@code kind/<plural>.<group>} */
    @Override
    public String name() {
      return name;
    }

    /**
     * Hidden on purpose: the wrapped source is built from a CRD-shaped manifest and would offer it, but a kind
     * served by code (as kube-apiserver's built-in kinds) is no CustomResourceDefinition, and the node publishes
     * the offered manifests of its plugins' sources as stored CRD objects.
     *
     * @return empty
     */
    @Override
    public java.util.Optional<JsonObject> customResourceDefinition() {
      return java.util.Optional.empty();
    }
  }
}
