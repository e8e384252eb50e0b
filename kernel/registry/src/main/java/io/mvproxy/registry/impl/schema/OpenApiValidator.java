package io.mvproxy.registry.impl.schema;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Validates a JSON value against a {@link SchemaNode} as kube-openapi {@code pkg/validation/validate} does for
 * apiextensions-apiserver (validators in upstream order: type, allOf/anyOf/oneOf/not, string, format, number,
 * array, enum, object), and turns the results into field errors as
 * {@code apiextensions-apiserver/pkg/apiserver/validation/validation.go kubeOpenAPIResultToFieldErrors}. With an
 * old value it ratchets as {@code validation/ratcheting.go} (CRDValidationRatcheting, GA in 1.33): a node equal to
 * its correlated old node (same property, same map key, same list-map keys, same set member) reports nothing.
 * Messages are kube-openapi {@code errors/schema.go}'s with {@code in = "body"}.
 */
public final class OpenApiValidator {
  /** Marks "no old value to correlate with". */
  public static final Object NO_OLD = new Object();
  private final String fieldPrefix;
  private final List<FieldError> out = new ArrayList<>();

  private OpenApiValidator(String fieldPrefix) {
    this.fieldPrefix = fieldPrefix;
  }

  /**
   * @param value       the value (a JSON tree of JsonObject / JsonArray / scalars)
   * @param schema      its schema
   * @param old         the correlated old value for ratcheting, or {@link #NO_OLD} (create)
   * @param fieldPrefix the field path the value sits at ({@code null} for the object root, {@code "status"} for
   *                    the status subresource)
   * @return the errors in order (empty when valid)
   */
  public static List<FieldError> validate(Object value, SchemaNode schema, Object old, String fieldPrefix) {
    OpenApiValidator v = new OpenApiValidator(fieldPrefix);
    v.check(value, schema, "", old);
    return v.out;
  }

  private String field(String name) {
    if (name.isEmpty() || ".".equals(name)) {
      return fieldPrefix == null ? FieldError.ROOT : fieldPrefix;
    }
    String n = name.startsWith(".") ? name.substring(1) : name;
    return fieldPrefix == null ? n : fieldPrefix + "." + n;
  }

  private static String in(String path) {
    return path + " in body";
  }

  private void check(Object v, SchemaNode s, String path, Object old) {
    if (old != NO_OLD && GoValues.jsonEquals(v, old)) {
      return;
    }
    if (v == null) {
      if (!s.typeName().isEmpty() && !s.nullable) {
        out.add(FieldError.typeInvalid(field(path), "null", in(path) + " must be of type " + s.typeName() + ": "
            + GoValues.quote("null")));
      }
      enumCheck(v, s, path);
      return;
    }
    String actual = jsonType(v);
    if (!s.typeName().isEmpty() && !typeMatches(s, actual, v)) {
      out.add(FieldError.typeInvalid(field(path), actual, in(path) + " must be of type " + s.typeName() + ": "
          + GoValues.quote(actual)));
      return;
    }
    composition(v, s, path);
    if (v instanceof String str) {
      stringChecks(str, s, path);
      if (s.format != null && !Formats.valid(s.format, str)) {
        out.add(FieldError.typeInvalid(field(path), str, in(path) + " must be of type " + s.formatName + ": "
            + GoValues.quote(str)));
      }
    } else if (v instanceof Number n) {
      numberChecks(n, s, path);
    } else if (v instanceof JsonArray a) {
      arrayChecks(a, s, path, old);
    }
    enumCheck(v, s, path);
    if (v instanceof JsonObject o) {
      objectChecks(o, s, path, old);
    }
  }

  private static boolean typeMatches(SchemaNode s, String actual, Object v) {
    if (s.intOrString) {
      return "integer".equals(actual) || "string".equals(actual)
          || "number".equals(actual) && isIntegral(((Number) v).doubleValue());
    }
    if (s.type.equals(actual)) {
      return true;
    }
    if ("number".equals(actual) && "integer".equals(s.type)) {
      return isIntegral(((Number) v).doubleValue());
    }
    return "integer".equals(actual) && "number".equals(s.type);
  }

  private static boolean isIntegral(double d) {
    return !Double.isInfinite(d) && d == Math.rint(d);
  }

