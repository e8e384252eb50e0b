package io.mvproxy.crd.rest;

import io.mvproxy.api.StatusException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Set;

/**
 * Validates a custom object against its version's structural {@code openAPIV3Schema}, the essentials of
 * {@code apiextensions-apiserver/pkg/apiserver/validation} (kube-openapi validate): {@code type} (with
 * {@code x-kubernetes-int-or-string} and {@code x-kubernetes-preserve-unknown-fields}), {@code required},
 * {@code enum}, {@code minimum}/{@code maximum} (and exclusive), {@code minLength}/{@code maxLength},
 * {@code minItems}/{@code maxItems}. Not checked: {@code pattern}, {@code format}, {@code oneOf}/{@code anyOf}/
 * {@code allOf}/{@code not}, {@code x-kubernetes-validations} (CEL), list-type uniqueness. Nulls are accepted.
 * Root {@code apiVersion}, {@code kind} and {@code metadata} are not validated here.
 */
public final class SchemaValidator {
  private static final Set<String> TYPE_META = Set.of("apiVersion", "kind", "metadata");

  private SchemaValidator() {
  }

  /**
   * @param req the request (version schema, resource and kind for the error)
   * @param o   the object about to be stored
   * @throws StatusException 422 Invalid with one cause per violation
   */
  public static void validate(CrdRequest req, JsonObject o) {
    JsonObject schema = req.version().schema();
    if (schema == null) {
      return;
    }
    JsonArray causes = new JsonArray();
    JsonObject props = schema.getValue("properties") instanceof JsonObject p ? p : new JsonObject();
    for (String key : o.fieldNames()) {
      if (!TYPE_META.contains(key) && props.getValue(key) instanceof JsonObject ps) {
        check(o.getValue(key), ps, key, causes);
      }
    }
    required(o, schema, "", causes);
    if (!causes.isEmpty()) {
      String name = o.getJsonObject("metadata", new JsonObject()).getString("name", "");
      throw StatusException.invalid(req.gvr(), req.crd().kind(), name, causes);
    }
  }

  private static void check(Object v, JsonObject s, String path, JsonArray causes) {
    if (v == null) {
      return;
    }
    String type = s.getString("type", "");
    boolean intOrString = Boolean.TRUE.equals(s.getValue("x-kubernetes-int-or-string"));
    if (intOrString) {
      if (!(isInteger(v) || v instanceof String)) {
        typeError(v, path, "integer or string", causes);
        return;
      }
    } else if (!type.isEmpty() && !hasType(v, type)) {
      typeError(v, path, type, causes);
      return;
    }
    if (s.getValue("enum") instanceof JsonArray e && !e.isEmpty() && !e.contains(v)) {
      StringBuilder sb = new StringBuilder();
      e.forEach(x -> sb.append(sb.length() == 0 ? "" : ", ").append(quote(x)));
      causes.add(cause("FieldValueNotSupported", path, "Unsupported value: " + quote(v) + ": supported values: "
          + sb));
    }
    if (v instanceof Number n) {
      numberBounds(n, s, path, causes);
    } else if (v instanceof String str) {
      if (s.getValue("maxLength") instanceof Number max && str.length() > max.longValue()) {
        causes.add(cause("FieldValueTooLong", path, "Too long: may not be more than " + max.longValue()
            + " bytes"));
      }
      if (s.getValue("minLength") instanceof Number min && str.length() < min.longValue()) {
        causes.add(cause("FieldValueInvalid", path, "Invalid value: " + quote(str) + ": " + path
            + " in body should be at least " + min.longValue() + " chars long"));
      }
    } else if (v instanceof JsonArray a) {
      if (s.getValue("maxItems") instanceof Number max && a.size() > max.longValue()) {
        causes.add(cause("FieldValueTooMany", path, "Too many: " + a.size() + ": must have at most "
            + max.longValue() + " items"));
      }
      if (s.getValue("minItems") instanceof Number min && a.size() < min.longValue()) {
        causes.add(cause("FieldValueInvalid", path, "Invalid value: " + a.size() + ": " + path
            + " in body should have at least " + min.longValue() + " items"));
      }
      if (s.getValue("items") instanceof JsonObject items) {
        for (int i = 0; i < a.size(); i++) {
          check(a.getValue(i), items, path + "[" + i + "]", causes);
        }
      }
    } else if (v instanceof JsonObject o) {
      JsonObject props = s.getValue("properties") instanceof JsonObject p ? p : null;
      JsonObject addl = s.getValue("additionalProperties") instanceof JsonObject a2 ? a2 : null;
      boolean embedded = Boolean.TRUE.equals(s.getValue("x-kubernetes-embedded-resource"));
      for (String key : o.fieldNames()) {
        if (embedded && TYPE_META.contains(key)) {
          continue;
        }
        JsonObject ks = props != null && props.getValue(key) instanceof JsonObject ps ? ps : addl;
        if (ks != null) {
          check(o.getValue(key), ks, path + "." + key, causes);
        }
      }
      required(o, s, path, causes);
    }
  }

