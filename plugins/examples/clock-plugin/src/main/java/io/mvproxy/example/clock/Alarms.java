package io.mvproxy.example.clock;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.ApiSourceContext;
import io.mvproxy.registry.FieldViolation;
import io.mvproxy.registry.KindDefinition;
import io.mvproxy.registry.KindStrategy;
import io.mvproxy.registry.Registry;
import io.mvproxy.registry.WriteRequest;
import io.vertx.core.json.JsonObject;
import java.time.DateTimeException;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * {@code time.example.com/v1} {@code alarms}: a namespaced, stored kind declared through the registry's public API
 * ({@code io.mvproxy.registry}) and served by the node's generic registry, so it has the full REST surface (create,
 * get, list, watch, update, patch, apply, delete, Tables, selectors) with its objects in the fleet's storage. The
 * schema requires {@code spec.time} (RFC 3339), defaults {@code spec.timeZone} to {@code UTC} and
 * {@code spec.snoozeMinutes} to 5 (at most 60); the {@link Strategy} rejects an unknown time zone and sets
 * {@code status} (the alarm time in its zone, and whether it is still {@code Scheduled} or already {@code Past}).
 */
public final class Alarms {
  /** The kind as the plugin declares it. */
  static final KindDefinition KIND = KindDefinition.builder(ClockSource.GV.group(), ClockSource.GV.version(),
          "Alarm", "alarms")
      .shortNames("alm")
      .statusSubresource()
      .schema(new JsonObject("""
          {"type": "object", "required": ["spec"], "properties": {
            "spec": {"type": "object", "required": ["time"], "properties": {
              "time": {"type": "string", "format": "date-time", "description": "when it rings (RFC 3339)"},
              "timeZone": {"type": "string", "default": "UTC", "description": "an IANA time zone"},
              "message": {"type": "string", "maxLength": 200},
              "snoozeMinutes": {"type": "integer", "minimum": 0, "maximum": 60, "default": 5}}},
            "status": {"type": "object", "properties": {
              "state": {"type": "string", "enum": ["Scheduled", "Past"]},
              "localTime": {"type": "string"}}}}}
          """))
      .column("Time", "string", ".spec.time")
      .column("Zone", "string", ".spec.timeZone")
      .column("State", "string", ".status.state")
      .column(new KindDefinition.Column("Local Time", "string", ".status.localTime", "the time in its zone", 1))
      .column("Age", "date", ".metadata.creationTimestamp")
      .build();

  private Alarms() {
  }

  /**
   * @param context the node's services, as given to the provider
   * @return the alarms' API source, served by the node's registry
   */
  static ApiSource source(ApiSourceContext context) {
    return Registry.serve(KIND, new Strategy(), context);
  }

  /** The alarms' behaviour beyond their schema. */
  static final class Strategy implements KindStrategy {
    @Override
    public JsonObject prepareForCreate(WriteRequest req, JsonObject obj) {
      return withStatus(obj);
    }

    @Override
    public List<FieldViolation> validate(WriteRequest req, JsonObject obj) {
      return validZone(obj);
    }

    @Override
    public JsonObject prepareForUpdate(WriteRequest req, JsonObject obj, JsonObject old) {
      return req.status() ? obj : withStatus(obj);
    }

    @Override
    public List<FieldViolation> validateUpdate(WriteRequest req, JsonObject obj, JsonObject old) {
      return validZone(obj);
    }

    private static List<FieldViolation> validZone(JsonObject obj) {
      Object zone = spec(obj).getValue("timeZone");
      if (zone instanceof String z && zone(z) == null) {
        return List.of(FieldViolation.invalid("spec.timeZone", z, "not a known time zone"));
      }
      return List.of();
    }

    /** Sets {@code status} from {@code spec}; leaves it out while the spec is not valid (validation answers). */
    private static JsonObject withStatus(JsonObject obj) {
      JsonObject spec = spec(obj);
      ZoneId zone = spec.getValue("timeZone") instanceof String z ? zone(z) : null;
      if (zone == null || !(spec.getValue("time") instanceof String t)) {
        return obj;
      }
      try {
        OffsetDateTime at = OffsetDateTime.parse(t);
        obj.put("status", new JsonObject()
            .put("state", at.toInstant().isAfter(java.time.Instant.now()) ? "Scheduled" : "Past")
            .put("localTime", at.atZoneSameInstant(zone).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME)));
      } catch (DateTimeException e) {
        // not RFC 3339: the schema's format check answers 422
      }
      return obj;
    }

    private static JsonObject spec(JsonObject obj) {
      return obj.getValue("spec") instanceof JsonObject s ? s : new JsonObject();
    }

    private static ZoneId zone(String id) {
      try {
        return ZoneId.of(id);
      } catch (DateTimeException e) {
        return null;
      }
    }
  }
}
