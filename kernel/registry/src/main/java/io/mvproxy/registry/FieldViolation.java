package io.mvproxy.registry;

import java.util.List;
import java.util.Objects;

/**
 * One field-level validation error of a {@link KindStrategy}, as apimachinery's {@code field.Error}
 * ({@code staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go}). The registry answers a write with
 * any of them as {@code 422 Invalid}: message {@code <Kind>.<group> "<name>" is invalid: <field>: <error>} and one
 * {@code details.causes} entry per violation, exactly as kube-apiserver renders a {@code field.ErrorList}.
 *
 * @param type     the kind of error
 * @param field    the field path, e.g. {@code spec.timeZone} or {@code spec.ports[0].name}
 * @param badValue the offending value (a JSON value: String, Number, Boolean, JsonObject, JsonArray or null); not
 *                 shown for {@link Type#REQUIRED} and {@link Type#FORBIDDEN}
 * @param detail   the human-readable detail, possibly empty; for {@link Type#NOT_SUPPORTED} the supported values
 */
public record FieldViolation(Type type, String field, Object badValue, String detail) {
  /** The error types a strategy can report, with the {@code details.causes[].reason} kube-apiserver gives each. */
  public enum Type {
    /** {@code field.Required}: {@code Required value[: detail]}, reason {@code FieldValueRequired}. */
    REQUIRED("FieldValueRequired"),
    /** {@code field.Invalid}: {@code Invalid value: <value>: detail}, reason {@code FieldValueInvalid}. */
    INVALID("FieldValueInvalid"),
    /** {@code field.Forbidden}: {@code Forbidden: detail}, reason {@code FieldValueForbidden}. */
    FORBIDDEN("FieldValueForbidden"),
    /** {@code field.NotSupported}: {@code Unsupported value: <value>: supported values: ...}. */
    NOT_SUPPORTED("FieldValueNotSupported"),
    /** {@code field.Duplicate}: {@code Duplicate value: <value>}, reason {@code FieldValueDuplicate}. */
    DUPLICATE("FieldValueDuplicate");

    private final String reason;

    Type(String reason) {
      this.reason = reason;
    }

    /** @return the Status cause reason ({@code metav1.CauseType}), e.g. {@code FieldValueInvalid} */
    public String reason() {
      return reason;
    }
  }

  /**
   * @throws NullPointerException when {@code type} or {@code field} is null
   */
  public FieldViolation {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(field, "field");
    detail = detail == null ? "" : detail;
  }

  /**
   * @param field  the field path
   * @param detail why it is required (may be empty)
   * @return a {@link Type#REQUIRED} violation
   */
  public static FieldViolation required(String field, String detail) {
    return new FieldViolation(Type.REQUIRED, field, "", detail);
  }

  /**
   * @param field  the field path
   * @param value  the bad value
   * @param detail why it is invalid
   * @return an {@link Type#INVALID} violation
   */
  public static FieldViolation invalid(String field, Object value, String detail) {
    return new FieldViolation(Type.INVALID, field, value, detail);
  }

  /**
   * @param field  the field path
   * @param detail why it is forbidden
   * @return a {@link Type#FORBIDDEN} violation
   */
  public static FieldViolation forbidden(String field, String detail) {
    return new FieldViolation(Type.FORBIDDEN, field, "", detail);
  }

  /**
   * @param field     the field path
   * @param value     the bad value
   * @param supported the supported values, listed in the message in this order
   * @return a {@link Type#NOT_SUPPORTED} violation whose detail is {@code supported values: "a", "b"}
   */
  public static FieldViolation notSupported(String field, Object value, List<String> supported) {
    StringBuilder sb = new StringBuilder();
    for (String v : supported) {
      sb.append(sb.length() == 0 ? "supported values: " : ", ").append('"').append(v.replace("\\", "\\\\")
          .replace("\"", "\\\"")).append('"');
    }
    return new FieldViolation(Type.NOT_SUPPORTED, field, value, sb.toString());
  }

  /**
   * @param field the field path
   * @param value the duplicated value
   * @return a {@link Type#DUPLICATE} violation
   */
  public static FieldViolation duplicate(String field, Object value) {
    return new FieldViolation(Type.DUPLICATE, field, value, "");
  }
}
