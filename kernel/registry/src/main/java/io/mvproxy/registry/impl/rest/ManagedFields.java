package io.mvproxy.registry.impl.rest;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code metadata.managedFields} entries of one object, keyed as kube-apiserver keys them
 * ({@code managedfields/internal/managedfields.go} {@code BuildManagerIdentifier}): an Apply entry by manager and
 * subresource, an Update entry by manager, apiVersion and subresource. Written back sorted as upstream
 * ({@code sortEncodedManagedFields}: operation, time, manager, apiVersion, subresource), with at most
 * {@value #MAX_UPDATE_MANAGERS} Update entries: the oldest are merged into {@value #ANCIENT} per apiVersion
 * ({@code capmanagers.go}).
 */
final class ManagedFields {
  /** Update entries kept before the oldest are merged ({@code DefaultMaxUpdateManagers}). */
  static final int MAX_UPDATE_MANAGERS = 10;
  /** Manager name of merged old Update entries ({@code ancientChangesManagerName}). */
  static final String ANCIENT = "ancient-changes";
  static final String APPLY = "Apply";
  static final String UPDATE = "Update";

  /** One entry; {@code fields} are leaf paths ({@link FieldSet}), {@code raw} the stored FieldsV1 while unchanged. */
  static final class Entry {
    final String manager;
    final String operation;
    String apiVersion;
    final String subresource;
    String time;
    Set<List<String>> fields;
    JsonObject raw;

    Entry(String manager, String operation, String apiVersion, String subresource, String time,
          Set<List<String>> fields, JsonObject raw) {
      this.manager = manager;
      this.operation = operation;
      this.apiVersion = apiVersion;
      this.subresource = subresource;
      this.time = time;
      this.fields = fields;
      this.raw = raw;
    }

    /** @return the identity of the entry: manager, operation, apiVersion (Update only), subresource */
    String key() {
      return ManagedFields.key(manager, operation, apiVersion, subresource);
    }

    /** @return how conflicts name this manager ({@code printManager}): {@code "m"}, {@code "m" using v} */
    String printed() {
      String s = "\"" + manager + "\"";
      if (!subresource.isEmpty()) {
        s += " with subresource \"" + subresource + "\"";
      }
      return UPDATE.equals(operation) ? s + " using " + apiVersion : s;
    }

    /** Replaces the fields (the stored FieldsV1 is re-encoded). */
    void set(Set<List<String>> f) {
      if (!f.equals(fields)) {
        fields = f;
        raw = null;
      }
    }

    JsonObject toJson() {
      JsonObject o = new JsonObject().put("manager", manager).put("operation", operation);
      if (!apiVersion.isEmpty()) {
        o.put("apiVersion", apiVersion);
      }
      if (time != null) {
        o.put("time", time);
      }
      o.put("fieldsType", "FieldsV1").put("fieldsV1", raw != null ? raw : FieldSet.encode(fields));
      if (!subresource.isEmpty()) {
        o.put("subresource", subresource);
      }
      return o;
    }
  }

  private final Map<String, Entry> entries = new LinkedHashMap<>();

  private ManagedFields() {
  }

  /** @return the identity of an entry (see {@link Entry#key()}) */
  static String key(String manager, String operation, String apiVersion, String subresource) {
    return manager + "\u0000" + operation + "\u0000" + (APPLY.equals(operation) ? "" : apiVersion) + "\u0000"
        + subresource;
  }

  /**
   * @param managedFields a {@code metadata.managedFields} value (anything; entries that are not well-formed are
   *                      dropped, as upstream drops undecodable managed fields)
   * @return the entries
   */
  static ManagedFields parse(Object managedFields) {
    ManagedFields m = new ManagedFields();
    if (managedFields instanceof JsonArray a) {
      for (Object e : a) {
        if (!(e instanceof JsonObject o) || !(o.getValue("manager") instanceof String mgr)
            || !(o.getValue("operation") instanceof String op) || !(APPLY.equals(op) || UPDATE.equals(op))) {
          continue;
        }
        JsonObject f = o.getValue("fieldsV1") instanceof JsonObject fo ? fo : new JsonObject();
        Entry en = new Entry(mgr, op, str(o, "apiVersion"), str(o, "subresource"),
            o.getValue("time") instanceof String t ? t : null, FieldSet.parse(f), f);
        m.entries.put(en.key(), en);
      }
    }
    return m;
  }

  /** @return the entries of {@code o.metadata.managedFields} */
  static ManagedFields of(JsonObject o) {
    JsonObject meta = o == null ? null : o.getJsonObject("metadata");
    return parse(meta == null ? null : meta.getValue("managedFields"));
  }

  private static String str(JsonObject o, String k) {
    return o.getValue(k) instanceof String s ? s : "";
  }

  /** @return true when there is no entry */
  boolean isEmpty() {
    return entries.isEmpty();
  }

  /** @return the entry with {@code key}, or null */
  Entry get(String key) {
    return entries.get(key);
  }

  /** @return every entry (changes write through) */
  List<Entry> all() {
    return new ArrayList<>(entries.values());
  }

  /** Adds or replaces the entry of its key. */
  void put(Entry e) {
    entries.put(e.key(), e);
  }

  /**
   * Reads ownership of a whole {@link FieldSet#ASSOCIATIVE} list (as this server recorded it before it owned their
   * items one by one: {@code "f:finalizers": {}}) as ownership of every item {@code live} has in it, so a manager
   * that owned the list keeps owning what it held.
   *
   * @param live the object the entries describe (null: nothing to read)
   */
  void expandWholeLists(JsonObject live) {
    if (live == null) {
      return;
    }
    Set<List<String>> liveLeaves = null;
    for (Entry e : entries.values()) {
      if (e.fields.stream().noneMatch(FieldSet.ASSOCIATIVE::containsKey)) {
        continue;
      }
      if (liveLeaves == null) {
        liveLeaves = FieldSet.leaves(live).keySet();
      }
      Set<List<String>> f = new LinkedHashSet<>();
      for (List<String> p : e.fields) {
        if (FieldSet.ASSOCIATIVE.containsKey(p) && !liveLeaves.contains(p)) {
          for (List<String> l : liveLeaves) {
            if (l.size() > p.size() && l.subList(0, p.size()).equals(p)) {
              f.add(l);
            }
          }
        } else {
          f.add(p);
        }
      }
      e.set(f);
    }
  }

  /** Drops entries that own nothing. */
  void dropEmpty() {
    entries.values().removeIf(e -> e.fields.isEmpty());
  }

  /** @return true when an entry other than the one keyed {@code skip} owns {@code path} or a path under it */
  boolean ownedByOther(List<String> path, String skip) {
    for (Entry e : entries.values()) {
      if (e.key().equals(skip)) {
        continue;
      }
      for (List<String> p : e.fields) {
        if (p.size() >= path.size() && p.subList(0, path.size()).equals(path)) {
          return true;
        }
      }
    }
    return false;
  }

  /** Merges the oldest Update entries into {@value #ANCIENT} until at most {@value #MAX_UPDATE_MANAGERS} are left. */
  void capUpdaters() {
    List<Entry> updaters = new ArrayList<>();
    for (Entry e : entries.values()) {
      if (UPDATE.equals(e.operation)) {
        updaters.add(e);
      }
    }
    if (updaters.size() <= MAX_UPDATE_MANAGERS) {
      return;
    }
    updaters.sort(Comparator.comparing((Entry e) -> e.time == null ? "" : e.time));
    int left = updaters.size();
    for (Entry e : updaters) {
      if (left <= MAX_UPDATE_MANAGERS) {
        break;
      }
      if (ANCIENT.equals(e.manager)) {
        continue;
      }
      entries.remove(e.key());
      String bucketKey = key(ANCIENT, UPDATE, e.apiVersion, "");
      Entry bucket = entries.get(bucketKey);
      if (bucket == null) {
        entries.put(bucketKey, new Entry(ANCIENT, UPDATE, e.apiVersion, "", e.time, e.fields, null));
      } else {
        Set<List<String>> union = new LinkedHashSet<>(bucket.fields);
        union.addAll(e.fields);
        bucket.set(union);
        if (e.time != null && (bucket.time == null || e.time.compareTo(bucket.time) > 0)) {
          bucket.time = e.time;
        }
        left--;
      }
    }
  }

  /** @return the entries as a {@code managedFields} list, sorted as kube-apiserver sorts them */
  JsonArray toJson() {
    List<Entry> sorted = new ArrayList<>(entries.values());
    sorted.sort(Comparator.comparing((Entry e) -> e.operation)
        .thenComparing(e -> e.time == null ? "" : e.time)
        .thenComparing(e -> e.manager).thenComparing(e -> e.apiVersion).thenComparing(e -> e.subresource));
    JsonArray a = new JsonArray();
    sorted.forEach(e -> a.add(e.toJson()));
    return a;
  }

  /** Writes the entries into {@code o.metadata.managedFields} (removed when there is none). */
  void writeTo(JsonObject o) {
    JsonObject meta = ObjectRules.metadata(o);
    if (entries.isEmpty()) {
      meta.remove("managedFields");
    } else {
      meta.put("managedFields", toJson());
    }
  }
}
