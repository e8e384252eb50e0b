package io.mvproxy.builtin;

import io.mvproxy.registry.impl.rest.CrdRequest;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.mvproxy.registry.impl.schema.FieldError;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code events.k8s.io/v1} events over the core events' storage ({@code /registry/events}, as kube-apiserver): read
 * in this group's shape and written back as core {@code v1} Events ({@link EventConversion}), so an event recorded
 * through either API is read through the other. Writes pass upstream's rules for this group
 * ({@link EventValidation}: legacy, then the strict create or update rules; 422 with every cause).
 */
final class EventsV1 implements ObjectStrategy {
  @Override
  public JsonObject fromStorage(JsonObject stored) {
    return "v1".equals(stored.getString("apiVersion")) ? EventConversion.toEvents(stored) : stored;
  }

  /**
   * The errors of a copy's core form ({@link ObjectStrategy#violations}): the legacy rules, and a create's strict
   * ones (an update's immutability rules are left to {@link #prepareUpdate}, which compares stored forms).
   */
  @Override
  public io.vertx.core.json.JsonArray violations(CrdRequest req, JsonObject obj, JsonObject oldView) {
    JsonObject core = EventConversion.toCore(obj.copy());
    List<FieldError> errs = new ArrayList<>(EventValidation.legacy(core, false));
    if (oldView == null) {
      errs.addAll(EventValidation.strictCreate(core));
    }
    return FieldError.causes(errs);
  }

  /** @return true: core's {@code ValidateObjectMeta} checks this kind's finalizer names */
  @Override
  public boolean kubeFinalizerNames() {
    return true;
  }

  @Override
  public JsonObject prepareCreate(CrdRequest req, JsonObject obj) {
    JsonObject core = EventConversion.toCore(obj);
    List<FieldError> errs = new ArrayList<>(EventValidation.legacy(core, false));
    errs.addAll(EventValidation.strictCreate(core));
    req.failIfInvalid(obj, errs);
    return core;
  }

  @Override
  public JsonObject prepareUpdate(CrdRequest req, JsonObject old, JsonObject next) {
    JsonObject core = EventConversion.toCore(next);
    List<FieldError> errs = new ArrayList<>(EventValidation.legacy(core, false));
    errs.addAll(EventValidation.strictUpdate(core, old));
    req.failIfInvalid(next, errs);
    return core;
  }
}
