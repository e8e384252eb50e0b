package io.mvproxy.registry.impl.schema;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * JSON values as Go prints them in Kubernetes 1.33 error messages: {@code %q} for strings ({@code strconv.Quote}),
 * {@code %v} for int64 / float64 / bool, {@code %#v} for maps and slices; {@code encoding/json} (sorted keys,
 * HTML-safe escapes) where a JSON text is wanted;
 * also the JSON number model of {@code k8s.io/apimachinery/pkg/util/json} (integers as int64, others float64).
 */
public final class GoValues {
  private GoValues() {
  }

  /**
   * @param v a JSON value (null, String, Number, Boolean, JsonObject, JsonArray, Map, List)
   * @return it as {@code field.Error.ErrorBody} prints a bad value
   */
  public static String format(Object v) {
    if (v == null) {
      return quote("null");
    }
    if (v instanceof Raw r) {
      return r.text();
    }
    if (v instanceof String s) {
      return quote(s);
    }
    if (v instanceof Boolean || isInteger(v)) {
      return String.valueOf(v);
    }
    if (v instanceof Number n) {
      return formatFloat(n.doubleValue());
    }
    return goSyntax(v);
  }

  /** A value printed as given (e.g. a Go struct rendered with {@code %#v}). @param text the text */
  public record Raw(String text) {
  }

  /**
   * @param v a JSON value
   * @return {@code fmt.Sprintf("%#v", v)} of its Go unstructured form ({@code map[string]interface {}{...}},
   *     {@code []interface {}{...}}, keys sorted)
   */
  public static String goSyntax(Object v) {
    return print(v, SHARP_V);
  }

  /**
   * @param v a JSON value
   * @return {@code fmt.Sprintf("%v", v)} of its Go unstructured form: {@code map[a:1 b:[x <nil>]]} (keys sorted),
   *     strings bare, floats as {@link #formatFloat}
   */
  public static String plain(Object v) {
    return print(v, PLAIN_V);
  }

  /** How a verb prints nil, strings (map keys too) and the brackets and separators of maps and slices. */
  private record Verb(String nil, java.util.function.UnaryOperator<String> string, String map, String list,
                      String close, String sep) {
  }

  private static final Verb SHARP_V = new Verb("interface {}(nil)", GoValues::quote, "map[string]interface {}{",
      "[]interface {}{", "}", ", ");
  private static final Verb PLAIN_V = new Verb("<nil>", s -> s, "map[", "[", "]", " ");

  @SuppressWarnings("unchecked")
  private static String print(Object v, Verb verb) {
    if (v == null) {
      return verb.nil();
    }
    if (v instanceof Raw r) {
      return r.text();
    }
    if (v instanceof String s) {
      return verb.string().apply(s);
    }
    if (v instanceof Boolean || isInteger(v)) {
      return String.valueOf(v);
    }
    if (v instanceof Number n) {
      return formatFloat(n.doubleValue());
    }
    if (v instanceof JsonObject o) {
      v = o.getMap();
    }
    if (v instanceof JsonArray a) {
      v = a.getList();
    }
    if (v instanceof Map<?, ?> m) {
      List<String> keys = new ArrayList<>();
      m.keySet().forEach(k -> keys.add(String.valueOf(k)));
      Collections.sort(keys);
      StringBuilder sb = new StringBuilder(verb.map());
      for (int i = 0; i < keys.size(); i++) {
        sb.append(i > 0 ? verb.sep() : "").append(verb.string().apply(keys.get(i))).append(':')
            .append(print(((Map<String, Object>) m).get(keys.get(i)), verb));
      }
      return sb.append(verb.close()).toString();
    }
    if (v instanceof List<?> l) {
      StringBuilder sb = new StringBuilder(verb.list());
      for (int i = 0; i < l.size(); i++) {
        sb.append(i > 0 ? verb.sep() : "").append(print(l.get(i), verb));
      }
      return sb.append(verb.close()).toString();
    }
    return verb.string().apply(String.valueOf(v));
  }

  /** @return true for integral Java numbers (what Go decodes as int64) */
  public static boolean isInteger(Object v) {
    return v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte
        || v instanceof BigInteger;
  }

  /**
   * @param cp a code point
   * @return Go's {@code unicode.IsPrint}: letters, marks, numbers, punctuation, symbols and the ASCII space (the
   *     JDK's Unicode tables, which may trail Go's by a version)
   */
  public static boolean isPrint(int cp) {
    return io.mvproxy.api.GoStrings.isPrint(cp);
  }

  /** @return {@code strconv.Quote(s)} */
  public static String quote(String s) {
    return quoteString(s);
  }

  /**
   * @param values strings (other items as their {@code String.valueOf})
   * @return {@code fmt.Sprintf("%#v", []string{...})}, as a field error prints a string slice
   */
  public static Raw stringSlice(Iterable<?> values) {
    StringBuilder sb = new StringBuilder("[]string{");
    boolean first = true;
    for (Object v : values) {
      sb.append(first ? "" : ", ").append(quoteString(String.valueOf(v)));
      first = false;
    }
    return new Raw(sb.append('}').toString());
  }

  private static String quoteString(String s) {
    return io.mvproxy.api.GoStrings.quote(s);
  }

