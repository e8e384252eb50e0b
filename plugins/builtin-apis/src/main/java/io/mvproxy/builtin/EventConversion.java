package io.mvproxy.builtin;

import io.vertx.core.json.JsonObject;
import java.util.Map;

/**
 * Conversion between core {@code v1} Events (the stored form) and {@code events.k8s.io/v1} Events, field by field
 * as {@code pkg/apis/events/v1/conversion.go}: {@code regarding} / {@code involvedObject}, {@code note} /
 * {@code message}, {@code reportingController} / {@code reportingComponent}, {@code deprecatedSource},
 * {@code deprecatedFirstTimestamp}, {@code deprecatedLastTimestamp}, {@code deprecatedCount} / {@code source},
 * {@code firstTimestamp}, {@code lastTimestamp}, {@code count}; every other field has the same name in both.
 */
final class EventConversion {
  /** events.k8s.io/v1 field to core v1 field. */
  private static final Map<String, String> TO_CORE = Map.of("regarding", "involvedObject", "note", "message",
      "reportingController", "reportingComponent", "deprecatedSource", "source",
      "deprecatedFirstTimestamp", "firstTimestamp", "deprecatedLastTimestamp", "lastTimestamp",
      "deprecatedCount", "count");
  private static final Map<String, String> TO_EVENTS = Map.of("involvedObject", "regarding", "message", "note",
      "reportingComponent", "reportingController", "source", "deprecatedSource", "firstTimestamp",
      "deprecatedFirstTimestamp", "lastTimestamp", "deprecatedLastTimestamp", "count", "deprecatedCount");

  /**
   * Strings that are {@code omitempty} in the target version: an empty one is Go's zero value there and never shown
   * (core v1's {@code reportingComponent} and {@code reportingInstance} have no omitempty and are kept).
   */
  private static final java.util.Set<String> CORE_OMIT_EMPTY = java.util.Set.of("reason", "message", "type",
      "action");
  private static final java.util.Set<String> EVENTS_OMIT_EMPTY = java.util.Set.of("reportingController",
      "reportingInstance", "action", "reason", "note", "type");

  private EventConversion() {
  }

  /** @param o an events.k8s.io/v1 Event @return the same event as a core v1 Event (a new object) */
  static JsonObject toCore(JsonObject o) {
    return rename(o, TO_CORE, "v1", CORE_OMIT_EMPTY);
  }

  /** @param o a core v1 Event @return the same event as an events.k8s.io/v1 Event (a new object) */
  static JsonObject toEvents(JsonObject o) {
    return rename(o, TO_EVENTS, "events.k8s.io/v1", EVENTS_OMIT_EMPTY);
  }

  private static JsonObject rename(JsonObject o, Map<String, String> names, String apiVersion,
      java.util.Set<String> omitEmpty) {
    JsonObject out = new JsonObject();
    for (Map.Entry<String, Object> e : o) {
      String k = names.getOrDefault(e.getKey(), e.getKey());
      if ("apiVersion".equals(k)) {
        out.put(k, apiVersion);
      } else if (("count".equals(k) || "deprecatedCount".equals(k)) && Long.valueOf(0).equals(asLong(e.getValue()))
          || omitEmpty.contains(k) && "".equals(e.getValue())) {
        continue;  // Go's zero value of an omitempty field
      } else {
        out.put(k, e.getValue());
      }
    }
    return out;
  }

  private static Long asLong(Object v) {
    return v instanceof Number n ? n.longValue() : null;
  }
}
