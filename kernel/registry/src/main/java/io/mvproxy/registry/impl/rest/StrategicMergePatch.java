package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Applies a strategic merge patch ({@code application/strategic-merge-patch+json}) to an object, as apimachinery
 * v0.33.0 {@code pkg/util/strategicpatch/patch.go} {@code StrategicMergeMapPatch} does on the server (parallel lists
 * merged, unmatched nulls ignored), driven by the kind's struct tags ({@link PatchMeta}): a JSON merge patch, except
 * that lists with {@code patchStrategy:"merge"} are merged (by {@code patchMergeKey} for lists of maps, as a set for
 * lists of scalars) and the directives {@code $patch: replace|delete|merge}, {@code $retainKeys},
 * {@code $deleteFromPrimitiveList/<field>} and {@code $setElementOrder/<field>} are honoured. Errors are answered as
 * apiserver {@code pkg/endpoints/handlers/patch.go} {@code interpretStrategicMergePatchError} does: 400 for a patch
 * that is not a JSON object or has a malformed directive list, 422 for lists of lists, and otherwise (a missing
 * merge key, an unknown {@code $patch}, an order mismatch) 500 with the patch library's message, exactly as
 * kube-apiserver answers them.
 */
public final class StrategicMergePatch {
  private static final String DIRECTIVE = "$patch";
  private static final String DELETE = "delete";
  private static final String REPLACE = "replace";
  private static final String MERGE = "merge";
  private static final String RETAIN_KEYS = "retainKeys";
  private static final String RETAIN_KEYS_DIRECTIVE = "$retainKeys";
  private static final String DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList";
  private static final String SET_ELEMENT_ORDER = "$setElementOrder";
  private static final String BAD_PRIMITIVE_LIST = "invalid patch format of primitive list";
  private static final String BAD_RETAIN_KEYS = "invalid patch format of retainKeys";
  private static final String BAD_SET_ELEMENT_ORDER = "invalid patch format of setElementOrder list";
  private static final String LIST_OF_LISTS = "lists of lists are not supported";

  /** The JSON kinds Go's unstructured values have ({@code reflect.Type} of an unstructured value). */
  private enum GoType {
    MAP("map[string]interface {}"), SLICE("[]interface {}"), STRING("string"), INT("int64"), FLOAT("float64"),
    BOOL("bool"), NIL("<nil>");

    final String name;

    GoType(String name) {
      this.name = name;
    }
  }

  /** A patch-library error and how kube-apiserver answers it. */
  private static final class PatchError extends RuntimeException {
    private final StatusReason reason;

    PatchError(StatusReason reason, String message) {
      super(message, null, false, false);
      this.reason = reason;
    }

    static PatchError badRequest(String message) {
      return new PatchError(StatusReason.BadRequest, message);
    }

    static PatchError other(String message) {
      return new PatchError(StatusReason.InternalError, message);
    }
  }

  private StrategicMergePatch() {
  }

  /**
   * @param original the object as the client sees it (not changed)
   * @param patch    the patch body
   * @param meta     the kind's patch metadata
   * @return the patched object
   * @throws StatusException 400 when the patch is not a JSON object or is malformed, 422 for lists of lists, 500
   *     for the other patch errors (as kube-apiserver)
   */
  public static JsonObject apply(JsonObject original, Buffer patch, PatchMeta meta) {
    Object p;
    try {
      p = StrictJson.decode(patch, null);
    } catch (RuntimeException e) {
      // strategicPatchObject: kjson.UnmarshalStrict's error as it is (Go's encoding/json texts)
      throw StatusException.badRequest(GoJsonSyntax.syntaxErrorOr(patch.getBytes(), e.getMessage()));
    }
    if (p == null) {
      p = new JsonObject();
    }
    if (!(p instanceof JsonObject po)) {
      throw StatusException.badRequest("json: cannot unmarshal " + jsonKind(p) + " into Go value of type "
          + "map[string]interface {}");
    }
    return apply(original, po, meta);
  }

