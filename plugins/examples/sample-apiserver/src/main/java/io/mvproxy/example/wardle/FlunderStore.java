package io.mvproxy.example.wardle;

import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * In-memory flunder storage with a global resourceVersion counter and watch fan-out (the sample's stand-in for
 * etcd). One instance per server; thread-safe (synchronized), every method returns copies.
 */
public final class FlunderStore {
  /** A watch subscription. */
  public interface Subscription {
    /** Stops delivering events. */
    void cancel();
  }

  private record Watcher(String namespace, Consumer<JsonObject> sink) {
  }

  private final Map<String, JsonObject> objects = new TreeMap<>();
  private final List<Watcher> watchers = new CopyOnWriteArrayList<>();
  private long resourceVersion = 1;

  /** @return the current resourceVersion (of the last write) */
  public synchronized String resourceVersion() {
    return String.valueOf(resourceVersion);
  }

  /**
   * @param namespace the namespace
   * @param name      the name
   * @return a copy of the object, or null
   */
  public synchronized JsonObject get(String namespace, String name) {
    JsonObject o = objects.get(key(namespace, name));
    return o == null ? null : o.copy();
  }

  /**
   * @param namespace a namespace, or {@code ""} for all
   * @return copies, ordered by namespace then name
   */
  public synchronized List<JsonObject> list(String namespace) {
    List<JsonObject> out = new ArrayList<>();
    for (JsonObject o : objects.values()) {
      if (namespace.isEmpty() || namespace.equals(o.getJsonObject("metadata").getString("namespace"))) {
        out.add(o.copy());
      }
    }
    return out;
  }

  /**
   * Stores a new object, setting {@code metadata.resourceVersion}, and emits {@code ADDED}.
   *
   * @param obj the complete object (namespace and name set)
   * @return a copy as stored, or null when an object of that name exists
   */
  public synchronized JsonObject create(JsonObject obj) {
    JsonObject meta = obj.getJsonObject("metadata");
    String k = key(meta.getString("namespace"), meta.getString("name"));
    if (objects.containsKey(k)) {
      return null;
    }
    meta.put("resourceVersion", String.valueOf(++resourceVersion));
    objects.put(k, obj.copy());
    emit("ADDED", obj);
    return obj.copy();
  }

  /**
   * Removes an object and emits {@code DELETED} with a new resourceVersion.
   *
   * @param namespace the namespace
   * @param name      the name
   * @return the removed object, or null when absent
   */
  public synchronized JsonObject delete(String namespace, String name) {
    JsonObject o = objects.remove(key(namespace, name));
    if (o == null) {
      return null;
    }
    o.getJsonObject("metadata").put("resourceVersion", String.valueOf(++resourceVersion));
    emit("DELETED", o);
    return o.copy();
  }

  /**
   * Subscribes to changes; optionally replays the current objects as {@code ADDED} first (atomically with the
   * subscription, so no change is missed).
   *
   * @param namespace a namespace, or {@code ""} for all
   * @param replay    true to send the current objects first
   * @param sink      receives {@code {type, object}} events (called under the store lock: keep it short)
   * @return the subscription
   */
  public synchronized Subscription watch(String namespace, boolean replay, Consumer<JsonObject> sink) {
    if (replay) {
      for (JsonObject o : list(namespace)) {
        sink.accept(new JsonObject().put("type", "ADDED").put("object", o));
      }
    }
    Watcher w = new Watcher(namespace, sink);
    watchers.add(w);
    return () -> watchers.remove(w);
  }

  private void emit(String type, JsonObject obj) {
    String ns = obj.getJsonObject("metadata").getString("namespace");
    for (Watcher w : watchers) {
      if (w.namespace().isEmpty() || w.namespace().equals(ns)) {
        w.sink().accept(new JsonObject().put("type", type).put("object", obj.copy()));
      }
    }
  }

  private static String key(String namespace, String name) {
    return namespace + "/" + name;
  }
}