  private void composition(Object v, SchemaNode s, String path) {
    if (!s.anyOf.isEmpty()) {
      List<FieldError> best = null;
      boolean ok = false;
      for (SchemaNode alt : s.anyOf) {
        List<FieldError> r = validate(v, alt, NO_OLD, fieldPrefix, path);
        if (r.isEmpty()) {
          ok = true;
          best = null;
          break;
        }
        if (best == null) {
          best = r;
        }
      }
      if (!ok) {
        out.add(FieldError.invalid(field(""), "", GoValues.quote(path) + " must validate at least one schema "
            + "(anyOf)"));
      }
      if (best != null) {
        out.addAll(best);
      }
    }
    if (!s.oneOf.isEmpty()) {
      List<FieldError> best = null;
      int validated = 0;
      for (SchemaNode alt : s.oneOf) {
        List<FieldError> r = validate(v, alt, NO_OLD, fieldPrefix, path);
        if (r.isEmpty()) {
          validated++;
          best = null;
        } else if (validated == 0 && best == null) {
          best = r;
        }
      }
      if (validated != 1) {
        String more = validated == 0 ? "Found none valid" : "Found " + validated + " valid alternatives";
        out.add(FieldError.invalid(field(""), "", GoValues.quote(path) + " must validate one and only one schema "
            + "(oneOf). " + more));
        if (best != null) {
          out.addAll(best);
        }
      }
    }
    if (!s.allOf.isEmpty()) {
      int validated = 0;
      for (SchemaNode part : s.allOf) {
        List<FieldError> r = validate(v, part, NO_OLD, fieldPrefix, path);
        if (r.isEmpty()) {
          validated++;
        }
        out.addAll(r);
      }
      if (validated != s.allOf.size()) {
        out.add(FieldError.invalid(field(""), "", GoValues.quote(path) + " must validate all the schemas (allOf)"
            + (validated == 0 ? ". None validated" : "")));
      }
    }
    if (s.not != null && validate(v, s.not, NO_OLD, fieldPrefix, path).isEmpty()) {
      out.add(FieldError.invalid(field(""), "", GoValues.quote(path) + " must not validate the schema (not)"));
    }
  }

  private static List<FieldError> validate(Object v, SchemaNode s, Object old, String prefix, String path) {
    OpenApiValidator sub = new OpenApiValidator(prefix);
    sub.check(v, s, path, old);
    return sub.out;
  }

  private void stringChecks(String str, SchemaNode s, String path) {
    long runes = str.codePointCount(0, str.length());
    if (s.maxLength != null && runes > s.maxLength) {
      out.add(FieldError.tooLong(field(path), s.maxLength));
      return;
    }
    if (s.minLength != null && runes < s.minLength) {
      out.add(FieldError.invalid(field(path), str, in(path) + " should be at least " + s.minLength
          + " chars long"));
      return;
    }
    if (s.pattern != null && !s.pattern.matcher(str).find()) {
      out.add(FieldError.invalid(field(path), str, in(path) + " should match '" + s.patternSource + "'"));
    }
  }

  private void numberChecks(Number n, SchemaNode s, String path) {
    double d = n.doubleValue();
    Object value = GoValues.isInteger(n) ? (Object) n.longValue() : (Object) d;
    if (s.multipleOf != null && s.multipleOf > 0) {
      boolean ok;
      try {
        ok = new BigDecimal(n.toString()).remainder(BigDecimal.valueOf(s.multipleOf)).signum() == 0;
      } catch (NumberFormatException | ArithmeticException e) {
        double q = d / s.multipleOf;
        ok = q == Math.rint(q);
      }
      if (!ok) {
        out.add(FieldError.invalid(field(path), value, in(path) + " should be a multiple of "
            + GoValues.formatFloat(s.multipleOf)));
      }
    }
    if (s.maximum != null && (s.exclusiveMaximum ? d >= s.maximum : d > s.maximum)) {
      out.add(FieldError.invalid(field(path), value, in(path) + " should be less than "
          + (s.exclusiveMaximum ? "" : "or equal to ") + bound(s.maximum, n)));
    }
    if (s.minimum != null && (s.exclusiveMinimum ? d <= s.minimum : d < s.minimum)) {
      out.add(FieldError.invalid(field(path), value, in(path) + " should be greater than "
          + (s.exclusiveMinimum ? "" : "or equal to ") + bound(s.minimum, n)));
    }
  }

  /** Integer data is compared and reported with an int64 bound ({@code ExceedsMaximumInt}). */
  private static String bound(double b, Number n) {
    if (GoValues.isInteger(n)) {
      return Long.toString((long) b);
    }
    return GoValues.formatFloat(b);
  }