  /**
   * @param original the object (not changed)
   * @param patch    the patch (not changed)
   * @param meta     the kind's patch metadata
   * @return the patched object
   * @throws StatusException as {@link #apply(JsonObject, Buffer, PatchMeta)}
   */
  @SuppressWarnings("unchecked")
  public static JsonObject apply(JsonObject original, JsonObject patch, PatchMeta meta) {
    try {
      Map<String, Object> out = mergeMap((Map<String, Object>) plain(original), (Map<String, Object>) plain(patch),
          meta);
      return (JsonObject) vertx(out);
    } catch (PatchError e) {
      if (e.reason == StatusReason.BadRequest) {
        throw StatusException.badRequest(e.getMessage());
      }
      if (e.reason == StatusReason.Invalid) {
        throw new StatusException(StatusReason.Invalid, "the server rejected our request due to an error in our "
            + "request", new JsonObject());
      }
      throw new StatusException(StatusReason.InternalError, e.getMessage(), null);
    }
  }

  // ---- mergeMap and its helpers (patch.go) ----

  private static Map<String, Object> mergeMap(Map<String, Object> original, Map<String, Object> patch,
                                              PatchMeta schema) {
    if (patch.containsKey(DIRECTIVE)) {
      return handleDirectiveInMergeMap(patch.get(DIRECTIVE), patch);
    }
    if (original == null) {
      original = new LinkedHashMap<>();
    }
    applyRetainKeysDirective(original, patch);
    mergePatchIntoOriginal(original, patch, schema);
    for (Map.Entry<String, Object> e : new ArrayList<>(patch.entrySet())) {
      String k = e.getKey();
      Object patchV = e.getValue();
      boolean isDeleteList = false;
      if (k.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
        k = extractKey(k, DELETE_FROM_PRIMITIVE_LIST);
        isDeleteList = true;
      }
      if (patchV == null) {
        original.remove(k);
        continue;
      }
      if (!original.containsKey(k) || type(original.get(k)) != type(patchV)) {
        if (!isDeleteList) {
          discardNullValuesFromPatch(patchV);
          Object[] kept = removeDirectives(patchV);
          if (kept == null) {
            original.remove(k);
          } else {
            original.put(k, kept[0]);
          }
        }
        continue;
      }
      GoType t = type(original.get(k));
      PatchMeta sub = schema.field(k);
      if (t == GoType.MAP) {
        original.put(k, mergeMapHandler(original.get(k), patchV, sub, patchStrategy(sub.strategies())));
      } else if (t == GoType.SLICE) {
        original.put(k, mergeSliceHandler(original.get(k), patchV, sub, patchStrategy(sub.strategies()),
            sub.mergeKey(), isDeleteList));
      } else {
        Object[] kept = removeDirectives(patchV);
        if (kept == null) {
          original.remove(k);
        } else {
          original.put(k, kept[0]);
        }
      }
    }
    return original;
  }

  private static Map<String, Object> handleDirectiveInMergeMap(Object directive, Map<String, Object> patch) {
    if (REPLACE.equals(directive)) {
      patch.remove(DIRECTIVE);
      return patch;
    }
    if (DELETE.equals(directive)) {
      return new LinkedHashMap<>();
    }
    throw badPatchType(directive, patch);
  }

  @SuppressWarnings("unchecked")
  private static void discardNullValuesFromPatch(Object v) {
    if (v instanceof Map<?, ?> m) {
      ((Map<String, Object>) m).entrySet().removeIf(e -> e.getValue() == null);
      m.values().forEach(StrategicMergePatch::discardNullValuesFromPatch);
    } else if (v instanceof List<?> l) {
      l.forEach(StrategicMergePatch::discardNullValuesFromPatch);
    }
  }