  /** @return {@code fmt.Sprintf("%v", f)} for a float64: shortest digits, exponent when exp < -4 or >= 6 */
  public static String formatFloat(double f) {
    if (Double.isNaN(f)) {
      return "NaN";
    }
    if (Double.isInfinite(f)) {
      return f > 0 ? "+Inf" : "-Inf";
    }
    if (f == 0) {
      return 1 / f < 0 ? "-0" : "0";
    }
    BigDecimal d = new BigDecimal(Double.toString(Math.abs(f))).stripTrailingZeros();
    String digits = d.unscaledValue().toString();
    int exp = digits.length() - 1 - d.scale();
    String sign = f < 0 ? "-" : "";
    if (exp < -4 || exp >= 6) {
      String mant = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
      int ae = Math.abs(exp);
      return sign + mant + "e" + (exp < 0 ? "-" : "+") + (ae < 10 ? "0" + ae : Integer.toString(ae));
    }
    return sign + d.toPlainString();
  }

  /** @return {@code json.Marshal(v)}: map keys sorted, {@code <>&} escaped, floats as Go encodes them */
  public static String json(Object v) {
    StringBuilder sb = new StringBuilder();
    writeJson(v, sb);
    return sb.toString();
  }

  @SuppressWarnings("unchecked")
  private static void writeJson(Object v, StringBuilder sb) {
    if (v == null) {
      sb.append("null");
    } else if (v instanceof String s) {
      sb.append('"');
      for (char c : s.toCharArray()) {
        switch (c) {
          case '"' -> sb.append("\\\"");
          case '\\' -> sb.append("\\\\");
          case '\n' -> sb.append("\\n");
          case '\r' -> sb.append("\\r");
          case '\t' -> sb.append("\\t");
          case '<', '>', '&', '\u2028', '\u2029' -> sb.append(String.format("\\u%04x", (int) c));
          default -> {
            if (c < 0x20) {
              sb.append(String.format("\\u%04x", (int) c));
            } else {
              sb.append(c);
            }
          }
        }
      }
      sb.append('"');
    } else if (v instanceof Boolean || isInteger(v)) {
      sb.append(v);
    } else if (v instanceof Number n) {
      double d = n.doubleValue();
      double a = Math.abs(d);
      if (a != 0 && (a < 1e-6 || a >= 1e21)) {
        String s = new BigDecimal(Double.toString(d)).stripTrailingZeros().toString().replace("E", "e");
        sb.append(s.replace("e-0", "e-"));
      } else {
        sb.append(a == 0 ? "0" : new BigDecimal(Double.toString(d)).stripTrailingZeros().toPlainString());
      }
    } else if (v instanceof JsonObject o) {
      writeJson(o.getMap(), sb);
    } else if (v instanceof JsonArray a) {
      writeJson(a.getList(), sb);
    } else if (v instanceof Map<?, ?> m) {
      List<String> keys = new ArrayList<>();
      m.keySet().forEach(k -> keys.add(String.valueOf(k)));
      Collections.sort(keys);
      sb.append('{');
      for (int i = 0; i < keys.size(); i++) {
        if (i > 0) {
          sb.append(',');
        }
        writeJson(keys.get(i), sb);
        sb.append(':');
        writeJson(((Map<String, Object>) m).get(keys.get(i)), sb);
      }
      sb.append('}');
    } else if (v instanceof List<?> l) {
      sb.append('[');
      for (int i = 0; i < l.size(); i++) {
        if (i > 0) {
          sb.append(',');
        }
        writeJson(l.get(i), sb);
      }
      sb.append(']');
    } else {
      writeJson(String.valueOf(v), sb);
    }
  }

  /**
   * Deep JSON equality with numbers compared by value (Go's unstructured int64 1 equals float64 1 only when both
   * decode alike: integral numbers compare as integers, others as doubles).
   */
  public static boolean jsonEquals(Object a, Object b) {
    if (a == b) {
      return true;
    }
    if (a == null || b == null) {
      return false;
    }
    if (a instanceof Number x && b instanceof Number y) {
      if (isInteger(x) && isInteger(y)) {
        return new BigInteger(x.toString()).equals(new BigInteger(y.toString()));
      }
      return x.doubleValue() == y.doubleValue();
    }
    if (a instanceof JsonObject x) {
      a = x.getMap();
    }
    if (b instanceof JsonObject y) {
      b = y.getMap();
    }
    if (a instanceof JsonArray x) {
      a = x.getList();
    }
    if (b instanceof JsonArray y) {
      b = y.getList();
    }
    if (a instanceof Map<?, ?> x && b instanceof Map<?, ?> y) {
      if (x.size() != y.size()) {
        return false;
      }
      for (Map.Entry<?, ?> e : x.entrySet()) {
        if (!y.containsKey(e.getKey()) || !jsonEquals(e.getValue(), y.get(e.getKey()))) {
          return false;
        }
      }
      return true;
    }
    if (a instanceof List<?> x && b instanceof List<?> y) {
      if (x.size() != y.size()) {
        return false;
      }
      for (int i = 0; i < x.size(); i++) {
        if (!jsonEquals(x.get(i), y.get(i))) {
          return false;
        }
      }
      return true;
    }
    return a.equals(b);
  }
}
