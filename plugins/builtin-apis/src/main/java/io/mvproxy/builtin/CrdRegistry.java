package io.mvproxy.builtin;

import io.mvproxy.api.storage.ListOptions;
import io.mvproxy.api.storage.Preconditions;
import io.mvproxy.api.storage.ResourceStorage;
import io.mvproxy.api.storage.StorageException;
import io.mvproxy.api.storage.StoredObject;
import io.mvproxy.registry.impl.rest.ObjectRules;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Publishes the CustomResourceDefinitions this node's plugins loaded into the fleet's stored
 * {@code apiextensions.k8s.io/v1} customresourcedefinitions (merged with the other nodes' by {@link CrdObjects}),
 * so {@code kubectl get crd} and kubectl's "is this kind a CRD" check see what the fleet serves on every node.
 * Each publication reconciles: this node's contribution is added to or refreshed in every CRD it loads and
 * withdrawn from every stored CRD it no longer loads (a CRD no node serves is deleted). Publications are
 * serialized, coalesced (the newest set wins) and retried until they succeed (storage unreachable while the fleet
 * forms). A node that stops keeps its contribution (it serves them again when it comes back), as a departed
 * peer's APIs stay known.
 */
public final class CrdRegistry {
  /**
   * How the published objects of one kind are merged (CRDs: {@link CrdObjects}; APIServices:
   * {@link ApiServiceObjects}).
   *
   * @param what     the kind, for log messages
   * @param isPlugin whether a stored object is a plugin's (API-created ones are never merged into)
   * @param merge    (current or null, server ID, manifest, now) to the object to store
   * @param withdraw (current, server ID) to the object to store, or null to delete it
   * @param takeOver true when a plugin's object replaces an API-created one of the same name (APIServices: the
   *                 plugin wins); false keeps the API-created one (CRDs: the plugin loader refuses such a plugin)
   */
  public record Kind(String what, java.util.function.Predicate<JsonObject> isPlugin,
                     Merge merge, java.util.function.BiFunction<JsonObject, String, JsonObject> withdraw,
                     boolean takeOver) {
    /** CustomResourceDefinitions. */
    public static final Kind CRDS = new Kind("CustomResourceDefinitions", CrdStrategy::isPluginCrd,
        CrdObjects::merge, CrdObjects::withdraw, false);
    /** APIServices. */
    public static final Kind APISERVICES = new Kind("APIServices", ApiServiceObjects::isPlugin,
        ApiServiceObjects::merge, ApiServiceObjects::withdraw, true);
  }

  /** One node's manifest merged into the stored object ({@link CrdObjects#merge} and the like). */
  @FunctionalInterface
  public interface Merge {
    /**
     * @param current  the stored object or null
     * @param serverId the node
     * @param manifest the loaded manifest
     * @param now      RFC 3339 time
     * @return the object to store
     */
    JsonObject apply(JsonObject current, String serverId, JsonObject manifest, String now);
  }

  private final Kind kind;
  private final Vertx vertx;
  private final String serverId;
  private final ResourceStorage store;
  private final Promise<Void> first = Promise.promise();
  private List<JsonObject> wanted;
  private boolean running;

  /**
   * @param vertx    timers for retries
   * @param serverId this node's server ID
   * @param store    the storage of customresourcedefinitions (null: nothing is published, {@link #published()}
   *                 completes at once)
   */
  public CrdRegistry(Vertx vertx, String serverId, ResourceStorage store) {
    this(vertx, serverId, store, Kind.CRDS);
  }

  /**
   * @param vertx    timers for retries
   * @param serverId this node's server ID
   * @param store    the storage of the kind (null: nothing is published)
   * @param kind     how the kind's objects merge
   */
  public CrdRegistry(Vertx vertx, String serverId, ResourceStorage store, Kind kind) {
    this.kind = kind;
    this.vertx = vertx;
    this.serverId = serverId;
    this.store = store;
    if (store == null) {
      first.complete();
    }
  }

  /** @return completes when the first publication was stored */
  public Future<Void> published() {
    return first.future();
  }

  /**
   * Publishes the CRDs this node loads now (replacing what it published before).
   *
   * @param manifests the CRD manifests of the node's ACTIVE plugins
   */
  public synchronized void publish(List<JsonObject> manifests) {
    if (store == null) {
      return;
    }
    wanted = List.copyOf(manifests);
    if (!running) {
      running = true;
      next();
    }
  }

  private synchronized void next() {
    List<JsonObject> now = wanted;
    wanted = null;
    if (now == null) {
      running = false;
      return;
    }
    StartRetry.run(vertx, "publishing this node's " + kind.what(), () -> reconcile(now)).onComplete(ar -> {
      first.tryComplete();
      next();
    });
  }

  private Future<Void> reconcile(List<JsonObject> manifests) {
    Map<String, JsonObject> mine = new LinkedHashMap<>();
    manifests.forEach(m -> mine.put(m.getJsonObject("metadata").getString("name"), m));
    return store.list(ListOptions.all("")).compose(page -> {
      List<Future<?>> steps = new ArrayList<>();
      for (StoredObject so : page.items()) {
        String name = so.object().getJsonObject("metadata").getString("name");
        if (!mine.containsKey(name) && CrdObjects.servedBy(so.object()).containsKey(serverId)) {
          steps.add(withdraw(name));
        }
      }
      mine.forEach((name, m) -> steps.add(upsert(name, m, true)));
      return Future.all(steps).mapEmpty();
    });
  }

  private Future<Void> upsert(String name, JsonObject manifest, boolean createIfAbsent) {
    // a CRD created through the API keeps its name: the plugin loader refuses such a plugin, and one that raced
    // the API's create is not merged into it (never two definitions of one name)
    return store.guaranteedUpdate(name, Preconditions.NONE,
            cur -> kind.takeOver() || kind.isPlugin().test(cur.object()) ? kind.merge().apply(cur.object(), serverId, manifest,
                ObjectRules.now()) : cur.object()).<Void>mapEmpty()
        .recover(t -> !createIfAbsent || !is(t, StorageException.Code.NOT_FOUND) ? Future.failedFuture(t)
            : store.create(name, kind.merge().apply(null, serverId, manifest, ObjectRules.now())).<Void>mapEmpty()
                .recover(t2 -> is(t2, StorageException.Code.KEY_EXISTS) ? upsert(name, manifest, false)
                    : Future.failedFuture(t2)));
  }

  private Future<Void> withdraw(String name) {
    boolean[] empty = {false};
    return store.guaranteedUpdate(name, Preconditions.NONE, cur -> {
      JsonObject next = kind.withdraw().apply(cur.object(), serverId);
      empty[0] = next == null;
      return next == null ? cur.object() : next;
    }).compose(so -> !empty[0] ? Future.<Void>succeededFuture()
        : store.delete(name, new Preconditions(so.uid(), Long.toString(so.resourceVersion())), cur -> {
          if (!CrdObjects.servedBy(cur.object()).isEmpty()
              && !CrdObjects.servedBy(cur.object()).keySet().equals(java.util.Set.of(serverId))) {
            throw new IllegalStateException("served again");
          }
        }).<Void>mapEmpty().recover(t -> Future.succeededFuture()))
        .recover(t -> is(t, StorageException.Code.NOT_FOUND) ? Future.succeededFuture() : Future.failedFuture(t));
  }

  private static boolean is(Throwable t, StorageException.Code code) {
    return t instanceof StorageException se && se.storageCode() == code;
  }
}