  /** @return {the value without directives}, or null when the value itself is a directive (not kept) */
  @SuppressWarnings("unchecked")
  private static Object[] removeDirectives(Object v) {
    if (v instanceof Map<?, ?> m) {
      if (m.containsKey(DIRECTIVE)) {
        return null;
      }
      Map<String, Object> typed = (Map<String, Object>) m;
      for (String k : new ArrayList<>(typed.keySet())) {
        Object[] kept = removeDirectives(typed.get(k));
        if (kept == null) {
          typed.remove(k);
        } else {
          typed.put(k, kept[0]);
        }
      }
      return new Object[] {typed};
    }
    if (v instanceof List<?> l) {
      List<Object> res = new ArrayList<>();
      for (Object x : l) {
        Object[] kept = removeDirectives(x);
        if (kept != null) {
          res.add(kept[0]);
        }
      }
      return new Object[] {res};
    }
    return new Object[] {v};
  }

  @SuppressWarnings("unchecked")
  private static Object mergeMapHandler(Object original, Object patch, PatchMeta schema, String strategy) {
    if (!(original instanceof Map<?, ?> o)) {
      throw badArgType(GoType.MAP, original);
    }
    if (!(patch instanceof Map<?, ?> p)) {
      throw badArgType(GoType.MAP, patch);
    }
    if (!REPLACE.equals(strategy)) {
      return mergeMap((Map<String, Object>) o, (Map<String, Object>) p, schema);
    }
    return p;
  }

  @SuppressWarnings("unchecked")
  private static List<Object> mergeSliceHandler(Object original, Object patch, PatchMeta schema, String strategy,
                                                String mergeKey, boolean isDeleteList) {
    if (!(original instanceof List<?> o)) {
      throw badArgType(GoType.SLICE, original);
    }
    if (!(patch instanceof List<?> p)) {
      throw badArgType(GoType.SLICE, patch);
    }
    if (MERGE.equals(strategy) || isDeleteList) {
      return mergeSlice((List<Object>) o, (List<Object>) p, schema, mergeKey, isDeleteList);
    }
    return (List<Object>) p;
  }

  private static List<Object> mergeSlice(List<Object> original, List<Object> patch, PatchMeta schema,
                                         String mergeKey, boolean isDeleteList) {
    if (original.isEmpty() && patch.isEmpty()) {
      return original;
    }
    GoType kind = sliceElementType(original, patch);
    List<Object> merged;
    if (kind != GoType.MAP) {
      if (isDeleteList) {
        return deleteFromSlice(original, patch);
      }
      List<Object> both = new ArrayList<>(original);
      both.addAll(patch);
      merged = deduplicateScalars(both);
    } else {
      if (mergeKey.isEmpty()) {
        throw PatchError.other("cannot merge lists without merge key for type map");
      }
      GoSlice callers = new GoSlice(original);
      List<List<Object>> special = mergeSliceWithSpecialElements(callers, patch, mergeKey);
      GoSlice work = special.get(0) == callers.items ? callers : new GoSlice(new ArrayList<>(special.get(0)));
      original = new ArrayList<>(special.get(0));
      patch = special.get(1);
      merged = mergeSliceWithoutSpecialElements(work, patch, mergeKey, schema);
      callers.writeBack();
    }
    List<List<Object>> parts = mergeKey.isEmpty() ? partitionPrimitives(merged, patch)
        : partitionMaps(merged, patch, mergeKey);
    return normalizeElementOrder(parts.get(0), parts.get(1), patch, original, mergeKey, kind);
  }

  @SuppressWarnings("unchecked")
  private static List<List<Object>> mergeSliceWithSpecialElements(GoSlice original, List<Object> patch,
                                                                  String mergeKey) {
    List<Object> withoutSpecial = new ArrayList<>();
    boolean replace = false;
    for (Object v : patch) {
      Map<String, Object> m = (Map<String, Object>) v;
      if (!m.containsKey(DIRECTIVE)) {
        withoutSpecial.add(v);
        continue;
      }
      Object type = m.get(DIRECTIVE);
      if (DELETE.equals(type)) {
        if (!m.containsKey(mergeKey)) {
          throw noMergeKey(m, mergeKey);
        }
        int i;
        while ((i = findMapInSlice(original.items, mergeKey, m.get(mergeKey))) >= 0) {
          original.delete(i);
        }
      } else if (REPLACE.equals(type)) {
        replace = true;
      } else if (MERGE.equals(type)) {
        throw PatchError.other("merging lists cannot yet be specified in the patch");
      } else {
        throw badPatchType(type, m);
      }
    }
    if (replace) {
      return List.of(withoutSpecial, new ArrayList<>());
    }
    return List.of(original.items, withoutSpecial);
  }

