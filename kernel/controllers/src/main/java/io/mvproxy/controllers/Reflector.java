package io.mvproxy.controllers;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * An informer's list and watch of one collection (client-go's {@code tools/cache/reflector.go} feeding a store): lists
 * the collection, then watches from the list's {@code resourceVersion} ({@code timeoutSeconds} 5..10 min as
 * upstream's {@code minWatchTimeout}), re-watching from the last event's {@code resourceVersion} when the server
 * ends the watch, and listing again on a {@code 410 Gone} / {@code ERROR} event, a refused or broken watch (back-off
 * 1 s..30 s), and when a watch ends {@code resync} or more after the last list (upstream's resync period). Keeps the objects by name ({@link #store}) and calls the handler on the
 * caller's context with every object it learns about: each listed item and each event's object.
 */
public final class Reflector {
  /** One change. @param type {@code ADDED}, {@code MODIFIED}, {@code DELETED} or {@code SYNC} (from a list) */
  public record Change(String type, JsonObject object) {
  }

  private static final Logger LOG = Logger.getLogger(Reflector.class.getName());
  private static final Backoff BACKOFF = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30));

  private final Vertx vertx;
  private final ApiClient api;
  private final String collection;
  private final Duration resync;
  private final Consumer<Change> handler;
  private final Map<String, JsonObject> store = new LinkedHashMap<>();
  private boolean running;
  private boolean synced;
  private int failures;
  private long generation;
  private long listedAt;
  private long retryTimer = -1;

  /**
   * @param vertx      the node's Vert.x
   * @param api        the client (its identity needs list and watch on the collection)
   * @param collection the collection path, e.g. {@code /api/v1/namespaces}
   * @param resync     least time between two full lists while watching (checked when a watch ends)
   * @param handler    called with every change, on the caller's context
   */
  public Reflector(Vertx vertx, ApiClient api, String collection, Duration resync, Consumer<Change> handler) {
    this.vertx = vertx;
    this.api = api;
    this.collection = collection;
    this.resync = resync;
    this.handler = handler;
  }

  /** Starts listing and watching (call on the controller's context). */
  public void start() {
    if (running) {
      return;
    }
    running = true;
    relist();
  }

  /** Stops: the open watch is left to end by itself, its events ignored. */
  public void stop() {
    running = false;
    generation++;
    vertx.cancelTimer(retryTimer);
    synced = false;
    store.clear();
  }

  /** @return true once a list succeeded (the store holds the collection as of then plus the events since) */
  public boolean synced() {
    return synced;
  }

  /** @return the objects by {@code metadata.name} (a live view: read on the caller's context) */
  public Map<String, JsonObject> store() {
    return store;
  }

  private void relist() {
    if (!running) {
      return;
    }
    long gen = ++generation;
    api.get(collection).onComplete(ar -> {
      if (gen != generation || !running) {
        return;
      }
      ApiResponse r = ar.result();
      if (r == null || !r.ok()) {
        retry(gen, "list " + collection + ": " + (r == null ? ar.cause() : r.message()));
        return;
      }
      Map<String, JsonObject> fresh = new LinkedHashMap<>();
      for (Object o : r.items()) {
        if (o instanceof JsonObject item) {
          fresh.put(name(item), item);
        }
      }
      for (Map.Entry<String, JsonObject> gone : Map.copyOf(store).entrySet()) {
        if (!fresh.containsKey(gone.getKey())) {
          store.remove(gone.getKey());
          handler.accept(new Change("DELETED", gone.getValue()));
        }
      }
      store.putAll(fresh);
      synced = true;
      listedAt = System.nanoTime();
      fresh.values().forEach(o -> handler.accept(new Change("SYNC", o)));
      watch(gen, r.body().getJsonObject("metadata", new JsonObject()).getString("resourceVersion", ""));
    });
  }

  private void watch(long gen, String fromVersion) {
    long timeoutSeconds = 300 + ThreadLocalRandom.current().nextLong(300);
    String[] rv = {fromVersion};
    boolean[] expired = {false};
    long opened = System.nanoTime();
    String path = collection + (collection.contains("?") ? "&" : "?") + "watch=true&allowWatchBookmarks=true&timeoutSeconds=" + timeoutSeconds
        + (fromVersion.isEmpty() ? "" : "&resourceVersion=" + fromVersion);
    api.watch(path, (timeoutSeconds + 30) * 1000, ev -> {
      if (gen != generation || !running) {
        return;
      }
      String type = ev.getString("type", "");
      JsonObject obj = ev.getJsonObject("object");
      if ("ERROR".equals(type)) {
        expired[0] = true;
        return;
      }
      String v = obj.getJsonObject("metadata", new JsonObject()).getString("resourceVersion");
      if (v != null) {
        rv[0] = v;
      }
      if ("BOOKMARK".equals(type)) {
        return;
      }
      failures = 0;
      if ("DELETED".equals(type)) {
        store.remove(name(obj));
      } else {
        store.put(name(obj), obj);
      }
      handler.accept(new Change(type, obj));
    }).onComplete(ar -> {
      if (gen != generation || !running) {
        return;
      }
      ApiResponse r = ar.result();
      if (r.status() == 200 && System.nanoTime() - opened < 1_000_000_000L) {
        retry(gen, "watch " + collection + " ended at once");
      } else if (r.status() == 200 && !expired[0] && System.nanoTime() - listedAt < resync.toNanos()) {
        watch(gen, rv[0]);
      } else if (r.status() == 200 && !expired[0]) {
        relist();
      } else if (r.status() == 410 || expired[0]) {
        relist();
      } else {
        retry(gen, "watch " + collection + ": " + r.message());
      }
    });
  }

  private void retry(long gen, String why) {
    long delay = BACKOFF.delayMs(failures++);
    LOG.warning("reflector: " + why + "; listing again in " + delay + " ms");
    retryTimer = vertx.setTimer(delay, t -> {
      if (gen == generation) {
        relist();
      }
    });
  }

  private static String name(JsonObject o) {
    JsonObject md = o.getJsonObject("metadata", new JsonObject());
    String ns = md.getString("namespace");
    return ns == null || ns.isEmpty() ? md.getString("name", "") : ns + "/" + md.getString("name", "");
  }
}
