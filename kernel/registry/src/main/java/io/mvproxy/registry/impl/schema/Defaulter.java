package io.mvproxy.registry.impl.schema;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Map;

/**
 * Applies {@code default} values as apiextensions-apiserver {@code pkg/apiserver/schema/defaulting/algorithm.go
 * Default}: a missing property (or a null one that is not nullable) gets a deep copy of its default, then defaulting
 * recurses into properties, {@code additionalProperties} values and {@code items}. Run on request bodies (after
 * pruning) and on objects read from storage, so objects stored before a default existed are returned with it.
 */
public final class Defaulter {
  private Defaulter() {
  }

  /**
   * @param x a JSON value (changed in place)
   * @param s its schema (null: nothing)
   * @return true when anything was set
   */
  public static boolean apply(Object x, SchemaNode s) {
    if (s == null) {
      return false;
    }
    boolean changed = false;
    if (x instanceof JsonObject o) {
      if (s.properties != null) {
        for (Map.Entry<String, SchemaNode> e : s.properties.entrySet()) {
          SchemaNode p = e.getValue();
          if (!p.hasDefault || p.defaultValue == null) {
            continue;
          }
          if (!o.containsKey(e.getKey()) || o.getValue(e.getKey()) == null && !p.nullable) {
            o.put(e.getKey(), copy(p.defaultValue));
            changed = true;
          }
        }
      }
      for (String k : new ArrayList<>(o.fieldNames())) {
        SchemaNode p = s.properties != null ? s.properties.get(k) : null;
        if (p != null) {
          changed |= apply(o.getValue(k), p);
        } else if (s.additionalProperties != null) {
          SchemaNode ap = s.additionalProperties;
          if (o.getValue(k) == null && !ap.nullable && ap.hasDefault && ap.defaultValue != null) {
            o.put(k, copy(ap.defaultValue));
            changed = true;
          }
          changed |= apply(o.getValue(k), ap);
        }
      }
    } else if (x instanceof JsonArray a && s.items != null) {
      SchemaNode it = s.items;
      for (int i = 0; i < a.size(); i++) {
        if (a.getValue(i) == null && !it.nullable && it.hasDefault && it.defaultValue != null) {
          a.set(i, copy(it.defaultValue));
          changed = true;
        }
        changed |= apply(a.getValue(i), it);
      }
    }
    return changed;
  }

  private static Object copy(Object v) {
    if (v instanceof JsonObject o) {
      return o.copy();
    }
    if (v instanceof JsonArray a) {
      return a.copy();
    }
    return v;
  }
}