  @SuppressWarnings("unchecked")
  private static List<Object> mergeSliceWithoutSpecialElements(GoSlice original, List<Object> patch,
                                                               String mergeKey, PatchMeta schema) {
    for (Object v : patch) {
      Map<String, Object> m = (Map<String, Object>) v;
      if (!m.containsKey(mergeKey)) {
        throw noMergeKey(m, mergeKey);
      }
      int i = findMapInSlice(original.items, mergeKey, m.get(mergeKey));
      if (i >= 0) {
        original.set(i, mergeMap((Map<String, Object>) original.items.get(i), m, schema));
      } else {
        original.append(v);
      }
    }
    return new ArrayList<>(original.items);
  }

  /**
   * A list of maps being merged, with the Go slice semantics upstream's results depend on: deletions
   * ({@code append(s[:i], s[i+1:]...)}), in-place merges and appends within capacity write through to the backing
   * array of the caller's slice (whose length and capacity are the list's original size), which
   * {@code mergePatchIntoOriginal} then reads as the server's element order.
   */
  private static final class GoSlice {
    final List<Object> items;
    private final List<Object> caller;
    private final Object[] back;
    private int len;
    private boolean aliased = true;

    GoSlice(List<Object> caller) {
      this.caller = caller;
      this.items = new ArrayList<>(caller);
      this.back = caller.toArray();
      this.len = back.length;
    }

    void delete(int i) {
      items.remove(i);
      if (aliased) {
        System.arraycopy(back, i + 1, back, i, len - i - 1);
        len--;
      }
    }

    void set(int i, Object v) {
      items.set(i, v);
      if (aliased) {
        back[i] = v;
      }
    }

    void append(Object v) {
      items.add(v);
      if (aliased && len < back.length) {
        back[len++] = v;
      } else {
        aliased = false;
      }
    }

    /** Leaves the caller's list as the caller's slice header sees the shared backing array. */
    void writeBack() {
      for (int i = 0; i < back.length; i++) {
        caller.set(i, back[i]);
      }
    }
  }

  private static List<Object> deleteFromSlice(List<Object> current, List<Object> toDelete) {
    Set<Object> del = new HashSet<>();
    toDelete.forEach(v -> del.add(key(v)));
    List<Object> out = new ArrayList<>();
    for (Object v : current) {
      if (!del.contains(key(v))) {
        out.add(v);
      }
    }
    return out;
  }

  /** @return the index of the first map whose {@code key} equals {@code value}, or -1 */
  private static int findMapInSlice(List<Object> list, String key, Object value) {
    for (int i = 0; i < list.size(); i++) {
      if (!(list.get(i) instanceof Map<?, ?> m)) {
        throw PatchError.other("value for key " + i + " is not a map");
      }
      if (m.containsKey(key) && goEquals(m.get(key), value)) {
        return i;
      }
    }
    return -1;
  }

  /** Go's in-place de-duplication (its order is what later steps see). */
  private static List<Object> deduplicateScalars(List<Object> s) {
    List<Object> l = new ArrayList<>(s);
    int length = l.size() - 1;
    for (int i = 0; i < length; i++) {
      for (int j = i + 1; j <= length; j++) {
        if (goEquals(l.get(i), l.get(j))) {
          l.set(j, l.get(length));
          l.remove(length);
          length--;
          j--;
        }
      }
    }
    return l;
  }

