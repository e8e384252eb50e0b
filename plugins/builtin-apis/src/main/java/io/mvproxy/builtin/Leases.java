package io.mvproxy.builtin;

import io.mvproxy.registry.impl.rest.CrdRequest;
import io.mvproxy.registry.impl.rest.ObjectMetaValidator;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.mvproxy.registry.impl.schema.FieldError;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * The field rules of a Lease beyond its schema ({@code pkg/apis/coordination/validation/validation.go}
 * {@code ValidateLeaseSpec}): {@code spec.leaseDurationSeconds} above 0, {@code spec.leaseTransitions} at least 0,
 * {@code spec.strategy} a Kubernetes-defined strategy ({@code OldestEmulationVersion}) or a qualified name with a
 * prefix ({@code ValidateCoordinatedLeaseStrategy}, whose field path repeats {@code strategy} as upstream's does),
 * {@code spec.preferredHolder} only with a {@code spec.strategy}; checked on create and update ({@code 422}, nothing
 * stored).
 */
final class Leases implements ObjectStrategy {
  @Override
  public JsonObject prepareCreate(CrdRequest req, JsonObject obj) {
    return check(req, obj);
  }

  @Override
  public JsonObject prepareUpdate(CrdRequest req, JsonObject old, JsonObject next) {
    return check(req, next);
  }

  /** {@link #validate}'s errors ({@link ObjectStrategy#violations}). */
  @Override
  public io.vertx.core.json.JsonArray violations(CrdRequest req, JsonObject obj, JsonObject oldView) {
    return FieldError.causes(validate(obj));
  }

  private static JsonObject check(CrdRequest req, JsonObject obj) {
    req.failIfInvalid(obj, validate(obj));
    return obj;
  }

  /**
   * @param lease a Lease
   * @return {@code ValidateLeaseSpec}'s violations, in its order
   */
  static List<FieldError> validate(JsonObject lease) {
    List<FieldError> errs = new ArrayList<>();
    JsonObject spec = lease.getValue("spec") instanceof JsonObject s ? s : new JsonObject();
    if (spec.getValue("leaseDurationSeconds") instanceof Number d && d.longValue() <= 0) {
      errs.add(FieldError.invalid("spec.leaseDurationSeconds", d, "must be greater than 0"));
    }
    if (spec.getValue("leaseTransitions") instanceof Number t && t.longValue() < 0) {
      errs.add(FieldError.invalid("spec.leaseTransitions", t, "must be greater than or equal to 0"));
    }
    if (spec.getValue("strategy") instanceof String st) {
      errs.addAll(validateStrategy(st, "spec.strategy"));
    }
    if (spec.getValue("preferredHolder") instanceof String h && !h.isEmpty()
        && !(spec.getValue("strategy") instanceof String st && !st.isEmpty())) {
      errs.add(FieldError.forbidden("spec.preferredHolder", "may only be specified if `strategy` is defined"));
    }
    return errs;
  }

  /**
   * {@code ValidateCoordinatedLeaseStrategy}: a name without {@code /} must be one of {@link #STRATEGIES}, one with
   * {@code /} a qualified name. Upstream appends {@code strategy} to the path it is given, so a Lease's error is at
   * {@code spec.strategy.strategy}; kept, because clients match the text.
   *
   * @param strategy the value
   * @param path the field path of the value
   * @return the violations
   */
  static List<FieldError> validateStrategy(String strategy, String path) {
    String field = path + ".strategy";
    if (!strategy.contains("/")) {
      return STRATEGIES.contains(strategy)
          ? List.of()
          : List.of(FieldError.notSupported(field, strategy, STRATEGIES));
    }
    List<FieldError> errs = new ArrayList<>();
    for (String msg : ObjectMetaValidator.qualifiedName(strategy)) {
      errs.add(FieldError.invalid(field, strategy, msg));
    }
    return errs;
  }

  /** The Kubernetes-defined coordinated lease strategies ({@code validLeaseStrategies}). */
  static final List<String> STRATEGIES = List.of("OldestEmulationVersion");
}
