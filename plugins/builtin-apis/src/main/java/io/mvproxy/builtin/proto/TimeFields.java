package io.mvproxy.builtin.proto;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.List;

/**
 * The integer fields (Go {@code int32} / {@code int64}: a value outside the type, a fraction or another JSON type is
 * the decoder's error, never stored) and the {@code metav1.Time} and {@code metav1.MicroTime} fields of a built-in kind (as {@link ProtoSchemas} lists its
 * fields: an Event's timestamps, a Lease's {@code acquireTime} / {@code renewTime}, a Namespace condition's
 * {@code lastTransitionTime}, and ObjectMeta's {@code creationTimestamp}, {@code deletionTimestamp} and
 * {@code managedFields[].time} of every built-in kind), read as kube-apiserver's typed decoder reads them:
 * {@code Time.UnmarshalJSON} / {@code MicroTime.UnmarshalJSON} ({@code apimachinery/pkg/apis/meta/v1/time.go},
 * {@code micro_time.go}) parse with Go's {@code time.Parse} ({@link GoTime}), and the value is stored as their
 * {@code MarshalJSON} writes it (UTC; whole seconds, or six fractional digits). Custom resources are unstructured and
 * never come here.
 */
public final class TimeFields {
  /**
   * The time fields of the built-in kinds without a protobuf description here (CustomResourceDefinition, APIService,
   * ValidatingAdmissionPolicy, the webhook configurations): ObjectMeta's, and a {@code lastTransitionTime} of each
   * {@code status.conditions} entry, the only time field of their types.
   */
  private static final List<ProtoField> UNDESCRIBED = List.of(ProtoField.msg(1, "metadata", "ObjectMeta"),
      ProtoField.msg(2, "status", "ConditionsStatus"));
  private static final java.util.Map<String, List<ProtoField>> LOCAL = java.util.Map.of(
      "ConditionsStatus", List.of(ProtoField.msgs(1, "conditions", "Condition")),
      "Condition", List.of(ProtoField.of(1, "lastTransitionTime", ProtoField.Type.TIME)));
  /**
   * The integer fields of the described structs that are Go {@code int32} ({@code k8s.io/api} {@code core/v1},
   * {@code events/v1}, {@code coordination/v1} types.go); the others ({@code ObjectMeta.generation},
   * {@code deletionGracePeriodSeconds}, {@code TokenRequestSpec.expirationSeconds}) are {@code int64}.
   */
  private static final java.util.Set<String> INT32 = java.util.Set.of("Event.count", "Event.deprecatedCount",
      "EventSeries.count", "LeaseSpec.leaseDurationSeconds", "LeaseSpec.leaseTransitions");
  private static final java.math.BigInteger INT64_MIN = java.math.BigInteger.valueOf(Long.MIN_VALUE);
  private static final java.math.BigInteger INT64_MAX = java.math.BigInteger.valueOf(Long.MAX_VALUE);
  /** Go's zero {@code time.Time}: {@code MarshalJSON} writes it as {@code null}. */
  private static final Instant ZERO = Instant.parse("0001-01-01T00:00:00Z");

  private TimeFields() {
  }

  /**
   * Checks and rewrites the time fields of {@code obj} in place.
   *
   * @param group the object's API group ({@code ""} for core)
   * @param kind  its kind; for a built-in kind whose fields mvproxy does not describe, {@link #UNDESCRIBED}
   * @param obj   the object (changed in place: every valid time in Go's output form, Go's zero time removed as the
   *              {@code null} Go writes for it; nulls left as they are)
   * @return null when every integer and time decodes, else the decoder's error: an integer's ({@link #integer}),
   *     Go's {@code time.ParseError} text
   *     ({@code parsing time "bad" as "2006-01-02T15:04:05Z07:00": cannot parse "bad" as "2006"}), or for a value
   *     that is not a string {@code encoding/json}'s with its context ({@code json: cannot unmarshal number into Go
   *     struct field EventSeries.series.lastObservedTime of type string}: the innermost struct, the field path)
   */
  public static String normalize(String group, String kind, JsonObject obj) {
    String name = ProtoSchemas.kind(group, kind);
    List<ProtoField> fields = name == null ? null : ProtoSchemas.message(name);
    return walk(obj, fields == null ? UNDESCRIBED : fields, kind, "");
  }