  private static void applyRetainKeysDirective(Map<String, Object> original, Map<String, Object> patch) {
    if (!patch.containsKey(RETAIN_KEYS_DIRECTIVE)) {
      return;
    }
    Object retain = patch.remove(RETAIN_KEYS_DIRECTIVE);
    if (!(retain instanceof List<?> list)) {
      throw PatchError.badRequest(BAD_RETAIN_KEYS);
    }
    Set<Object> keep = new HashSet<>();
    list.forEach(v -> keep.add(key(v)));
    for (Map.Entry<String, Object> e : patch.entrySet()) {
      if (e.getValue() == null || e.getKey().startsWith(DELETE_FROM_PRIMITIVE_LIST)
          || e.getKey().startsWith(SET_ELEMENT_ORDER)) {
        continue;
      }
      if (!keep.contains(key(e.getKey()))) {
        throw PatchError.badRequest(BAD_RETAIN_KEYS);
      }
    }
    original.keySet().removeIf(k -> !keep.contains(key(k)));
  }

  @SuppressWarnings("unchecked")
  private static void mergePatchIntoOriginal(Map<String, Object> original, Map<String, Object> patch,
                                             PatchMeta schema) {
    for (String key : new ArrayList<>(patch.keySet())) {
      if (!key.startsWith(SET_ELEMENT_ORDER) || !patch.containsKey(key)) {
        continue;
      }
      Object order = patch.remove(key);
      if (!(order instanceof List<?> orderList)) {
        throw badArgType(GoType.SLICE, order);
      }
      String originalKey = extractKey(key, SET_ELEMENT_ORDER);
      boolean foundOriginal = original.containsKey(originalKey);
      boolean foundPatch = patch.containsKey(originalKey);
      List<Object> originalValue = null;
      List<Object> patchValue = null;
      if (foundOriginal) {
        if (!(original.get(originalKey) instanceof List<?> l)) {
          throw badArgType(GoType.SLICE, original.get(originalKey));
        }
        originalValue = (List<Object>) l;
      }
      if (foundPatch) {
        if (!(patch.get(originalKey) instanceof List<?> l)) {
          throw badArgType(GoType.SLICE, patch.get(originalKey));
        }
        patchValue = (List<Object>) l;
      }
      PatchMeta sub = schema.field(originalKey);
      String strategy = patchStrategy(sub.strategies());
      validatePatchWithSetOrderList(patchValue, (List<Object>) orderList, sub.mergeKey());
      List<Object> merged;
      if (foundOriginal && !foundPatch) {
        merged = originalValue;
      } else if (!foundOriginal && foundPatch) {
        Object[] kept = removeDirectives(patchValue);
        if (kept == null) {
          continue;
        }
        merged = (List<Object>) kept[0];
      } else if (foundOriginal) {
        merged = mergeSliceHandler(originalValue, patchValue, sub, strategy, sub.mergeKey(), false);
      } else {
        continue;
      }
      List<List<Object>> parts = sub.mergeKey().isEmpty() ? partitionPrimitives(merged, (List<Object>) orderList)
          : partitionMaps(merged, (List<Object>) orderList, sub.mergeKey());
      GoType kind = sliceElementType(originalValue == null ? List.of() : originalValue,
          patchValue == null ? List.of() : patchValue);
      original.put(originalKey, normalizeElementOrder(parts.get(0), parts.get(1), (List<Object>) orderList,
          originalValue == null ? List.of() : originalValue, sub.mergeKey(), kind));
      patch.remove(originalKey);
    }
  }

  private static void validatePatchWithSetOrderList(List<Object> patchList, List<Object> setOrder, String mergeKey) {
    if (patchList == null || setOrder.isEmpty() || patchList.isEmpty()) {
      return;
    }
    List<Object> nonDelete = mergeKey.isEmpty() ? patchList : extractToDeleteItems(patchList).get(0);
    int patchIndex = 0;
    int orderIndex = 0;
    while (patchIndex < nonDelete.size() && orderIndex < setOrder.size()) {
      if (nonDelete.get(patchIndex) instanceof Map<?, ?> m && m.containsKey(DIRECTIVE)) {
        patchIndex++;
        continue;
      }
      if (mergeKeyValueEqual(nonDelete.get(patchIndex), setOrder.get(orderIndex), mergeKey)) {
        patchIndex++;
      }
      orderIndex++;
    }
    if (patchIndex < nonDelete.size() && orderIndex >= setOrder.size()) {
      throw PatchError.other("The order in patch list:\n" + goV(patchList) + "\n doesn't match "
          + SET_ELEMENT_ORDER + " list:\n" + goV(setOrder) + "\n");
    }
  }

