package io.mvproxy.builtin;

import io.mvproxy.registry.impl.rest.CrdRequest;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Core {@code v1} events as {@code pkg/registry/core/event/strategy.go} selects them: by the involved object,
 * {@code reason}, {@code reportingComponent}, {@code source} (its component) and {@code type}, which is what
 * {@code kubectl describe} and {@code kubectl events --for} ask for; every write passes upstream's
 * {@code legacyValidateEvent} ({@link EventValidation#legacy}).
 */
final class Events implements ObjectStrategy {
  private static final Map<String, String> FIELDS = fields();

  private static Map<String, String> fields() {
    Map<String, String> m = new LinkedHashMap<>();
    for (String f : new String[] {"kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"}) {
      m.put("involvedObject." + f, "involvedObject." + f);
    }
    m.put("reason", "reason");
    m.put("reportingComponent", "reportingComponent");
    m.put("source", "source.component");
    m.put("type", "type");
    return Map.copyOf(m);
  }

  /**
   * A core event's name is checked as {@code rest.BeforeCreate}'s generic metadata check does
   * ({@code path.ValidatePathSegmentName}): {@code ValidateEventCreate} applies no name rule to core {@code v1}.
   */
  @Override
  public java.util.List<String> nameProblems(String name) {
    return io.mvproxy.registry.impl.rest.ObjectMetaValidator.pathSegmentName(name);
  }

  /** A {@code generateName}: {@code path.ValidatePathSegmentName} with {@code prefix} (no '/' or '%'). */
  @Override
  public java.util.List<String> prefixProblems(String prefix) {
    return io.mvproxy.registry.impl.rest.ObjectMetaValidator.pathSegmentPrefix(prefix);
  }

  /** @return true: the legacy rules answer alone; the generic metadata check runs only once they pass */
  @Override
  public boolean kindRulesAlone() {
    return true;
  }

  /** The legacy rules' errors ({@link ObjectStrategy#violations}). */
  @Override
  public io.vertx.core.json.JsonArray violations(CrdRequest req, JsonObject obj, JsonObject oldView) {
    return io.mvproxy.registry.impl.schema.FieldError.causes(EventValidation.legacy(obj, true));
  }

  @Override
  public JsonObject prepareCreate(CrdRequest req, JsonObject obj) {
    req.failIfInvalid(obj, EventValidation.legacy(obj, true));
    return obj;
  }

  @Override
  public JsonObject prepareUpdate(CrdRequest req, JsonObject old, JsonObject next) {
    req.failIfInvalid(next, EventValidation.legacy(next, true));
    return next;
  }

  @Override
  public Map<String, String> selectableFields() {
    return FIELDS;
  }
}
