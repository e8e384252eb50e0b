package io.mvproxy.builtin;

import io.mvproxy.registry.impl.rest.ObjectMetaValidator;
import io.mvproxy.registry.impl.schema.FieldError;
import io.mvproxy.registry.impl.schema.GoValues;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The rules of an Event, core {@code v1} or {@code events.k8s.io/v1}, as {@code pkg/apis/core/validation/events.go}
 * checks the internal event both APIs store: {@code legacyValidateEvent} for every write (the involved object's
 * namespace against the event's; a new-style event, one with {@code eventTime}, needs a qualified-name reporting
 * controller, a reporting instance, an action and a reason, within their length limits), and for
 * {@code events.k8s.io/v1} the strict create rules ({@code eventTime} required, {@code type} Normal or Warning, the
 * deprecated fields unset, a valid {@code series}) and the update rules (every field but metadata and a changed
 * series immutable). Each method takes the event in its core {@code v1} form ({@link EventConversion#toCore}) and
 * names fields as upstream does (the internal names; {@code reportingComponent} for a core request).
 */
final class EventValidation {
  /** {@code ReportingInstanceLengthLimit}, {@code ActionLengthLimit}, {@code ReasonLengthLimit}: bytes. */
  static final int SHORT_LIMIT = 128;
  /** {@code NoteLengthLimit}: bytes. */
  static final int NOTE_LIMIT = 1024;
  private static final DateTimeFormatter GO_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
      .withZone(ZoneOffset.UTC);

  private EventValidation() {
  }

  /**
   * {@code legacyValidateEvent}.
   *
   * @param event       the event (core form) with its {@code metadata.namespace}
   * @param coreRequest true when written through core {@code v1}
   * @return the violations, in upstream's order
   */
  static List<FieldError> legacy(JsonObject event, boolean coreRequest) {
    List<FieldError> errs = new ArrayList<>();
    String ns = str(event.getJsonObject("metadata", new JsonObject()), "namespace");
    String involvedNs = str(obj(event, "involvedObject"), "namespace");
    String controllerPath = coreRequest ? "reportingComponent" : "reportingController";
    if (str(event, "eventTime").isEmpty()) {
      if (involvedNs.isEmpty() ? !ns.isEmpty() && !"default".equals(ns) : !ns.equals(involvedNs)) {
        errs.add(FieldError.invalid("involvedObject.namespace", involvedNs, "does not match event.namespace"));
      }
    } else {
      if (involvedNs.isEmpty() && !"default".equals(ns) && !"kube-system".equals(ns)) {
        errs.add(FieldError.invalid("involvedObject.namespace", involvedNs, "does not match event.namespace"));
      }
      String controller = str(event, "reportingComponent");
      if (controller.isEmpty()) {
        errs.add(FieldError.required(controllerPath, ""));
      }
      for (String msg : ObjectMetaValidator.qualifiedName(controller)) {
        errs.add(FieldError.invalid(controllerPath, controller, msg));
      }
      limited(event, "reportingInstance", SHORT_LIMIT, true, errs);
      limited(event, "action", SHORT_LIMIT, true, errs);
      limited(event, "reason", SHORT_LIMIT, true, errs);
      limited(event, "message", NOTE_LIMIT, false, errs);
    }
    for (String msg : ObjectMetaValidator.dns1123Subdomain(ns)) {
      errs.add(FieldError.invalid("namespace", ns, msg));
    }
    return errs;
  }

  /**
   * {@code ValidateEventCreate} for {@code events.k8s.io/v1} (after {@link #legacy}).
   *
   * @param event the event (core form)
   * @return the strict violations
   */
  static List<FieldError> strictCreate(JsonObject event) {
    List<FieldError> errs = new ArrayList<>(series(event));
    if (str(event, "eventTime").isEmpty()) {
      errs.add(FieldError.required("eventTime", ""));
    }
    String type = str(event, "type");
    if (!"Normal".equals(type) && !"Warning".equals(type)) {
      errs.add(FieldError.invalid("type", "", "has invalid value: " + type));
    }
    for (String f : new String[] {"firstTimestamp", "lastTimestamp"}) {
      if (!str(event, f).isEmpty()) {
        errs.add(FieldError.invalid(f, "", "needs to be unset"));
      }
    }
    if (event.getValue("count") instanceof Number n && n.longValue() != 0) {
      errs.add(FieldError.invalid("count", "", "needs to be unset"));
    }
    JsonObject source = obj(event, "source");
    if (!str(source, "component").isEmpty() || !str(source, "host").isEmpty()) {
      errs.add(FieldError.invalid("source", "", "needs to be unset"));
    }
    return errs;
  }

  /**
   * {@code ValidateEventUpdate} for {@code events.k8s.io/v1} (after {@link #legacy}): a changed series is validated
   * again; the other fields are immutable ({@code field is immutable}, the event time to the microsecond).
   *
   * @param next the updated event (core form)
   * @param old  the stored event (core form)
   * @return the strict violations
   */
  static List<FieldError> strictUpdate(JsonObject next, JsonObject old) {
    List<FieldError> errs = new ArrayList<>();
    if (!Objects.equals(next.getValue("series"), old.getValue("series"))) {
      errs.addAll(series(next));
    }
    immutable(next, old, "involvedObject", errs);
    immutable(next, old, "reason", errs);
    immutable(next, old, "message", errs);
    immutable(next, old, "source", errs);
    immutable(next, old, "firstTimestamp", errs);
    immutable(next, old, "lastTimestamp", errs);
    immutable(next, old, "count", errs);
    immutable(next, old, "reason", errs);
    immutable(next, old, "type", errs);
    if (!Objects.equals(micros(str(next, "eventTime")), micros(str(old, "eventTime")))) {
      immutable(next, old, "eventTime", errs);
    }
    immutable(next, old, "action", errs);
    immutable(next, old, "related", errs);
    String controller = str(next, "reportingComponent");
    if (!controller.equals(str(old, "reportingComponent"))) {
      errs.add(FieldError.invalid("reportingController", controller, "field is immutable"));
    }
    immutable(next, old, "reportingInstance", errs);
    return errs;
  }

  /** {@code validateV1EventSeries}. */
  private static List<FieldError> series(JsonObject event) {
    List<FieldError> errs = new ArrayList<>();
    if (event.getValue("series") instanceof JsonObject s) {
      if (!(s.getValue("count") instanceof Number n) || n.longValue() < 2) {
        errs.add(FieldError.invalid("series.count", "", "should be at least 2"));
      }
      if (str(s, "lastObservedTime").isEmpty()) {
        errs.add(FieldError.required("series.lastObservedTime", ""));
      }
    }
    return errs;
  }

  private static void limited(JsonObject event, String field, int limit, boolean required, List<FieldError> errs) {
    String v = str(event, field);
    if (required && v.isEmpty()) {
      errs.add(FieldError.required(field, ""));
    }
    if (v.getBytes(StandardCharsets.UTF_8).length > limit) {
      errs.add(FieldError.invalid(field, "", "can have at most " + limit + " characters"));
    }
  }

  /** {@code ValidateImmutableField}: the new value shown as Go shows the typed field's value. */
  private static void immutable(JsonObject next, JsonObject old, String field, List<FieldError> errs) {
    Object a = next.getValue(field);
    Object b = old.getValue(field);
    if (zero(a) && zero(b) || Objects.equals(a, b)) {
      return;
    }
    errs.add(FieldError.invalid(field, goValue(field, a), "field is immutable"));
  }

  private static boolean zero(Object v) {
    return v == null || "".equals(v) || v instanceof Number n && n.longValue() == 0
        || v instanceof JsonObject o && o.isEmpty();
  }

  /** @return the value as {@code field.Error} prints the internal type's value */
  private static Object goValue(String field, Object v) {
    return switch (field) {
      case "involvedObject" -> reference(v instanceof JsonObject o ? o : new JsonObject());
      case "related" -> v instanceof JsonObject o ? reference(o) : null;
      case "source" -> {
        JsonObject o = v instanceof JsonObject s ? s : new JsonObject();
        yield new GoValues.Raw("core.EventSource{Component:" + GoValues.quote(str(o, "component")) + ", Host:"
            + GoValues.quote(str(o, "host")) + "}");
      }
      case "firstTimestamp", "lastTimestamp", "eventTime" -> new GoValues.Raw(goTime(v instanceof String s ? s : ""));
      case "count" -> v instanceof Number n ? n.longValue() : 0L;
      default -> v == null ? "" : v;
    };
  }

  private static GoValues.Raw reference(JsonObject o) {
    StringBuilder sb = new StringBuilder("core.ObjectReference{");
    String[][] fields = {{"Kind", "kind"}, {"Namespace", "namespace"}, {"Name", "name"}, {"UID", "uid"},
        {"APIVersion", "apiVersion"}, {"ResourceVersion", "resourceVersion"}, {"FieldPath", "fieldPath"}};
    for (int i = 0; i < fields.length; i++) {
      sb.append(i > 0 ? ", " : "").append(fields[i][0]).append(':').append(GoValues.quote(str(o, fields[i][1])));
    }
    return new GoValues.Raw(sb.append('}').toString());
  }

  /** @return Go's {@code time.Time.String()} of an RFC 3339 time in UTC, the zero time when empty */
  static String goTime(String rfc3339) {
    Instant t;
    try {
      t = Instant.parse(rfc3339.isEmpty() ? "0001-01-01T00:00:00Z" : rfc3339);
    } catch (java.time.format.DateTimeParseException e) {
      return GoValues.quote(rfc3339);
    }
    String frac = t.getNano() == 0 ? "" : ("." + String.format("%09d", t.getNano())).replaceAll("0+$", "");
    return GO_TIME.format(t) + frac + " +0000 UTC";
  }

  private static Instant micros(String rfc3339) {
    try {
      return rfc3339.isEmpty() ? null : Instant.parse(rfc3339).truncatedTo(ChronoUnit.MICROS);
    } catch (java.time.format.DateTimeParseException e) {
      return null;
    }
  }

  private static JsonObject obj(JsonObject o, String key) {
    return o.getValue(key) instanceof JsonObject v ? v : new JsonObject();
  }

  private static String str(JsonObject o, String key) {
    return o.getValue(key) instanceof String v ? v : "";
  }
}
