package io.mvproxy.builtin;

import io.mvproxy.registry.impl.rest.CrdRequest;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.mvproxy.registry.impl.schema.FieldError;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * The field rules of a Lease beyond its schema ({@code pkg/apis/coordination/validation/validation.go}
 * {@code ValidateLeaseSpec}): {@code spec.leaseDurationSeconds} above 0, {@code spec.leaseTransitions} at least 0,
 * {@code spec.preferredHolder} only with a {@code spec.strategy}; checked on create and update ({@code 422}, nothing
 * stored). The strategy's own value rule (coordinated leader election) is not checked.
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
    if (spec.getValue("preferredHolder") instanceof String h && !h.isEmpty()
        && !(spec.getValue("strategy") instanceof String st && !st.isEmpty())) {
      errs.add(FieldError.forbidden("spec.preferredHolder", "may only be specified if `strategy` is defined"));
    }
    return errs;
  }
}
