package io.mvproxy.registry.impl.schema;

import dev.cel.common.values.NullValue;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON values as CEL sees them (apiextensions-apiserver {@code schema/cel/values.go UnstructuredToVal}): objects as
 * maps, arrays as lists, {@code integer} as int, {@code number} as double, null as {@code null}; the resource root
 * shows only {@code apiVersion}, {@code kind}, {@code metadata.name} and {@code metadata.generateName}. Also renders
 * evaluation errors with cel-go's texts.
 */
public final class CelValues {
  private CelValues() {
  }

  /**
   * @param v      a JSON value
   * @param s      its schema (null for unknown fields kept by x-kubernetes-preserve-unknown-fields)
   * @param isRoot true for the resource root
   * @return the CEL value
   */
  public static Object toCel(Object v, SchemaNode s, boolean isRoot) {
    return toCel(v, s, isRoot, new java.util.IdentityHashMap<>());
  }

  /**
   * As {@link #toCel(Object, SchemaNode, boolean)}, reusing the conversions of objects and arrays already converted
   * in one evaluation (keyed by identity; a node's value is converted once however many rules see it).
   *
   * @param memo JSON object or array to its CEL value (not used for the resource root)
   */
  public static Object toCel(Object v, SchemaNode s, boolean isRoot, Map<Object, Object> memo) {
    if (!isRoot && (v instanceof JsonObject || v instanceof JsonArray)) {
      Object done = memo.get(v);
      if (done != null) {
        return done;
      }
      Object c = convert(v, s, false, memo);
      memo.put(v, c);
      return c;
    }
    return convert(v, s, isRoot, memo);
  }

  private static Object convert(Object v, SchemaNode s, boolean isRoot, Map<Object, Object> memo) {
    if (v == null) {
      return NullValue.NULL_VALUE;
    }
    if (v instanceof JsonObject o) {
      Map<String, Object> m = new LinkedHashMap<>();
      for (Map.Entry<String, Object> e : o) {
        String k = e.getKey();
        if (isRoot && "metadata".equals(k)) {
          if (e.getValue() instanceof JsonObject meta) {
            Map<String, Object> mm = new LinkedHashMap<>();
            for (String f : new String[] {"name", "generateName"}) {
              if (meta.getValue(f) instanceof String str) {
                mm.put(f, str);
              }
            }
            m.put(k, mm);
          }
          continue;
        }
        SchemaNode c = s == null ? null : s.child(k);
        m.put(k, toCel(e.getValue(), c, false, memo));
      }
      return m;
    }
    if (v instanceof JsonArray a) {
      List<Object> l = new ArrayList<>(a.size());
      SchemaNode it = s == null ? null : s.items;
      for (Object x : a) {
        l.add(toCel(x, it, false, memo));
      }
      return l;
    }
    if (v instanceof Number n) {
      if (s != null && "number".equals(s.type)) {
        return n.doubleValue();
      }
      return GoValues.isInteger(n) ? (Object) n.longValue() : (Object) n.doubleValue();
    }
    return v;
  }

  /**
   * @param e a cel-java evaluation failure
   * @return the error as cel-go words it ({@code no such key: x}, {@code division by zero},
   *     {@code index out of bounds: 3}, {@code no such overload}, ...)
   */
  public static String goError(Throwable e) {
    String m = e.getMessage() == null ? e.toString() : e.getMessage();
    m = m.replaceFirst("^evaluation error(?: at <input>:\\d+)?: ", "");
    var key = java.util.regex.Pattern.compile("key '(.*)' is not present in map\\.?").matcher(m);
    if (key.find()) {
      return "no such key: " + key.group(1);
    }
    if (m.contains("/ by zero") || m.toLowerCase().contains("division by zero")) {
      return "division by zero";
    }
    if (m.toLowerCase().contains("modulus by zero")) {
      return "modulus by zero";
    }
    var idx = java.util.regex.Pattern.compile("(?i)index out of bounds: (-?\\d+)").matcher(m);
    if (idx.find()) {
      return "index out of bounds: " + idx.group(1);
    }
    if (m.startsWith("No matching overload") || m.contains("no matching overload")) {
      return "no such overload";
    }
    if (m.toLowerCase().contains("overflow")) {
      return "integer overflow";
    }
    return m;
  }
}