  private static boolean mergeKeyValueEqual(Object left, Object right, String mergeKey) {
    if (mergeKey.isEmpty()) {
      return goEquals(left, right);
    }
    if (!(left instanceof Map<?, ?> l)) {
      throw badArgType(GoType.MAP, left);
    }
    if (!(right instanceof Map<?, ?> r)) {
      throw badArgType(GoType.MAP, right);
    }
    if (!l.containsKey(mergeKey)) {
      throw noMergeKey(l, mergeKey);
    }
    if (!r.containsKey(mergeKey)) {
      throw noMergeKey(r, mergeKey);
    }
    return goEquals(l.get(mergeKey), r.get(mergeKey));
  }

  private static String extractKey(String s, String prefix) {
    String[] parts = s.split("/", 2);
    if (parts.length <= 1 || !parts[0].equals(prefix)) {
      throw PatchError.badRequest(DELETE_FROM_PRIMITIVE_LIST.equals(prefix) ? BAD_PRIMITIVE_LIST
          : BAD_SET_ELEMENT_ORDER);
    }
    return parts[1];
  }

  // ---- element order (patch.go normalizeElementOrder, mergeSortedSlice) ----

  private static List<List<Object>> partitionPrimitives(List<Object> merged, List<Object> by) {
    Set<Object> in = new HashSet<>();
    by.forEach(v -> in.add(key(v)));
    List<Object> patch = new ArrayList<>();
    List<Object> serverOnly = new ArrayList<>();
    for (Object v : merged) {
      (in.contains(key(v)) ? patch : serverOnly).add(v);
    }
    return List.of(patch, serverOnly);
  }

  private static List<List<Object>> partitionMaps(List<Object> merged, List<Object> by, String mergeKey) {
    List<Object> patch = new ArrayList<>();
    List<Object> serverOnly = new ArrayList<>();
    for (Object v : merged) {
      if (!(v instanceof Map<?, ?> m)) {
        throw badArgType(GoType.MAP, v);
      }
      if (!m.containsKey(mergeKey)) {
        throw noMergeKey(m, mergeKey);
      }
      (findMapInSlice(by, mergeKey, m.get(mergeKey)) >= 0 ? patch : serverOnly).add(v);
    }
    return List.of(patch, serverOnly);
  }

  private static List<Object> normalizeElementOrder(List<Object> patch, List<Object> serverOnly,
                                                    List<Object> patchOrder, List<Object> serverOrder,
                                                    String mergeKey, GoType kind) {
    List<Object> p = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
    List<Object> s = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
    return mergeSortedSlice(s, p, serverOrder, mergeKey, kind);
  }

  private static List<Object> normalizeSliceOrder(List<Object> toSort, List<Object> order, String mergeKey,
                                                  GoType kind) {
    List<Object> sorted = new ArrayList<>(toSort);
    List<Object> toDelete = List.of();
    if (kind == GoType.MAP) {
      validateMergeKeyInLists(mergeKey, sorted, order);
      List<List<Object>> split = extractToDeleteItems(sorted);
      sorted = new ArrayList<>(split.get(0));
      toDelete = split.get(1);
    }
    sorted.sort((a, b) -> {
      int ia = index(order, a, mergeKey, kind);
      int ib = index(order, b, mergeKey, kind);
      return ia >= 0 && ib >= 0 ? Integer.compare(ia, ib) : 0;
    });
    sorted.addAll(toDelete);
    return sorted;
  }