  private void arrayChecks(JsonArray a, SchemaNode s, String path, Object old) {
    if (s.items != null) {
      for (int i = 0; i < a.size(); i++) {
        check(a.getValue(i), s.items, path + "[" + i + "]", correlatedItem(s, a.getValue(i), old));
      }
    }
    if (s.minItems != null && a.size() < s.minItems) {
      out.add(FieldError.invalid(field(path), (long) a.size(), in(path) + " should have at least " + s.minItems
          + " items"));
    }
    if (s.maxItems != null && a.size() > s.maxItems) {
      out.add(FieldError.tooMany(field(path), a.size(), s.maxItems));
    }
    if (s.uniqueItems) {
      for (int i = 0; i < a.size(); i++) {
        for (int j = i + 1; j < a.size(); j++) {
          if (GoValues.jsonEquals(a.getValue(i), a.getValue(j))) {
            out.add(FieldError.invalid(field(path), "", in(path) + " shouldn't contain duplicates"));
            return;
          }
        }
      }
    }
  }

  /** {@code common.CorrelatedObject.Index}: list-map items by key, set items by value; others do not correlate. */
  static Object correlatedItem(SchemaNode s, Object item, Object old) {
    if (!(old instanceof JsonArray oa)) {
      return NO_OLD;
    }
    if ("map".equals(s.listType) && item instanceof JsonObject io) {
      for (Object o : oa) {
        if (o instanceof JsonObject oo && sameKeys(s.listMapKeys, io, oo)) {
          return oo;
        }
      }
    } else if ("set".equals(s.listType)) {
      for (Object o : oa) {
        if (GoValues.jsonEquals(o, item)) {
          return o;
        }
      }
    }
    return NO_OLD;
  }

  private static boolean sameKeys(List<String> keys, JsonObject a, JsonObject b) {
    for (String k : keys) {
      if (a.containsKey(k) != b.containsKey(k) || !GoValues.jsonEquals(a.getValue(k), b.getValue(k))) {
        return false;
      }
    }
    return true;
  }

  private void enumCheck(Object v, SchemaNode s, String path) {
    if (s.enumValues == null || s.enumValues.isEmpty()) {
      return;
    }
    for (Object e : s.enumValues) {
      if (GoValues.jsonEquals(e, v)) {
        return;
      }
    }
    List<String> values = new ArrayList<>();
    for (Object e : s.enumValues) {
      values.add(e instanceof String str ? str : GoValues.json(e));
    }
    Object bad = v instanceof Number n && GoValues.isInteger(n) ? (Object) n.longValue() : v;
    out.add(FieldError.notSupported(field(path), bad, values));
  }

  private void objectChecks(JsonObject o, SchemaNode s, String path, Object old) {
    long size = o.size();
    if (s.minProperties != null && size < s.minProperties) {
      out.add(FieldError.invalid(field(path), size, in(path) + " should have at least " + s.minProperties
          + " properties"));
    }
    if (s.maxProperties != null && size > s.maxProperties) {
      out.add(FieldError.tooMany(field(path), size, s.maxProperties));
    }
    JsonObject oldObj = old instanceof JsonObject oo ? oo : null;
    if (s.additionalPropertiesForbidden) {
      for (String k : o.fieldNames()) {
        if (s.properties == null || !s.properties.containsKey(k)) {
          out.add(FieldError.invalid(field(path + "." + k), k, path + "." + k + " in body is a forbidden property"));
        }
      }
    } else if (s.additionalProperties != null) {
      for (Map.Entry<String, Object> e : o) {
        if (s.properties == null || !s.properties.containsKey(e.getKey())) {
          check(e.getValue(), s.additionalProperties, path + "." + e.getKey(), oldChild(oldObj, e.getKey()));
        }
      }
    }
    if (s.properties != null) {
      for (Map.Entry<String, SchemaNode> p : s.properties.entrySet()) {
        if (o.containsKey(p.getKey())) {
          String child = path.isEmpty() ? p.getKey() : path + "." + p.getKey();
          check(o.getValue(p.getKey()), p.getValue(), child, oldChild(oldObj, p.getKey()));
        }
      }
    }
    for (String r : s.required) {
      if (!o.containsKey(r)) {
        out.add(FieldError.required(field(path + "." + r), ""));
      }
    }
  }

  private static Object oldChild(JsonObject old, String key) {
    return old != null && old.containsKey(key) ? old.getValue(key) : NO_OLD;
  }

  /** @return the JSON type name kube-openapi reports for a value ({@code integer} for int64) */
  static String jsonType(Object v) {
    if (v instanceof JsonObject || v instanceof Map) {
      return "object";
    } else if (v instanceof JsonArray || v instanceof List) {
      return "array";
    } else if (v instanceof String) {
      return "string";
    } else if (v instanceof Boolean) {
      return "boolean";
    } else if (GoValues.isInteger(v)) {
      return "integer";
    }
    return "number";
  }
}
