package io.mvproxy.builtin;

import io.mvproxy.api.Gvr;
import io.mvproxy.api.StatusException;
import io.mvproxy.registry.impl.rest.CrdRequest;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * {@code events.k8s.io/v1} events over the core events' storage ({@code /registry/events}, as kube-apiserver): read
 * in this group's shape and written back as core {@code v1} Events ({@link EventConversion}), so an event recorded
 * through either API is read through the other. A new event needs {@code eventTime} (422 {@code eventTime:
 * Required value}, {@code pkg/apis/core/validation/events.go} for this group).
 */
final class EventsV1 implements ObjectStrategy {
  private static final Gvr EVENTS = new Gvr("events.k8s.io", "v1", "events");

  @Override
  public JsonObject fromStorage(JsonObject stored) {
    return "v1".equals(stored.getString("apiVersion")) ? EventConversion.toEvents(stored) : stored;
  }

  @Override
  public JsonObject prepareCreate(CrdRequest req, JsonObject obj) {
    if (!(obj.getValue("eventTime") instanceof String t) || t.isEmpty()) {
      String name = obj.getJsonObject("metadata", new JsonObject()).getString("name", "");
      throw StatusException.invalid(EVENTS, "Event", name, new JsonArray().add(new JsonObject()
          .put("reason", "FieldValueRequired").put("message", "Required value").put("field", "eventTime")));
    }
    return EventConversion.toCore(obj);
  }

  @Override
  public JsonObject prepareUpdate(CrdRequest req, JsonObject old, JsonObject next) {
    return EventConversion.toCore(next);
  }
}