  private static String walk(JsonObject o, List<ProtoField> fields, String struct, String path) {
    for (ProtoField f : fields) {
      Object v = o.getValue(f.json());
      if (v == null) {
        continue;
      }
      String at = path + f.json();
      String err = switch (f.type()) {
        case TIME, MICROTIME -> time(o, f.json(), v, f.type() == ProtoField.Type.MICROTIME, struct + "." + at);
        case INT -> integer(v, struct + "." + at, INT32.contains(struct + "." + f.json()) ? "int32" : "int64");
        case MESSAGE -> message(v, f, at + ".");
        default -> null;
      };
      if (err != null) {
        return err;
      }
    }
    return null;
  }

  private static String message(Object v, ProtoField f, String path) {
    List<ProtoField> inner = LOCAL.containsKey(f.message()) ? LOCAL.get(f.message())
        : ProtoSchemas.message(f.message());
    if (inner == null) {
      return null;
    }
    if (f.repeated() && v instanceof JsonArray a) {
      for (Object x : a) {
        String err = x instanceof JsonObject xo ? walk(xo, inner, f.message(), path) : null;
        if (err != null) {
          return err;
        }
      }
      return null;
    }
    // a value of the wrong JSON type is the type checks' or the schema's to report
    return v instanceof JsonObject vo ? walk(vo, inner, f.message(), path) : null;
  }

  /**
   * {@code encoding/json}'s {@code literalStore} for an integer field: a number {@code strconv.ParseInt} reads and
   * the type holds, else {@code UnmarshalTypeError} with the literal ({@code json: cannot unmarshal number
   * 99999999999 into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32}; {@code 15.0} and
   * {@code 1.5} too); another JSON type without it ({@code cannot unmarshal string into ...}). The literal is the
   * parsed number's text (an exponent form such as {@code 1e3} prints as {@code 1000.0}).
   */
  private static String integer(Object v, String where, String type) {
    String got;
    if (v instanceof Number n) {
      java.math.BigInteger i = n instanceof Integer || n instanceof Long || n instanceof Short || n instanceof Byte
          ? java.math.BigInteger.valueOf(n.longValue()) : n instanceof java.math.BigInteger b ? b : null;
      boolean fits = i != null && ("int32".equals(type)
          ? i.compareTo(java.math.BigInteger.valueOf(Integer.MIN_VALUE)) >= 0
              && i.compareTo(java.math.BigInteger.valueOf(Integer.MAX_VALUE)) <= 0
          : i.compareTo(INT64_MIN) >= 0 && i.compareTo(INT64_MAX) <= 0);
      if (fits) {
        return null;
      }
      got = "number " + n;
    } else {
      got = v instanceof Boolean ? "bool" : v instanceof JsonArray ? "array" : v instanceof JsonObject ? "object"
          : "string";
    }
    return "json: cannot unmarshal " + got + " into Go struct field " + where + " of type " + type;
  }

  private static String time(JsonObject o, String field, Object v, boolean micro, String where) {
    if (!(v instanceof String s)) {
      String type = v instanceof Number ? "number" : v instanceof Boolean ? "bool" : v instanceof JsonArray
          ? "array" : "object";
      return "json: cannot unmarshal " + type + " into Go struct field " + where + " of type string";
    }
    try {
      Instant t = GoTime.parse(s, micro);
      if (t.equals(ZERO)) {
        o.remove(field);  // written as null, which is not stored
      } else {
        o.put(field, GoTime.format(t, micro));
      }
      return null;
    } catch (GoTime.ParseException e) {
      return e.getMessage();
    }
  }
}
