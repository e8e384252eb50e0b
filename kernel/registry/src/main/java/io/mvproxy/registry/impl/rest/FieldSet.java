package io.mvproxy.registry.impl.rest;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Sets of field paths as server-side apply tracks them ({@code sigs.k8s.io/structured-merge-diff} {@code fieldpath},
 * serialized as {@code FieldsV1}: {@code {"f:spec": {"f:x": {}}}}). A path is a list of field names; it ends at a
 * leaf: a scalar, {@code null}, an empty object or a list (lists are owned as a whole: atomic). Paths of fields the
 * server sets are never tracked (apimachinery {@code managedfields/internal/stripmeta.go}: {@code apiVersion},
 * {@code kind}, {@code metadata} name, namespace, creationTimestamp, selfLink, uid, generation, managedFields,
 * resourceVersion).
 */
final class FieldSet {
  private static final Set<List<String>> STRIPPED = Set.of(List.of("apiVersion"), List.of("kind"),
      List.of("metadata"), List.of("metadata", "name"), List.of("metadata", "namespace"),
      List.of("metadata", "creationTimestamp"), List.of("metadata", "selfLink"), List.of("metadata", "uid"),
      List.of("metadata", "clusterName"), List.of("metadata", "generation"), List.of("metadata", "managedFields"),
      List.of("metadata", "resourceVersion"));

  /** What changed between two objects (structured-merge-diff {@code typed.Comparison}), as leaf paths. */
  record Comparison(Set<List<String>> added, Set<List<String>> modified, Set<List<String>> removed) {
    /** @return added and modified paths: what the writer now owns */
    Set<List<String>> changed() {
      Set<List<String>> s = new LinkedHashSet<>(added);
      s.addAll(modified);
      return s;
    }

    /** @return true when nothing changed */
    boolean isEmpty() {
      return added.isEmpty() && modified.isEmpty() && removed.isEmpty();
    }
  }

  private FieldSet() {
  }

  /**
   * @param o an object (or an apply configuration)
   * @return its leaf paths (tracked ones only) to their values, in document order
   */
  static Map<List<String>, Object> leaves(JsonObject o) {
    Map<List<String>, Object> out = new LinkedHashMap<>();
    if (o != null) {
      walk(o, new ArrayList<>(), out);
    }
    return out;
  }

  private static void walk(JsonObject o, List<String> prefix, Map<List<String>, Object> out) {
    for (String k : o.fieldNames()) {
      List<String> p = new ArrayList<>(prefix);
      p.add(k);
      Object v = o.getValue(k);
      if (v instanceof JsonObject child && !child.isEmpty()) {
        if (!p.equals(List.of("metadata", "managedFields"))) {
          walk(child, p, out);
        }
      } else if (!STRIPPED.contains(p)) {
        out.put(List.copyOf(p), v);
      }
    }
  }

  /**
   * @param old the object before (null for a create)
   * @param now the object after
   * @return the leaf paths added, modified (another value) and removed
   */
  static Comparison compare(JsonObject old, JsonObject now) {
    Map<List<String>, Object> a = leaves(old);
    Map<List<String>, Object> b = leaves(now);
    Set<List<String>> added = new LinkedHashSet<>();
    Set<List<String>> modified = new LinkedHashSet<>();
    Set<List<String>> removed = new LinkedHashSet<>();
    b.forEach((p, v) -> {
      if (!a.containsKey(p)) {
        added.add(p);
      } else if (!same(a.get(p), v)) {
        modified.add(p);
      }
    });
    a.keySet().forEach(p -> {
      if (!b.containsKey(p)) {
        removed.add(p);
      }
    });
    return new Comparison(added, modified, removed);
  }

  /**
   * @param fieldsV1 a {@code FieldsV1} object
   * @return its paths; a path through a list item ({@code k:}, {@code v:}, {@code i:}) is cut at the list, which is
   *     owned as a whole here
   */
  static Set<List<String>> parse(JsonObject fieldsV1) {
    Set<List<String>> out = new LinkedHashSet<>();
    if (fieldsV1 != null) {
      parse(fieldsV1, new ArrayList<>(), out);
    }
    return out;
  }

  private static void parse(JsonObject set, List<String> prefix, Set<List<String>> out) {
    for (String k : set.fieldNames()) {
      if (k.equals(".")) {
        if (!prefix.isEmpty()) {
          out.add(List.copyOf(prefix));
        }
      } else if (k.startsWith("f:")) {
        List<String> p = new ArrayList<>(prefix);
        p.add(k.substring(2));
        if (set.getValue(k) instanceof JsonObject child && !child.isEmpty()) {
          parse(child, p, out);
        } else {
          out.add(List.copyOf(p));
        }
      } else if (!prefix.isEmpty()) {
        out.add(List.copyOf(prefix));
      }
    }
  }

  /**
   * @param paths leaf paths
   * @return them as {@code FieldsV1}; a path that is also the parent of another gets the {@code "."} member, as
   *     structured-merge-diff writes it
   */
  static JsonObject encode(Set<List<String>> paths) {
    JsonObject root = new JsonObject();
    for (List<String> p : paths) {
      JsonObject cur = root;
      for (String seg : p) {
        Object next = cur.getValue("f:" + seg);
        if (!(next instanceof JsonObject n)) {
          JsonObject created = new JsonObject();
          cur.put("f:" + seg, created);
          cur = created;
        } else {
          cur = n;
        }
      }
    }
    for (List<String> p : paths) {
      JsonObject cur = root;
      for (String seg : p) {
        cur = cur.getJsonObject("f:" + seg);
      }
      if (!cur.isEmpty() && !cur.containsKey(".")) {
        JsonObject node = cur;
        JsonObject marked = new JsonObject().put(".", new JsonObject());
        node.forEach(e -> marked.put(e.getKey(), e.getValue()));
        node.clear();
        marked.forEach(e -> node.put(e.getKey(), e.getValue()));
      }
    }
    return root;
  }

  /** @return a path as Kubernetes prints it in conflicts: {@code .spec.x} */
  static String print(List<String> path) {
    return "." + String.join(".", path);
  }

  /** @return true when two JSON values are equal (numbers by value, objects regardless of key order) */
  static boolean same(Object a, Object b) {
    if (a instanceof Number x && b instanceof Number y) {
      return new java.math.BigDecimal(x.toString()).compareTo(new java.math.BigDecimal(y.toString())) == 0;
    }
    if (a instanceof JsonObject x && b instanceof JsonObject y) {
      if (!x.fieldNames().equals(y.fieldNames())) {
        return false;
      }
      for (String k : x.fieldNames()) {
        if (!same(x.getValue(k), y.getValue(k))) {
          return false;
        }
      }
      return true;
    }
    if (a instanceof JsonArray x && b instanceof JsonArray y) {
      if (x.size() != y.size()) {
        return false;
      }
      for (int i = 0; i < x.size(); i++) {
        if (!same(x.getValue(i), y.getValue(i))) {
          return false;
        }
      }
      return true;
    }
    return a == null ? b == null : a.equals(b);
  }
}
