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
 * serialized as {@code FieldsV1}: {@code {"f:spec": {"f:x": {}}}}). A path is a list of segments: field names, and
 * list items of the two associative lists of {@code ObjectMeta} ({@link #ASSOCIATIVE}): {@code finalizers}, a
 * {@code listType=set} whose items are owned one by one ({@code v:"example.com/f"}), and {@code ownerReferences}, a
 * {@code listType=map} keyed by {@code uid} whose items are owned one by one, each as a whole
 * ({@code k:{"uid":"..."}}; {@code OwnerReference} is a {@code structType=atomic}); an item segment starts with
 * {@link #ITEM}. A path ends at a leaf: a scalar, {@code null}, an empty object, any other list (owned as a whole:
 * atomic) or an item (items a list holds more than once are one leaf, as structured-merge-diff tracks duplicates).
 * Paths of fields the server sets are never tracked (apimachinery {@code managedfields/internal/stripmeta.go}:
 * {@code apiVersion}, {@code kind}, {@code metadata} name, namespace,
 * creationTimestamp, selfLink, uid, generation, managedFields, resourceVersion).
 */
final class FieldSet {
  private static final Set<List<String>> STRIPPED = Set.of(List.of("apiVersion"), List.of("kind"),
      List.of("metadata"), List.of("metadata", "name"), List.of("metadata", "namespace"),
      List.of("metadata", "creationTimestamp"), List.of("metadata", "selfLink"), List.of("metadata", "uid"),
      List.of("metadata", "clusterName"), List.of("metadata", "generation"), List.of("metadata", "managedFields"),
      List.of("metadata", "resourceVersion"));

  /**
   * The first character of a list item segment (a field named with a leading NUL is tracked like any field; only its
   * FieldsV1 member then lacks the {@code f:} prefix).
   */
  static final char ITEM = '\u0000';

  /**
   * The associative lists, path to key: {@code ""} for a {@code listType=set} of strings, else the
   * {@code listMapKey} of a {@code listType=map} of objects ({@code k8s.io/apimachinery} {@code ObjectMeta}'s
   * {@code +listType} markers). A list whose items cannot be keyed (an item of the wrong type, a missing key) is
   * owned as a whole, as any other list.
   */
  static final Map<List<String>, String> ASSOCIATIVE = associative();

  /** @return {@link #ASSOCIATIVE} in ObjectMeta's field order (errors are listed in it) */
  private static Map<List<String>, String> associative() {
    Map<List<String>, String> m = new LinkedHashMap<>();
    m.put(List.of("metadata", "ownerReferences"), "uid");
    m.put(List.of("metadata", "finalizers"), "");
    return java.util.Collections.unmodifiableMap(m);
  }

  /** One item of an associative list: its segment ({@link #ITEM} + FieldsV1 key) and its value. */
  record Item(String segment, Object value) {
  }

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
      List<Item> items = v instanceof JsonArray a ? items(p, a) : null;
      if (v instanceof JsonObject child && !child.isEmpty()) {
        if (!p.equals(List.of("metadata", "managedFields"))) {
          walk(child, p, out);
        }
      } else if (items != null) {
        Map<String, List<Object>> bySegment = new LinkedHashMap<>();
        items.forEach(i -> bySegment.computeIfAbsent(i.segment(), x -> new ArrayList<>()).add(i.value()));
        bySegment.forEach((seg, values) -> {
          List<String> ip = new ArrayList<>(p);
          ip.add(seg);
          out.put(List.copyOf(ip), values.size() == 1 ? values.get(0) : new JsonArray(values));
        });
      } else if (v == null && ASSOCIATIVE.containsKey(p)) {
        continue; // a null list: no items, and the list itself is not tracked here
      } else if (!STRIPPED.contains(p)) {
        out.put(List.copyOf(p), v);
      }
    }
  }

  /**
   * @param path the list's path
   * @param list the list
   * @return its items in list order (an item held twice is there twice) when {@code path} is one of the
   *     {@link #ASSOCIATIVE} lists and every item can be keyed (a string in a set, an object with a string key in a
   *     map); else null (the list is atomic). An empty list has no items (structured-merge-diff's {@code ToFieldSet}
   *     adds nothing for it).
   */
  static List<Item> items(List<String> path, JsonArray list) {
    String key = ASSOCIATIVE.get(path);
    if (key == null) {
      return null;
    }
    List<Item> out = new ArrayList<>();
    for (Object item : list) {
      String seg = segment(key, item);
      if (seg == null) {
        return null;
      }
      out.add(new Item(seg, item));
    }
    return out;
  }

  /** @return the segments {@code items} holds more than once, once each per repetition, in list order */
  static List<String> duplicates(List<Item> items) {
    Set<String> seen = new java.util.HashSet<>();
    List<String> out = new ArrayList<>();
    for (Item i : items) {
      if (!seen.add(i.segment())) {
        out.add(i.segment());
      }
    }
    return out;
  }

  /**
   * @param key  the list's key ({@link #ASSOCIATIVE})
   * @param item one item
   * @return the item's segment, or null when it cannot be keyed
   */
  static String segment(String key, Object item) {
    if (key.isEmpty() && item instanceof String str) {
      return ITEM + "v:" + io.vertx.core.json.Json.encode(str);
    }
    if (!key.isEmpty() && item instanceof JsonObject obj && obj.getValue(key) instanceof String k) {
      return ITEM + "k:{" + io.vertx.core.json.Json.encode(key) + ":" + io.vertx.core.json.Json.encode(k) + "}";
    }
    return null;
  }

  /** @return true when {@code segment} is a list item ({@link #ITEM}) */
  static boolean isItem(String segment) {
    return !segment.isEmpty() && segment.charAt(0) == ITEM;
  }

  /**
   * @param old the object before (null for a create)
   * @param now the object after
   * @return the leaf paths added, modified (another value) and removed
   */
  static Comparison compare(JsonObject old, JsonObject now) {
    return compare(leaves(old), leaves(now));
  }

  /**
   * @param a the leaves of the object before ({@link #leaves})
   * @param b the leaves of the object after
   * @return the leaf paths added, modified (another value) and removed
   */
  static Comparison compare(Map<List<String>, Object> a, Map<List<String>, Object> b) {
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
   * @return its paths; a path through an item of an {@link #ASSOCIATIVE} list keeps the item ({@code v:} of a set,
   *     {@code k:} of a map; the list's own {@code "."} is not tracked, as a map's), a path through any other list
   *     item ({@code k:}, {@code v:}, {@code i:}) is cut at the list, which is owned as a whole here
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
        if (!prefix.isEmpty() && !ASSOCIATIVE.containsKey(prefix)) {
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
      } else if (associativeItem(prefix, k)) {
        List<String> p = new ArrayList<>(prefix);
        p.add(ITEM + k);
        out.add(List.copyOf(p)); // an item is owned as a whole (fields under it, as older writers kept, are read so)
      } else if (!prefix.isEmpty()) {
        out.add(List.copyOf(prefix));
      }
    }
  }

  private static boolean associativeItem(List<String> list, String fieldsV1Key) {
    String key = ASSOCIATIVE.get(list);
    return key != null && (key.isEmpty() ? fieldsV1Key.startsWith("v:") : fieldsV1Key.startsWith("k:"));
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
        Object next = cur.getValue(fieldsV1Key(seg));
        if (!(next instanceof JsonObject n)) {
          JsonObject created = new JsonObject();
          cur.put(fieldsV1Key(seg), created);
          cur = created;
        } else {
          cur = n;
        }
      }
    }
    for (List<String> p : paths) {
      JsonObject cur = root;
      for (String seg : p) {
        cur = cur.getJsonObject(fieldsV1Key(seg));
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

  /** @return the FieldsV1 member name of a segment: {@code f:<field>}, or the item's {@code v:...} / {@code k:...} */
  private static String fieldsV1Key(String seg) {
    return isItem(seg) ? seg.substring(1) : "f:" + seg;
  }

  /**
   * @return a path as Kubernetes prints it in conflicts ({@code fieldpath.Path.String}): {@code .spec.x},
   *     {@code .metadata.finalizers[="example.com/f"]}, {@code .metadata.ownerReferences[uid="u1"]}
   */
  static String print(List<String> path) {
    StringBuilder b = new StringBuilder();
    for (String seg : path) {
      b.append(printSegment(seg));
    }
    return b.toString();
  }

  /** @return one segment as {@code fieldpath.PathElement.String} prints it: {@code .x}, {@code [="v"]}, {@code [k="v"]} */
  static String printSegment(String seg) {
    if (!isItem(seg)) {
      return "." + seg;
    }
    if (seg.startsWith("v:", 1)) {
      return "[=" + goQuote(new JsonArray("[" + seg.substring(3) + "]").getValue(0)) + "]";
    }
    JsonObject key = new JsonObject(seg.substring(3));
    StringBuilder b = new StringBuilder("[");
    String sep = "";
    for (String k : key.fieldNames()) {
      b.append(sep).append(k).append('=').append(goQuote(key.getValue(k)));
      sep = ",";
    }
    return b.append(']').toString();
  }

  /** @return a value as structured-merge-diff's {@code value.ToString} prints it (a string as Go's {@code %q}) */
  private static String goQuote(Object v) {
    return v instanceof String s ? io.mvproxy.api.GoStrings.quote(s) : String.valueOf(v);
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