  private static List<Object> mergeSortedSlice(List<Object> left, List<Object> right, List<Object> serverOrder,
                                               String mergeKey, GoType kind) {
    int size = left.size() + right.size();
    List<Object> s = new ArrayList<>(size);
    int i = 0;
    int j = 0;
    for (int k = 0; k < size; k++) {
      if (i >= left.size() && j < right.size()) {
        s.add(right.get(j++));
      } else if (j >= right.size() && i < left.size()) {
        s.add(left.get(i++));
      } else {
        int li = index(serverOrder, left.get(i), mergeKey, kind);
        int ri = index(serverOrder, right.get(j), mergeKey, kind);
        if (li >= 0 && ri >= 0 && li < ri) {
          s.add(left.get(i++));
        } else {
          s.add(right.get(j++));
        }
      }
    }
    return s;
  }

  private static int index(List<Object> l, Object value, String mergeKey, GoType kind) {
    Object want = kind == GoType.MAP ? (value instanceof Map<?, ?> m ? m.get(mergeKey) : null) : value;
    for (int i = 0; i < l.size(); i++) {
      Object v = l.get(i);
      Object have = kind == GoType.MAP ? (v instanceof Map<?, ?> m ? m.get(mergeKey) : null) : v;
      if (goEquals(want, have)) {
        return i;
      }
    }
    return -1;
  }

  private static void validateMergeKeyInLists(String mergeKey, List<Object> a, List<Object> b) {
    for (List<Object> list : List.of(a, b)) {
      for (Object item : list) {
        if (!(item instanceof Map<?, ?> m)) {
          throw badArgType(GoType.MAP, item);
        }
        if (!m.containsKey(mergeKey)) {
          throw noMergeKey(m, mergeKey);
        }
      }
    }
  }

  private static List<List<Object>> extractToDeleteItems(List<Object> l) {
    List<Object> keep = new ArrayList<>();
    List<Object> delete = new ArrayList<>();
    for (Object v : l) {
      if (!(v instanceof Map<?, ?> m)) {
        throw badArgType(GoType.MAP, v);
      }
      (DELETE.equals(m.get(DIRECTIVE)) ? delete : keep).add(v);
    }
    return List.of(keep, delete);
  }

  // ---- types, equality, messages ----

  private static GoType sliceElementType(List<Object> a, List<Object> b) {
    GoType prev = null;
    for (List<Object> s : List.of(a, b)) {
      for (Object v : s) {
        GoType t = type(v);
        if (prev == null) {
          prev = t;
          if (t == GoType.SLICE) {
            throw new PatchError(StatusReason.Invalid, LIST_OF_LISTS);
          }
        } else if (prev != t) {
          throw PatchError.other("list element types are not identical: [" + goV(a) + " " + goV(b) + "]");
        }
      }
    }
    if (prev == null) {
      throw PatchError.other("no elements in any of the given slices");
    }
    return prev;
  }

  /** {@code extractRetainKeysPatchStrategy}: the strategy besides {@code retainKeys}. */
  private static String patchStrategy(List<String> strategies) {
    return switch (strategies.size()) {
      case 0 -> "";
      case 1 -> RETAIN_KEYS.equals(strategies.get(0)) ? "" : strategies.get(0);
      case 2 -> {
        if (RETAIN_KEYS.equals(strategies.get(0))) {
          yield strategies.get(1);
        }
        if (RETAIN_KEYS.equals(strategies.get(1))) {
          yield strategies.get(0);
        }
        throw PatchError.other("unexpected patch strategy: " + goV(strategies));
      }
      default -> throw PatchError.other("unexpected patch strategy: " + goV(strategies));
    };
  }

