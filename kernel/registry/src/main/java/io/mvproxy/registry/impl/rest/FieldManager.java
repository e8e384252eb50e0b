package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Server-side field ownership in {@code metadata.managedFields}, as kube-apiserver's field manager
 * ({@code apimachinery/pkg/util/managedfields/internal}, {@code sigs.k8s.io/structured-merge-diff/merge/update.go};
 * no Java port of either exists), for both operations:
 * <ul>
 *   <li><b>Update</b> (create, update, a non-apply patch; {@link #update}): the fields the write added or changed
 *   become the writer's (entry {@code operation: Update}, keyed by manager, apiVersion and subresource); other
 *   managers lose them and every manager loses the fields it removed. The manager is {@code fieldManager}, else the
 *   {@code User-Agent} up to its first {@code /} ({@code prefixFromUserAgent}).</li>
 *   <li><b>Apply</b> ({@link #apply}): the configuration is merged into the live object; fields the same manager
 *   applied before and no longer applies are removed unless another manager owns them; a field another manager
 *   (Apply <i>or</i> Update) owns and the apply changes is a conflict: {@code 409 Conflict}
 *   {@code Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using demo.mvproxy.io/v1: .spec.x}
 *   ({@code internal/conflict.go}), unless {@code force=true}, which takes it over. Applying a value equal to the live
 *   one makes the managers co-owners.</li>
 * </ul>
 * The two associative lists of {@code ObjectMeta} are merged and owned item by item as upstream ({@link FieldSet}
 * {@code ASSOCIATIVE}: {@code finalizers} a set, {@code ownerReferences} a map keyed by {@code uid} of atomic items),
 * so an apply keeps the finalizers and owner references other managers added and removes only the items its manager
 * applied before and no longer applies; a configuration holding an item twice is refused.
 * Differences from upstream, documented in the README: every other list is owned as a whole (atomic, as a list
 * without {@code x-kubernetes-list-type: map/set}), and maps are owned field by field (no {@code "."} ownership of a
 * map itself). A write that changes nothing keeps every timestamp (as {@code IgnoreManagedFieldsTimestampsTransformer}).
 */
final class FieldManager {
  /** Longest manager name taken from a User-Agent ({@code FieldManagerMaxLength}). */
  static final int MAX_MANAGER_LENGTH = 128;

  private FieldManager() {
  }

  /**
   * @param fieldManager the {@code fieldManager} query parameter (may be null)
   * @param userAgent    the request's {@code User-Agent} (may be null)
   * @return the manager of an Update: {@code fieldManager}, else the User-Agent's prefix ({@code managerOrUserAgent})
   */
  static String updateManager(String fieldManager, String userAgent) {
    if (fieldManager != null && !fieldManager.isEmpty()) {
      return fieldManager;
    }
    String ua = userAgent == null ? "" : userAgent.split("/", 2)[0];
    return ua.length() > MAX_MANAGER_LENGTH ? ua.substring(0, MAX_MANAGER_LENGTH) : ua;
  }

  /**
   * Records an Update in {@code next}'s managedFields.
   *
   * @param live        the object before (null for a create), any served version (fields are the same in all)
   * @param next        the object to store; its {@code metadata.managedFields} is the request's and is replaced
   * @param manager     the writer ({@link #updateManager})
   * @param apiVersion  the request's {@code group/version}
   * @param subresource {@code ""}, {@code status} or {@code scale}; a subresource write cannot set managedFields
   *                    (the live object's are used), a main-resource write may (an empty list in the request, or a
   *                    list holding one empty entry, resets them: {@code isResetManagedFields})
   * @param reset       the top-level fields the request's strategy resets ({@link #resetFields}): never owned
   * @return {@code next}
   */
  static JsonObject update(JsonObject live, JsonObject next, String manager, String apiVersion, String subresource,
                           Set<String> reset) {
    ManagedFields liveMf = ManagedFields.of(live);
    ManagedFields mf;
    Object sent = ObjectRules.metadata(next).getValue("managedFields");
    if (!subresource.isEmpty()) {
      mf = liveMf;
    } else if (sent instanceof JsonArray a && a.size() == 1 && a.getValue(0) instanceof JsonObject e
        && e.isEmpty()) {
      mf = ManagedFields.parse(null);
    } else {
      mf = ManagedFields.parse(sent);
      if (mf.isEmpty() && !(sent instanceof JsonArray a && a.isEmpty())) {
        mf = liveMf;
      }
    }
    mf.expandWholeLists(live);
    FieldSet.Comparison cmp = FieldSet.compare(live, next);
    Set<List<String>> changed = cmp.changed();
    changed.removeIf(p -> reset.contains(p.get(0)));
    String key = ManagedFields.key(manager, ManagedFields.UPDATE, apiVersion, subresource);
    for (ManagedFields.Entry e : mf.all()) {
      Set<List<String>> f = new LinkedHashSet<>(e.fields);
      f.removeAll(cmp.removed());
      if (!e.key().equals(key)) {
        f.removeAll(changed);
      }
      e.set(f);
    }
    if (!changed.isEmpty()) {
      ManagedFields.Entry mine = mf.get(key);
      Set<List<String>> f = new LinkedHashSet<>(mine == null ? Set.of() : mine.fields);
      f.addAll(changed);
      if (mine == null) {
        mf.put(new ManagedFields.Entry(manager, ManagedFields.UPDATE, apiVersion, subresource, ObjectRules.now(), f,
            null));
      } else {
        mine.set(f);
        mine.time = ObjectRules.now();
      }
    }
    mf.dropEmpty();
    mf.capUpdaters();
    mf.writeTo(next);
    return next;
  }

  /**
   * Applies {@code config} of {@code manager} onto {@code live}.
   *
   * @param live        the object as the client sees it (not changed)
   * @param config      the apply configuration
   * @param manager     the {@code fieldManager}
   * @param apiVersion  the request's {@code group/version} (recorded in managedFields)
   * @param subresource {@code ""} or {@code status}
   * @param force       {@code force=true}: take conflicting fields over instead of failing
   * @param reset       the top-level fields the request's strategy resets ({@link #resetFields}): neither owned nor
   *                    a conflict
   * @return the merged object with its managedFields
   * @throws StatusException 409 Conflict listing every conflict, without {@code force}; 500 for a configuration
   *     holding an item of an associative list twice ({@link #checkConfiguration})
   */
  static JsonObject apply(JsonObject live, JsonObject config, String manager, String apiVersion, String subresource,
                          boolean force, Set<String> reset) {
    checkConfiguration(config);
    ManagedFields mf = ManagedFields.of(live);
    mf.expandWholeLists(live);
    JsonObject base = live.copy();
    ObjectRules.metadata(base).remove("managedFields");
    JsonObject merged = PatchApplier.merge(base, withoutNullMaps(config, base));
    mergeAssociative(merged, base, config);
    // the strategy puts the reset fields back as stored: the merge keeps them as stored, so they neither conflict,
    // nor change ownership, nor make an unchanged apply a write
    for (String r : reset) {
      if (base.containsKey(r)) {
        merged.put(r, base.getValue(r));
      } else {
        merged.remove(r);
      }
    }
    Map<List<String>, Object> configLeaves = FieldSet.leaves(config);
    Set<List<String>> now = new LinkedHashSet<>(configLeaves.keySet());
    now.removeIf(p -> reset.contains(p.get(0)));
    String key = ManagedFields.key(manager, ManagedFields.APPLY, apiVersion, subresource);
    ManagedFields.Entry last = mf.get(key);
    if (last != null) {
      for (List<String> p : last.fields) {
        // a path the configuration now sets fields under (an empty map before, a filled one now) stays
        if (!now.contains(p) && !setsUnder(now, p) && !mf.ownedByOther(p, key)) {
          remove(merged, p, now);
        }
      }
    }
    Map<List<String>, Object> baseLeaves = FieldSet.leaves(base);
    FieldSet.Comparison cmp = FieldSet.compare(baseLeaves, FieldSet.leaves(merged));
    Set<List<String>> changed = cmp.changed();
    changed.addAll(replaced(baseLeaves, configLeaves, cmp));
    changed.removeIf(p -> reset.contains(p.get(0)));
    Map<String, List<String>> conflicts = new TreeMap<>();
    List<String[]> ordered = new ArrayList<>();
    for (ManagedFields.Entry e : mf.all()) {
      if (e.key().equals(key)) {
        continue;
      }
      Set<List<String>> f = new LinkedHashSet<>(e.fields);
      for (List<String> p : e.fields) {
        if (changed.contains(p)) {
          conflicts.computeIfAbsent(e.printed(), k -> new ArrayList<>()).add(FieldSet.print(p));
          ordered.add(new String[] {e.printed(), FieldSet.print(p)});
          f.remove(p);
        }
      }
      f.removeAll(cmp.removed());
      e.set(f);
    }
    if (!ordered.isEmpty() && !force) {
      throw conflictError(ordered, conflicts);
    }
    boolean noop = FieldSet.same(base, merged);
    String time = noop && last != null && last.time != null ? last.time : ObjectRules.now();
    ManagedFields.Entry mine = new ManagedFields.Entry(manager, ManagedFields.APPLY, apiVersion, subresource, time,
        now, null);
    if (last != null && last.fields.equals(now)) {
      mine.raw = last.raw;
    }
    mf.put(mine);
    mf.dropEmpty();
    mf.writeTo(merged);
    return merged;
  }

  /**
   * The fields a request's strategy resets, which the field manager ignores ({@code rest.ResetFieldsStrategy},
   * structured-merge-diff's {@code IgnoreFilter}): the main resource of a kind with a status subresource resets
   * {@code status}, the status subresource {@code spec} (the custom resource and Namespace strategies'
   * {@code GetResetFields}).
   *
   * @param subresource    {@code ""}, {@code status} or {@code scale}
   * @param statusEnabled  whether the kind has a status subresource
   * @return the top-level field names
   */
  static Set<String> resetFields(String subresource, boolean statusEnabled) {
    return "status".equals(subresource) ? Set.of("spec")
        : subresource.isEmpty() && statusEnabled ? Set.of("status") : Set.of();
  }

  /** @return {@link #resetFields(String, boolean)} of the request's subresource and version */
  static Set<String> resetFields(CrdRequest req) {
    return resetFields(req.info().subresource(), req.version().statusEnabled());
  }

  /**
   * Records the Apply entry of an object created by server-side apply.
   *
   * @param created     the object to create (the configuration), changed
   * @param config      the apply configuration
   * @param manager     the {@code fieldManager}
   * @param apiVersion  the request's {@code group/version}
   * @param subresource {@code ""} or {@code status}
   * @param reset       the top-level fields the request's strategy resets ({@link #resetFields}): not owned
   */
  static void applyCreate(JsonObject created, JsonObject config, String manager, String apiVersion,
                          String subresource, Set<String> reset) {
    checkConfiguration(config);
    ManagedFields mf = ManagedFields.parse(null);
    Set<List<String>> owned = new LinkedHashSet<>(FieldSet.leaves(config).keySet());
    owned.removeIf(p -> reset.contains(p.get(0)));
    mf.put(new ManagedFields.Entry(manager, ManagedFields.APPLY, apiVersion, subresource, ObjectRules.now(),
        owned, null));
    mf.dropEmpty(); // a configuration of only the name owns nothing: no entry (structured-merge-diff update())
    mf.writeTo(created);
  }

  private static StatusException conflictError(List<String[]> ordered, Map<String, List<String>> byManager) {
    JsonArray causes = new JsonArray();
    for (String[] c : ordered) {
      causes.add(new JsonObject().put("reason", "FieldManagerConflict").put("message", "conflict with " + c[0])
          .put("field", c[1]));
    }
    String msg;
    if (ordered.size() == 1) {
      msg = "Apply failed with 1 conflict: conflict with " + ordered.get(0)[0] + ": " + ordered.get(0)[1];
    } else {
      List<String> lines = new ArrayList<>();
      byManager.forEach((m, paths) -> {
        lines.add("conflicts with " + m + ":");
        paths.forEach(p -> lines.add("- " + p));
      });
      msg = "Apply failed with " + ordered.size() + " conflicts: " + String.join("\n", lines);
    }
    return new StatusException(StatusReason.Conflict, msg, new JsonObject().put("causes", causes));
  }

  /**
   * Merges each {@link FieldSet#ASSOCIATIVE} list the configuration sets into {@code merged} item by item, as
   * structured-merge-diff's merge does ({@code typed/merge.go} {@code visitListItems}): the live items stay (items
   * the live list holds twice too), the configuration's items are added, the shared ones in the configuration's order;
   * an item the configuration has replaces the live one ({@code OwnerReference} is atomic). A list the configuration
   * sets to {@code null} keeps the live items (the JSON merge would have removed them). A list whose items cannot be
   * keyed stays as the JSON merge left it (replaced).
   *
   * @param merged the live object with the configuration merged in (changed)
   * @param live   the live object
   * @param config the apply configuration ({@link #checkConfiguration}: no duplicates)
   */
  static void mergeAssociative(JsonObject merged, JsonObject live, JsonObject config) {
    for (List<String> path : FieldSet.ASSOCIATIVE.keySet()) {
      String field = path.get(path.size() - 1);
      if (!(at(live, path) instanceof JsonArray l)
          || !(at(merged, path.subList(0, path.size() - 1)) instanceof JsonObject parent)
          || !(at(config, path.subList(0, path.size() - 1)) instanceof JsonObject configParent)
          || !configParent.containsKey(field)) {
        continue;
      }
      Object r = configParent.getValue(field);
      List<FieldSet.Item> lhs = FieldSet.items(path, l);
      List<FieldSet.Item> rhs = r == null ? List.of() : r instanceof JsonArray ra ? FieldSet.items(path, ra) : null;
      if (lhs != null && rhs != null) {
        parent.put(field, mergeItems(lhs, rhs));
      }
    }
  }

  /**
   * The item order of structured-merge-diff's {@code mergingWalker.visitListItems}: walks both lists; an item only
   * live stays where it is, a configuration item comes in the configuration's order, and a live item the
   * configuration also has waits until it is the next shared one in the configuration's order; a live item held
   * twice that the configuration also has becomes the configuration's one item.
   */
  private static JsonArray mergeItems(List<FieldSet.Item> lhs, List<FieldSet.Item> rhs) {
    Set<String> observedLhs = new java.util.HashSet<>();
    lhs.forEach(i -> observedLhs.add(i.segment()));
    Map<String, Object> observedRhs = new java.util.LinkedHashMap<>();
    rhs.forEach(i -> observedRhs.put(i.segment(), i.value()));
    java.util.Deque<String> shared = new java.util.ArrayDeque<>();
    rhs.stream().map(FieldSet.Item::segment).filter(observedLhs::contains).forEach(shared::add);
    String nextShared = shared.poll();
    Set<String> mergedRhs = new java.util.HashSet<>();
    JsonArray out = new JsonArray();
    int li = 0;
    int ri = 0;
    while (li < lhs.size() || ri < rhs.size()) {
      if (li < lhs.size() && ri < rhs.size()) {
        String pe = lhs.get(li).segment();
        if (pe.equals(rhs.get(ri).segment())) {
          mergedRhs.add(pe);
          out.add(observedRhs.get(pe)); // an item is atomic: the configuration's replaces the live one
          li++;
          ri++;
          nextShared = shared.poll();
          continue;
        }
        if (observedRhs.containsKey(pe) && nextShared != null && !nextShared.equals(pe)) {
          li++;
          continue;
        }
      }
      if (li < lhs.size()) {
        String pe = lhs.get(li).segment();
        if (!observedRhs.containsKey(pe)) {
          out.add(lhs.get(li).value());
          li++;
          continue;
        } else if (mergedRhs.contains(pe)) {
          li++;
        }
      }
      if (ri < rhs.size()) {
        String pe = rhs.get(ri).segment();
        mergedRhs.add(pe);
        out.add(observedRhs.get(pe)); // an item is atomic: the configuration's replaces the live one
        ri++;
        if (nextShared != null && nextShared.equals(pe)) {
          nextShared = shared.poll();
        }
      }
    }
    return out;
  }

  /**
   * The stored leaves an apply changes although they are not added or modified leaves here, which
   * structured-merge-diff's comparison reports as modified (so another owner's field is a conflict): a field the
   * configuration sets to {@code null} (the JSON merge removes it), a scalar the configuration replaces by a map, and
   * the fields under a map it replaces by a scalar or a list.
   *
   * @param stored the leaves of the live object ({@link FieldSet#leaves})
   * @param config the leaves of the apply configuration
   * @param cmp    the comparison of the live object with the merged one
   * @return those leaf paths of the live object
   */
  private static Set<List<String>> replaced(Map<List<String>, Object> stored, Map<List<String>, Object> config,
                                            FieldSet.Comparison cmp) {
    Set<List<String>> out = new LinkedHashSet<>();
    config.forEach((p, v) -> {
      if (v == null && stored.get(p) != null && !(stored.get(p) instanceof JsonObject)) { // a null map merges empty
        out.add(p);
      }
    });
    for (List<String> r : cmp.removed()) {
      for (List<String> a : cmp.added()) {
        if (a.size() > r.size() && a.subList(0, r.size()).equals(r)
            || r.size() > a.size() && r.subList(0, a.size()).equals(a)) {
          out.add(r);
        }
      }
    }
    return out;
  }

  /**
   * @param config the apply configuration
   * @param live   the live object
   * @return {@code config} without the {@code null} members whose live value is an object: structured-merge-diff
   *     merges a null map as an empty one (an empty {@code labels:} line of a manifest keeps the live labels); the
   *     JSON merge would remove the map with every other manager's keys
   */
  static JsonObject withoutNullMaps(JsonObject config, JsonObject live) {
    JsonObject out = new JsonObject();
    for (String k : config.fieldNames()) {
      Object v = config.getValue(k);
      Object l = live == null ? null : live.getValue(k);
      if (v == null && l instanceof JsonObject) {
        continue;
      }
      out.put(k, v instanceof JsonObject c && l instanceof JsonObject lo ? withoutNullMaps(c, lo) : v);
    }
    return out;
  }

  /**
   * Refuses an apply configuration whose {@link FieldSet#ASSOCIATIVE} list holds an item twice, as kube-apiserver's
   * field manager does when it types the patch ({@code structuredmerge.go}; structured-merge-diff's
   * {@code validate.go}).
   *
   * @param config the apply configuration
   * @throws StatusException 500 without a reason: {@code failed to create typed patch object (<ns>/<name>;
   *     <group>/<version>, Kind=<Kind>): .metadata.finalizers: duplicate entries for key [="x"]} (several lines
   *     after {@code errors:} for several)
   */
  static void checkConfiguration(JsonObject config) {
    List<String> errors = new ArrayList<>();
    for (List<String> path : FieldSet.ASSOCIATIVE.keySet()) {
      List<FieldSet.Item> items = at(config, path) instanceof JsonArray a ? FieldSet.items(path, a) : null;
      if (items != null) {
        for (String dup : FieldSet.duplicates(items)) {
          errors.add(FieldSet.print(path) + ": duplicate entries for key " + FieldSet.printSegment(dup));
        }
      }
    }
    if (errors.isEmpty()) {
      return;
    }
    JsonObject meta = config.getValue("metadata") instanceof JsonObject m ? m : new JsonObject();
    String av = config.getValue("apiVersion") instanceof String s ? s : "";
    String gv = av.contains("/") ? av : "/" + av;
    String gvknn = str(meta, "namespace") + "/" + str(meta, "name") + "; " + gv + ", Kind="
        + (config.getValue("kind") instanceof String k ? k : "");
    String detail = errors.size() == 1 ? errors.get(0) : "errors:\n  " + String.join("\n  ", errors);
    throw StatusException.withoutReason(500, "failed to create typed patch object (" + gvknn + "): " + detail);
  }

  private static String str(JsonObject o, String key) {
    return o.getValue(key) instanceof String s ? s : "";
  }

  /** @return the value at a path of field names, or null */
  private static Object at(JsonObject o, List<String> path) {
    Object cur = o;
    for (String seg : path) {
      if (!(cur instanceof JsonObject j)) {
        return null;
      }
      cur = j.getValue(seg);
    }
    return cur;
  }

  /**
   * Removes the leaf at {@code path} (a field, a set item, a map item or a map item's field), then ancestors left
   * empty (objects and lists) that the new configuration does not set.
   */
  private static void remove(JsonObject o, List<String> path, Set<List<String>> now) {
    List<Object> chain = new ArrayList<>();
    Object cur = o;
    for (int i = 0; i < path.size() - 1; i++) {
      chain.add(cur);
      cur = child(cur, path.subList(0, i), path.get(i));
      if (!(cur instanceof JsonObject) && !(cur instanceof JsonArray)) {
        return;
      }
    }
    removeChild(cur, path.subList(0, path.size() - 1), path.get(path.size() - 1));
    for (int i = path.size() - 2; i >= 0; i--) {
      Object parent = chain.get(i);
      List<String> p = path.subList(0, i + 1);
      Object c = child(parent, path.subList(0, i), path.get(i));
      boolean empty = c instanceof JsonObject j && j.isEmpty() || c instanceof JsonArray a && a.isEmpty();
      if (empty && !setsUnder(now, p)) {
        removeChild(parent, path.subList(0, i), path.get(i));
      } else {
        return;
      }
    }
  }

  /** @return the member {@code seg} of an object, or the item {@code seg} of the list at {@code at}; or null */
  private static Object child(Object container, List<String> at, String seg) {
    if (container instanceof JsonObject j && !FieldSet.isItem(seg)) {
      return j.getValue(seg);
    }
    List<FieldSet.Item> items = container instanceof JsonArray a && FieldSet.isItem(seg) ? FieldSet.items(at, a)
        : null;
    if (items != null) {
      return items.stream().filter(i -> i.segment().equals(seg)).map(FieldSet.Item::value).findFirst().orElse(null);
    }
    return null;
  }

  /** Removes the member {@code seg} of an object, or every item {@code seg} of the list at {@code at}. */
  private static void removeChild(Object container, List<String> at, String seg) {
    if (container instanceof JsonObject j && !FieldSet.isItem(seg)) {
      j.remove(seg);
    } else if (container instanceof JsonArray a && FieldSet.isItem(seg) && FieldSet.ASSOCIATIVE.containsKey(at)) {
      String key = FieldSet.ASSOCIATIVE.get(at);
      for (int i = a.size() - 1; i >= 0; i--) {
        if (seg.equals(FieldSet.segment(key, a.getValue(i)))) {
          a.remove(i);
        }
      }
    }
  }

  private static boolean setsUnder(Set<List<String>> paths, List<String> prefix) {
    for (List<String> p : paths) {
      if (p.size() >= prefix.size() && p.subList(0, prefix.size()).equals(prefix)) {
        return true;
      }
    }
    return false;
  }
}
