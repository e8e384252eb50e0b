package io.mvproxy.crd.store;

import com.hazelcast.config.MapConfig;
import com.hazelcast.core.EntryEvent;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.cp.IAtomicLong;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryRemovedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import com.hazelcast.query.Predicates;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Cluster-wide storage of one CRD's objects, the etcd of mvproxy (architecture.md "Storage of custom objects").
 *
 * <ul>
 *   <li>One {@link IMap} per CRD storage key ({@code mvproxy.crd.<group>.<plural>}), backup count 1, key
 *   {@code namespace/name}, value the object's JSON text in the storage version. Every node serving the CRD, in any
 *   version, shares it.</li>
 *   <li>resourceVersion: the CP {@link IAtomicLong} {@value #COUNTER} (Hazelcast 5.3 runs it in unsafe mode, on a
 *   partition with a backup, when no CP members are configured), incremented once per write and taken after the
 *   current value was read, so versions are strictly increasing per key and unique fleet-wide.</li>
 *   <li>Writes are compare-and-set on the exact stored text ({@code putIfAbsent}, {@code replace(k, old, new)}), so
 *   concurrent writers on any node never lose updates. Only String keys/values and built-in operations are used:
 *   no plugin class ever needs to be deserialized on another member.</li>
 *   <li>A delete first replaces the value with a tombstone carrying the deletion's own resourceVersion, then removes
 *   it, so the DELETED event is ordered like any other. Reads skip tombstones.</li>
 *   <li>Blocking Hazelcast calls run on worker threads ({@code executeBlocking}); gets use {@code getAsync}.</li>
 * </ul>
 */
public final class HazelcastObjectStore {
  /** Name of the fleet-wide resourceVersion counter. */
  public static final String COUNTER = "mvproxy.resourceVersion";
  /** Top-level field marking a tombstone value. */
  static final String TOMBSTONE = "$mvproxyDeleted";

  private final Vertx vertx;
  private final HazelcastInstance hz;
  private final String mapName;
  private final EventWindow window;
  private IMap<String, String> map;
  private IAtomicLong counter;
  private UUID listenerId;

  /**
   * @param vertx   the node's Vert.x
   * @param hz      the node's Hazelcast member
   * @param mapName the CRD storage key
   * @param window  the event window to feed
   */
  public HazelcastObjectStore(Vertx vertx, HazelcastInstance hz, String mapName, EventWindow window) {
    this.vertx = vertx;
    this.hz = hz;
    this.mapName = mapName;
    this.window = window;
  }

  /** @return the event window fed by this store's listener */
  public EventWindow window() {
    return window;
  }

  /**
   * Configures the map (backup count 1), registers the cluster-wide entry listener and starts the window at the
   * current counter value.
   *
   * @return completes when the store can serve
   */
  public Future<Void> start() {
    return vertx.executeBlocking(() -> {
      try {
        hz.getConfig().addMapConfig(new MapConfig(mapName).setBackupCount(1));
      } catch (RuntimeException e) {
        // an equal or conflicting configuration exists already (another node or source added it): keep it
      }
      map = hz.getMap(mapName);
      counter = hz.getCPSubsystem().getAtomicLong(COUNTER);
      listenerId = map.addEntryListener(new Listener(), true);
      window.start(counter.get());
      return null;
    }, false);
  }

  /** Unregisters the listener; the data stays in the cluster. @return completes when done */
  public Future<Void> close() {
    window.close();
    if (map == null || listenerId == null) {
      return Future.succeededFuture();
    }
    return vertx.executeBlocking(() -> map.removeEntryListener(listenerId), false).mapEmpty();
  }

  /** @return the next fleet-wide resourceVersion */
  public Future<Long> nextResourceVersion() {
    return Future.fromCompletionStage(counter.incrementAndGetAsync(), vertx.getOrCreateContext());
  }

  /**
   * @param key map key
   * @return the live object, or null when absent (or a tombstone)
   */
  public Future<StoredObject> get(String key) {
    return Future.fromCompletionStage(map.getAsync(key), vertx.getOrCreateContext())
        .map(raw -> raw == null ? null : live(key, raw));
  }

  /**
   * @param namespace namespace to list, {@code ""} for every namespace (and for cluster-scoped objects)
   * @return live objects sorted by key
   */
  public Future<List<StoredObject>> list(String namespace) {
    return vertx.executeBlocking(() -> {
      Collection<Map.Entry<String, String>> entries = namespace.isEmpty() ? map.entrySet()
          : map.entrySet(Predicates.like("__key", namespace + "/%"));
      List<StoredObject> out = new ArrayList<>(entries.size());
      for (Map.Entry<String, String> e : entries) {
        StoredObject so = live(e.getKey(), e.getValue());
        if (so != null && (namespace.isEmpty() || e.getKey().startsWith(namespace + "/"))) {
          out.add(so);
        }
      }
      out.sort(Comparator.comparing(StoredObject::key));
      return out;
    }, false);
  }