  private static GoType type(Object v) {
    if (v == null) {
      return GoType.NIL;
    }
    if (v instanceof Map<?, ?>) {
      return GoType.MAP;
    }
    if (v instanceof List<?>) {
      return GoType.SLICE;
    }
    if (v instanceof String) {
      return GoType.STRING;
    }
    if (v instanceof Boolean) {
      return GoType.BOOL;
    }
    if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte
        || v instanceof BigInteger) {
      return GoType.INT;
    }
    return GoType.FLOAT;
  }

  /** Go's {@code ==} on two unstructured scalars: same type and value. */
  private static boolean goEquals(Object a, Object b) {
    GoType ta = type(a);
    if (ta != type(b)) {
      return false;
    }
    return switch (ta) {
      case NIL -> true;
      case INT -> new BigInteger(a.toString()).equals(new BigInteger(b.toString()));
      case FLOAT -> ((Number) a).doubleValue() == ((Number) b).doubleValue();
      case STRING, BOOL -> a.equals(b);
      default -> a == b;
    };
  }

  /** @return a hashable key equal for {@link #goEquals} values */
  private static Object key(Object v) {
    return switch (type(v)) {
      case INT -> List.of("i", new BigInteger(v.toString()));
      case FLOAT -> List.of("f", ((Number) v).doubleValue());
      case NIL -> List.of("nil");
      case STRING, BOOL -> List.of(type(v).name(), v);
      default -> List.of("ref", System.identityHashCode(v));
    };
  }

  private static PatchError badArgType(GoType expected, Object actual) {
    return PatchError.other("expected a " + expected.name + ", but received a " + type(actual).name);
  }

  private static PatchError noMergeKey(Map<?, ?> m, String key) {
    return PatchError.other("map: " + goV(m) + " does not contain declared merge key: " + key);
  }

  private static PatchError badPatchType(Object type, Map<?, ?> m) {
    return PatchError.other("unknown patch type: " + goV(type) + " in map: " + goV(m));
  }

  /** @return {@code fmt.Sprintf("%v", v)} of an unstructured value (map keys sorted, as fmt prints maps) */
  static String goV(Object v) {
    if (v == null) {
      return "<nil>";
    }
    if (v instanceof Map<?, ?> m) {
      List<String> keys = new ArrayList<>();
      m.keySet().forEach(k -> keys.add(String.valueOf(k)));
      Collections.sort(keys);
      StringBuilder sb = new StringBuilder("map[");
      for (int i = 0; i < keys.size(); i++) {
        sb.append(i > 0 ? " " : "").append(keys.get(i)).append(':').append(goV(m.get(keys.get(i))));
      }
      return sb.append(']').toString();
    }
    if (v instanceof List<?> l) {
      StringBuilder sb = new StringBuilder("[");
      for (int i = 0; i < l.size(); i++) {
        sb.append(i > 0 ? " " : "").append(goV(l.get(i)));
      }
      return sb.append(']').toString();
    }
    if (type(v) == GoType.FLOAT) {
      double d = ((Number) v).doubleValue();
      return d == Math.rint(d) && Math.abs(d) < 1e21 ? new BigDecimal(d).toPlainString()
          : io.mvproxy.registry.impl.schema.GoValues.formatFloat(d);
    }
    return String.valueOf(v);
  }

  /** @return the JSON kind of a decoded value that is no object or null, as Go's {@code UnmarshalTypeError} says */
  static String jsonKind(Object v) {
    return v instanceof JsonArray ? "array" : v instanceof String ? "string" : v instanceof Boolean ? "bool"
        : "number";
  }

  /** @return a plain value as Vert.x JSON ({@code JsonObject} / {@code JsonArray} all the way down) */
  private static Object vertx(Object v) {
    if (v instanceof Map<?, ?> m) {
      JsonObject o = new JsonObject();
      m.forEach((k, x) -> o.put(String.valueOf(k), vertx(x)));
      return o;
    }
    if (v instanceof List<?> l) {
      JsonArray a = new JsonArray();
      l.forEach(x -> a.add(vertx(x)));
      return a;
    }
    return v;
  }

  /** @return a deep copy of a JSON value as plain {@code LinkedHashMap} / {@code ArrayList} / scalars */
  private static Object plain(Object v) {
    if (v instanceof JsonObject o) {
      v = o.getMap();
    }
    if (v instanceof JsonArray a) {
      v = a.getList();
    }
    if (v instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      m.forEach((k, x) -> out.put(String.valueOf(k), plain(x)));
      return out;
    }
    if (v instanceof List<?> l) {
      List<Object> out = new ArrayList<>(l.size());
      l.forEach(x -> out.add(plain(x)));
      return out;
    }
    return v;
  }
}
