package io.mvproxy.registry.impl.schema;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One field-level validation error, as apimachinery {@code pkg/util/validation/field/errors.go} {@code field.Error}:
 * a cause type ({@code FieldValueInvalid}, ...), a field path ({@code spec.ports[0].name}, {@code <nil>} for the
 * root), the bad value and a detail. {@link #body()} renders {@code ErrorBody()} exactly as Kubernetes 1.33 does
 * (apimachinery v0.33.0: {@code %v} for numbers and booleans, {@code %q} for strings, {@code %#v} otherwise).
 *
 * @param type     the cause type, e.g. {@code FieldValueRequired}
 * @param field    the field path
 * @param badValue the value (a JSON value, or {@link #OMIT})
 * @param detail   the detail, possibly empty
 */
public record FieldError(String type, String field, Object badValue, String detail) {
  /** Stands for {@code field.OmitValueType{}}: the body names no value. */
  public static final Object OMIT = new Object() {
    @Override
    public String toString() {
      return "<omitted>";
    }
  };
  /** The path string of the root ({@code (*field.Path)(nil).String()}). */
  public static final String ROOT = "<nil>";

  /** {@code field.Required}: {@code Required value[: detail]}. */
  public static FieldError required(String field, String detail) {
    return new FieldError("FieldValueRequired", field, "", detail);
  }

  /** {@code field.Invalid}: {@code Invalid value: <value>: detail}. */
  public static FieldError invalid(String field, Object value, String detail) {
    return new FieldError("FieldValueInvalid", field, value, detail);
  }

  /** {@code field.TypeInvalid}: {@code Invalid value: <value>: detail}. */
  public static FieldError typeInvalid(String field, Object value, String detail) {
    return new FieldError("FieldValueTypeInvalid", field, value, detail);
  }

  /** {@code field.Forbidden}: {@code Forbidden: detail}. */
  public static FieldError forbidden(String field, String detail) {
    return new FieldError("FieldValueForbidden", field, "", detail);
  }

  /** {@code field.Duplicate}: {@code Duplicate value: <value>}. */
  public static FieldError duplicate(String field, Object value) {
    return new FieldError("FieldValueDuplicate", field, value, "");
  }

  /** {@code field.NotSupported}: {@code Unsupported value: <value>: supported values: "a", "b"}. */
  public static FieldError notSupported(String field, Object value, List<String> valid) {
    StringBuilder sb = new StringBuilder();
    for (String v : valid) {
      sb.append(sb.length() == 0 ? "supported values: " : ", ").append(GoValues.quote(v));
    }
    return new FieldError("FieldValueNotSupported", field, value, sb.toString());
  }

  /** {@code field.TooLong}: {@code Too long: may not be more than N bytes}. */
  public static FieldError tooLong(String field, long max) {
    String d = max >= 0 ? "may not be more than " + max + " bytes" : "value is too long";
    return new FieldError("FieldValueTooLong", field, "<value omitted>", d);
  }

  /** {@code field.TooMany}: {@code Too many: N: must have at most M items}. */
  public static FieldError tooMany(String field, long actual, long max) {
    String d = max >= 0 ? "must have at most " + max + " items" : "has too many items";
    return new FieldError("FieldValueTooMany", field, actual >= 0 ? (Object) actual : OMIT, d);
  }

  /** {@code field.InternalError}: {@code Internal error: detail}. */
  public static FieldError internal(String field, String detail) {
    return new FieldError("InternalError", field, null, detail);
  }

  /** @return the error with its field replaced */
  public FieldError withField(String f) {
    return new FieldError(type, f, badValue, detail);
  }

  /** @return {@code ErrorBody()}: the message of a Status cause */
  public String body() {
    String s;
    switch (type) {
      case "FieldValueRequired", "FieldValueForbidden", "FieldValueTooLong", "InternalError" ->
          s = typeText();
      default -> s = badValue == OMIT ? typeText() : typeText() + ": " + GoValues.format(badValue);
    }
    return detail == null || detail.isEmpty() ? s : s + ": " + detail;
  }

  /** @return {@code Error()}: {@code <field>: <body>} */
  public String error() {
    return field + ": " + body();
  }

  /** @return the Status cause {@code {reason, message, field}} */
  public JsonObject toCause() {
    return new JsonObject().put("reason", type).put("message", body()).put("field", field);
  }

  /**
   * @param errors field errors
   * @return their Status causes in order (not de-duplicated, as {@code errors.NewInvalid})
   */
  public static JsonArray causes(List<FieldError> errors) {
    JsonArray a = new JsonArray();
    errors.forEach(e -> a.add(e.toCause()));
    return a;
  }

  /**
   * @param errors field errors
   * @return {@code ErrorList.ToAggregate().Error()}: de-duplicated, joined by ", ", in brackets when more than one
   */
  public static String aggregate(List<FieldError> errors) {
    Set<String> msgs = new LinkedHashSet<>();
    errors.forEach(e -> msgs.add(e.error()));
    String joined = String.join(", ", msgs);
    return msgs.size() == 1 ? joined : "[" + joined + "]";
  }

  private String typeText() {
    return switch (type) {
      case "FieldValueNotFound" -> "Not found";
      case "FieldValueRequired" -> "Required value";
      case "FieldValueDuplicate" -> "Duplicate value";
      case "FieldValueInvalid", "FieldValueTypeInvalid" -> "Invalid value";
      case "FieldValueNotSupported" -> "Unsupported value";
      case "FieldValueForbidden" -> "Forbidden";
      case "FieldValueTooLong" -> "Too long";
      case "FieldValueTooShort" -> "Too short";
      case "FieldValueTooMany" -> "Too many";
      case "FieldValueTooFew" -> "Too few";
      case "InternalError" -> "Internal error";
      default -> type;
    };
  }
}
