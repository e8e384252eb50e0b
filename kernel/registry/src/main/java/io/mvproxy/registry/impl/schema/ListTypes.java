package io.mvproxy.registry.impl.schema;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code x-kubernetes-list-type} checks as apiextensions-apiserver {@code pkg/apiserver/schema/listtype/validation.go}:
 * {@code set} items unique, {@code map} items objects with unique {@code x-kubernetes-list-map-keys}; one
 * {@code Duplicate value} per repeated item (its first repetition), the value a JSON object of the key fields.
 */
public final class ListTypes {
  private ListTypes() {
  }

  /**
   * @param obj the object root
   * @param s   its schema
   * @return the errors (empty when valid)
   */
  public static List<FieldError> validate(JsonObject obj, SchemaNode s) {
    List<FieldError> errs = new ArrayList<>();
    walkObject(null, s, obj, errs);
    return errs;
  }

  private static void walkObject(String path, SchemaNode s, JsonObject obj, List<FieldError> errs) {
    if (s == null || obj == null) {
      return;
    }
    if (s.additionalProperties != null) {
      obj.forEach(e -> walk(FieldPaths.key(path, e.getKey()), s.additionalProperties, e.getValue(), errs));
    }
    if (s.properties != null) {
      obj.forEach(e -> {
        SchemaNode p = s.properties.get(e.getKey());
        if (p != null) {
          walk(FieldPaths.child(path, e.getKey()), p, e.getValue(), errs);
        }
      });
    }
  }

  private static void walk(String path, SchemaNode s, Object v, List<FieldError> errs) {
    if (v instanceof JsonArray a) {
      if ("set".equals(s.listType)) {
        for (int i : nonUnique(a.getList())) {
          errs.add(FieldError.duplicate(FieldPaths.index(path, i), a.getValue(i)));
        }
      } else if ("map".equals(s.listType)) {
        listMap(path, s, a, errs);
      }
      if (s.items != null) {
        for (int i = 0; i < a.size(); i++) {
          walk(FieldPaths.index(path, i), s.items, a.getValue(i), errs);
        }
      }
    } else if (v instanceof JsonObject o) {
      walkObject(path, s, o, errs);
    }
  }

  private static void listMap(String path, SchemaNode s, JsonArray a, List<FieldError> errs) {
    for (int i = 0; i < a.size(); i++) {
      Object x = a.getValue(i);
      if (x != null && !(x instanceof JsonObject)) {
        errs.add(FieldError.invalid(FieldPaths.index(path, i), x, "must be an object for an array of list-type map"));
        return;
      }
    }
    if (a.size() <= 1) {
      return;
    }
    List<Object> keys = new ArrayList<>();
    for (Object x : a) {
      Map<String, Object> key = new LinkedHashMap<>();
      if (x instanceof JsonObject o) {
        for (String k : s.listMapKeys) {
          if (o.containsKey(k)) {
            key.put(k, o.getValue(k));
          }
        }
      }
      keys.add(key);
    }
    for (int i : nonUnique(keys)) {
      errs.add(FieldError.duplicate(FieldPaths.index(path, i), keys.get(i)));
    }
  }

  /** @return the indices of the second occurrence of each repeated value ({@code validateListSet}) */
  static List<Integer> nonUnique(List<?> items) {
    List<Integer> out = new ArrayList<>();
    if (items.size() <= 1) {
      return out;
    }
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < items.size(); i++) {
      String k = canonical(items.get(i));
      int times = seen.merge(k, 1, Integer::sum);
      if (times == 2) {
        out.add(i);
      }
    }
    return out;
  }

  private static String canonical(Object v) {
    if (v instanceof Number n && !GoValues.isInteger(n)) {
      double d = n.doubleValue();
      return d == Math.rint(d) && !Double.isInfinite(d) ? "f" + GoValues.formatFloat(d) : "f" + d;
    }
    return (GoValues.isInteger(v) ? "i" : "") + GoValues.json(v);
  }
}