  /**
   * Creates an object with a new resourceVersion (set into {@code obj}).
   *
   * @param key map key
   * @param obj the object to store, its metadata complete but for resourceVersion
   * @return the stored object, or null when the key exists
   */
  public Future<StoredObject> create(String key, JsonObject obj) {
    return nextResourceVersion().compose(rv -> {
      obj.getJsonObject("metadata").put("resourceVersion", Long.toString(rv));
      String raw = obj.encode();
      return vertx.executeBlocking(() -> {
        String prev = map.putIfAbsent(key, raw);
        if (prev == null) {
          return StoredObject.of(key, raw);
        }
        if (isTombstone(prev) && map.replace(key, prev, raw)) {
          return StoredObject.of(key, raw);
        }
        return null;
      }, false);
    });
  }

  /**
   * Replaces {@code old} with {@code obj} (given a new resourceVersion) if {@code old} is still what is stored.
   *
   * @param old the value read before
   * @param obj the new object
   * @return the stored object, or null when the stored value changed meanwhile
   */
  public Future<StoredObject> replace(StoredObject old, JsonObject obj) {
    return nextResourceVersion().compose(rv -> {
      obj.getJsonObject("metadata").put("resourceVersion", Long.toString(rv));
      String raw = obj.encode();
      return vertx.executeBlocking(() -> map.replace(old.key(), old.raw(), raw) ? StoredObject.of(old.key(), raw)
          : null, false);
    });
  }

  /**
   * Deletes {@code old} if it is still what is stored.
   *
   * @param old the value read before
   * @return the last state with the deletion's resourceVersion, or null when the stored value changed meanwhile
   */
  public Future<JsonObject> delete(StoredObject old) {
    return delete(old, old.object());
  }

  /**
   * Deletes {@code old} if it is still what is stored, reporting {@code lastState} in the DELETED event.
   *
   * @param old       the value read before
   * @param lastState the object's final state (e.g. with its last finalizer removed)
   * @return the last state with the deletion's resourceVersion, or null when the stored value changed meanwhile
   */
  public Future<JsonObject> delete(StoredObject old, JsonObject lastState) {
    return nextResourceVersion().compose(rv -> {
      JsonObject last = lastState.copy();
      last.getJsonObject("metadata").put("resourceVersion", Long.toString(rv));
      String tomb = last.copy().put(TOMBSTONE, true).encode();
      return vertx.executeBlocking(() -> {
        if (!map.replace(old.key(), old.raw(), tomb)) {
          return null;
        }
        map.remove(old.key(), tomb);
        return last;
      }, false);
    });
  }

  private static StoredObject live(String key, String raw) {
    if (isTombstone(raw)) {
      return null;
    }
    return StoredObject.of(key, raw);
  }

  private static boolean isTombstone(String raw) {
    return raw != null && raw.contains("\"" + TOMBSTONE + "\"") && new JsonObject(raw).containsKey(TOMBSTONE);
  }

  private static JsonObject strip(JsonObject o) {
    o.remove(TOMBSTONE);
    return o;
  }

  /** Turns map events into watch events; runs on Hazelcast event threads. */
  private final class Listener implements EntryAddedListener<String, String>, EntryUpdatedListener<String, String>,
      EntryRemovedListener<String, String> {
    /** A new key: ADDED unless it is a tombstone. */
    @Override
    public void entryAdded(EntryEvent<String, String> e) {
      if (!isTombstone(e.getValue())) {
        emit("ADDED", e.getKey(), e.getValue(), null);
      }
    }

    /** A replaced value: ADDED (over a tombstone), DELETED (to a tombstone) or MODIFIED. */
    @Override
    public void entryUpdated(EntryEvent<String, String> e) {
      boolean oldDead = isTombstone(e.getOldValue());
      boolean newDead = isTombstone(e.getValue());
      if (oldDead && !newDead) {
        emit("ADDED", e.getKey(), e.getValue(), null);
      } else if (!oldDead && newDead) {
        emit("DELETED", e.getKey(), e.getValue(), e.getOldValue());
      } else if (!oldDead) {
        emit("MODIFIED", e.getKey(), e.getValue(), e.getOldValue());
      }
    }

    /** A removed key: DELETED unless a tombstone was removed (its DELETED was already emitted). */
    @Override
    public void entryRemoved(EntryEvent<String, String> e) {
      String old = e.getOldValue();
      if (old != null && !isTombstone(old)) {
        emit("DELETED", e.getKey(), old, old);
      }
    }

    private void emit(String type, String key, String raw, String oldRaw) {
      JsonObject o = strip(new JsonObject(raw));
      JsonObject prev = oldRaw == null ? null : strip(new JsonObject(oldRaw));
      window.offer(new WatchEvent(type, StoredObject.resourceVersionOf(o), key, o, prev));
    }
  }
}