  private static void required(JsonObject o, JsonObject s, String path, JsonArray causes) {
    if (s.getValue("required") instanceof JsonArray req) {
      for (Object r : req) {
        if (r instanceof String k && !o.containsKey(k)) {
          causes.add(cause("FieldValueRequired", path.isEmpty() ? k : path + "." + k, "Required value"));
        }
      }
    }
  }

  private static void numberBounds(Number n, JsonObject s, String path, JsonArray causes) {
    double d = n.doubleValue();
    if (s.getValue("maximum") instanceof Number max) {
      boolean excl = Boolean.TRUE.equals(s.getValue("exclusiveMaximum"));
      if (excl ? d >= max.doubleValue() : d > max.doubleValue()) {
        causes.add(cause("FieldValueInvalid", path, "Invalid value: " + n + ": " + path + " in body should be less "
            + "than " + (excl ? "" : "or equal to ") + max));
      }
    }
    if (s.getValue("minimum") instanceof Number min) {
      boolean excl = Boolean.TRUE.equals(s.getValue("exclusiveMinimum"));
      if (excl ? d <= min.doubleValue() : d < min.doubleValue()) {
        causes.add(cause("FieldValueInvalid", path, "Invalid value: " + n + ": " + path + " in body should be "
            + "greater than " + (excl ? "" : "or equal to ") + min));
      }
    }
  }

  private static boolean hasType(Object v, String type) {
    return switch (type) {
      case "object" -> v instanceof JsonObject;
      case "array" -> v instanceof JsonArray;
      case "string" -> v instanceof String;
      case "integer" -> isInteger(v);
      case "number" -> v instanceof Number;
      case "boolean" -> v instanceof Boolean;
      default -> true;
    };
  }

  private static boolean isInteger(Object v) {
    if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte
        || v instanceof java.math.BigInteger) {
      return true;
    }
    return v instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())
        && !Double.isInfinite(n.doubleValue());
  }

  private static String jsonType(Object v) {
    if (v instanceof JsonObject) {
      return "object";
    } else if (v instanceof JsonArray) {
      return "array";
    } else if (v instanceof String) {
      return "string";
    } else if (v instanceof Boolean) {
      return "boolean";
    } else if (isInteger(v)) {
      return "integer";
    }
    return "number";
  }

  private static void typeError(Object v, String path, String type, JsonArray causes) {
    causes.add(cause("FieldValueTypeInvalid", path, "Invalid value: \"" + jsonType(v) + "\": " + path
        + " in body must be of type " + type + ": \"" + jsonType(v) + "\""));
  }

  private static String quote(Object v) {
    return v instanceof String s ? "\"" + s + "\"" : String.valueOf(v);
  }

  private static JsonObject cause(String reason, String field, String message) {
    return new JsonObject().put("reason", reason).put("message", message).put("field", field);
  }
}
