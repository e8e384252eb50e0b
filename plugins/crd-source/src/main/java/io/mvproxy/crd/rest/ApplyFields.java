package io.mvproxy.crd.rest;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * A simplified server-side apply field ownership ({@code structured-merge-diff}, {@code metadata.managedFields}):
 * each apply records the fields its configuration sets as a {@code FieldsV1} set under its field manager
 * (operation {@code Apply}); a field that manager applied before and no longer applies is removed. Lists are
 * atomic (owned as a whole). A field another Apply manager owns and this configuration sets to a different value
 * is a conflict ({@code 409 Conflict} {@code Apply failed with 1 conflict: conflict with "mgr": .spec.x}, as
 * apimachinery's {@code managedfields/internal/conflict.go}) unless {@code force=true}, which takes the field over;
 * the same value makes the managers co-owners. Fields set by non-apply writes are not tracked.
 */
public final class ApplyFields {
  private ApplyFields() {
  }

  /**
   * Applies {@code config} of {@code manager} onto {@code current}.
   *
   * @param current    the object as the client sees it (not changed)
   * @param config     the apply configuration
   * @param manager    the {@code fieldManager}
   * @param apiVersion the request's {@code group/version} (recorded in managedFields)
   * @return the merged object with the manager's previously applied but now absent fields removed and its
   *     managedFields entry replaced
   */
  public static JsonObject apply(JsonObject current, JsonObject config, String manager, String apiVersion) {
    return apply(current, config, manager, apiVersion, true);
  }

  /**
   * Applies {@code config} of {@code manager} onto {@code current}, checking other Apply managers' fields first.
   *
   * @param current    the object as the client sees it (not changed)
   * @param config     the apply configuration
   * @param manager    the {@code fieldManager}
   * @param apiVersion the request's {@code group/version}
   * @param force      {@code force=true}: take conflicting fields over instead of failing
   * @return the merged object
   * @throws io.mvproxy.api.StatusException 409 Conflict listing every conflict, without {@code force}
   */
  public static JsonObject apply(JsonObject current, JsonObject config, String manager, String apiVersion,
                                 boolean force) {
    JsonObject now = fieldSet(config);
    JsonObject base = current.copy();
    takeOver(base, config, now, manager, force);
    JsonObject merged = PatchApplier.merge(base, config);
    JsonObject before = owned(current, manager);
    if (before != null) {
      for (List<String> path : leaves(before, new ArrayList<>(), new ArrayList<>())) {
        if (!contains(now, path)) {
          remove(merged, path, now);
        }
      }
    }
    record(merged, manager, now, apiVersion);
    return merged;
  }

  /**
   * Replaces {@code manager}'s Apply entry in {@code o.metadata.managedFields} with {@code fields}.
   *
   * @param o          the object to change
   * @param manager    the field manager
   * @param fields     its {@code FieldsV1} set
   * @param apiVersion the request's {@code group/version}
   */
  public static void record(JsonObject o, String manager, JsonObject fields, String apiVersion) {
    JsonObject meta = ObjectRules.metadata(o);
    JsonArray out = new JsonArray();
    if (meta.getValue("managedFields") instanceof JsonArray mf) {
      for (Object e : mf) {
        if (e instanceof JsonObject m && !(manager.equals(m.getString("manager"))
            && "Apply".equals(m.getString("operation")))) {
          out.add(m);
        }
      }
    }
    out.add(new JsonObject().put("manager", manager).put("operation", "Apply").put("apiVersion", apiVersion)
        .put("time", ObjectRules.now()).put("fieldsType", "FieldsV1").put("fieldsV1", fields));
    meta.put("managedFields", out);
  }

  /** @return the {@code FieldsV1} set of an apply configuration (name, namespace, apiVersion, kind excluded) */
  public static JsonObject fieldSet(JsonObject config) {
    JsonObject set = new JsonObject();
    for (String k : config.fieldNames()) {
      if ("apiVersion".equals(k) || "kind".equals(k)) {
        continue;
      }
      Object v = config.getValue(k);
      if ("metadata".equals(k) && v instanceof JsonObject m) {
        JsonObject ms = new JsonObject();
        for (String mk : m.fieldNames()) {
          if (!"name".equals(mk) && !"namespace".equals(mk) && !"managedFields".equals(mk)
              && !"resourceVersion".equals(mk)) {
            ms.put("f:" + mk, m.getValue(mk) instanceof JsonObject mo ? fieldSet(mo) : new JsonObject());
          }
        }
        if (!ms.isEmpty()) {
          set.put("f:metadata", ms);
        }
        continue;
      }
      set.put("f:" + k, v instanceof JsonObject o ? fieldSet(o) : new JsonObject());
    }
    return set;
  }

  /**
   * Finds the fields of {@code now} that other Apply managers own with another value; without {@code force} they
   * fail the apply, with it they are removed from those managers' sets (managers left with nothing are dropped).
   */
  private static void takeOver(JsonObject base, JsonObject config, JsonObject now, String manager, boolean force) {
    JsonObject meta = base.getJsonObject("metadata", new JsonObject());
    if (!(meta.getValue("managedFields") instanceof JsonArray mf)) {
      return;
    }
    List<List<String>> mine = leaves(now, new ArrayList<>(), new ArrayList<>());
    List<String[]> conflicts = new ArrayList<>();
    JsonArray kept = new JsonArray();
    for (Object e : mf) {
      if (!(e instanceof JsonObject m) || manager.equals(m.getString("manager"))
          || !"Apply".equals(m.getString("operation")) || !(m.getValue("fieldsV1") instanceof JsonObject set)) {
        kept.add(e);
        continue;
      }
      JsonObject set2 = set.copy();
      for (List<String> path : mine) {
        if (contains(set, path) && !same(valueAt(base, path), valueAt(config, path))) {
          conflicts.add(new String[] {m.getString("manager"), "." + String.join(".", path)});
          removeFromSet(set2, path);
        }
      }
      if (!set2.isEmpty()) {
        kept.add(m.copy().put("fieldsV1", set2));
      }
    }
    if (conflicts.isEmpty()) {
      return;
    }
    if (!force) {
      throw conflictError(conflicts);
    }
    meta.put("managedFields", kept);
  }

  private static io.mvproxy.api.StatusException conflictError(List<String[]> conflicts) {
    JsonArray causes = new JsonArray();
    for (String[] c : conflicts) {
      causes.add(new JsonObject().put("reason", "FieldManagerConflict").put("message", "conflict with \"" + c[0] + "\"")
          .put("field", c[1]));
    }
    String msg;
    if (conflicts.size() == 1) {
      msg = "Apply failed with 1 conflict: conflict with \"" + conflicts.get(0)[0] + "\": " + conflicts.get(0)[1];
    } else {
      java.util.TreeMap<String, List<String>> by = new java.util.TreeMap<>();
      conflicts.forEach(c -> by.computeIfAbsent(c[0], k -> new ArrayList<>()).add(c[1]));
      List<String> lines = new ArrayList<>();
      by.forEach((m, paths) -> {
        lines.add("conflicts with \"" + m + "\":");
        paths.forEach(p -> lines.add("- " + p));
      });
      msg = "Apply failed with " + conflicts.size() + " conflicts: " + String.join("\n", lines);
    }
    return new io.mvproxy.api.StatusException(io.mvproxy.api.StatusReason.Conflict, msg,
        new JsonObject().put("causes", causes));
  }

  private static boolean same(Object a, Object b) {
    if (a instanceof Number x && b instanceof Number y) {
      return new java.math.BigDecimal(x.toString()).compareTo(new java.math.BigDecimal(y.toString())) == 0;
    }
    if (a == null || b == null) {
      return a == b;
    }
    return io.vertx.core.json.Json.encode(a).equals(io.vertx.core.json.Json.encode(b));
  }

  private static Object valueAt(JsonObject o, List<String> path) {
    Object cur = o;
    for (String seg : path) {
      if (!(cur instanceof JsonObject jo)) {
        return null;
      }
      cur = jo.getValue(seg);
    }
    return cur;
  }

  private static void removeFromSet(JsonObject set, List<String> path) {
    List<JsonObject> chain = new ArrayList<>();
    JsonObject cur = set;
    for (int i = 0; i < path.size() - 1; i++) {
      chain.add(cur);
      if (!(cur.getValue("f:" + path.get(i)) instanceof JsonObject next)) {
        return;
      }
      cur = next;
    }
    cur.remove("f:" + path.get(path.size() - 1));
    for (int i = path.size() - 2; i >= 0; i--) {
      JsonObject parent = chain.get(i);
      if (parent.getValue("f:" + path.get(i)) instanceof JsonObject child && child.isEmpty()) {
        parent.remove("f:" + path.get(i));
      } else {
        return;
      }
    }
  }

  private static JsonObject owned(JsonObject o, String manager) {
    JsonObject meta = o.getJsonObject("metadata", new JsonObject());
    if (meta.getValue("managedFields") instanceof JsonArray mf) {
      for (Object e : mf) {
        if (e instanceof JsonObject m && manager.equals(m.getString("manager"))
            && "Apply".equals(m.getString("operation")) && m.getValue("fieldsV1") instanceof JsonObject f) {
          return f;
        }
      }
    }
    return null;
  }

  private static List<List<String>> leaves(JsonObject set, List<String> prefix, List<List<String>> out) {
    for (String k : set.fieldNames()) {
      if (!k.startsWith("f:")) {
        continue;
      }
      List<String> p = new ArrayList<>(prefix);
      p.add(k.substring(2));
      if (set.getValue(k) instanceof JsonObject child && !child.isEmpty()) {
        leaves(child, p, out);
      } else {
        out.add(p);
      }
    }
    return out;
  }

  private static boolean contains(JsonObject set, List<String> path) {
    JsonObject cur = set;
    for (String seg : path) {
      if (!(cur.getValue("f:" + seg) instanceof JsonObject next)) {
        return false;
      }
      cur = next;
    }
    return true;
  }

  /** Removes the leaf at {@code path}, then ancestors left empty that the new configuration does not set. */
  private static void remove(JsonObject o, List<String> path, JsonObject now) {
    List<JsonObject> chain = new ArrayList<>();
    JsonObject cur = o;
    for (int i = 0; i < path.size() - 1; i++) {
      chain.add(cur);
      if (!(cur.getValue(path.get(i)) instanceof JsonObject next)) {
        return;
      }
      cur = next;
    }
    cur.remove(path.get(path.size() - 1));
    for (int i = path.size() - 2; i >= 0; i--) {
      JsonObject parent = chain.get(i);
      List<String> p = path.subList(0, i + 1);
      if (parent.getValue(path.get(i)) instanceof JsonObject child && child.isEmpty() && !contains(now, p)) {
        parent.remove(path.get(i));
      } else {
        return;
      }
    }
  }
}
