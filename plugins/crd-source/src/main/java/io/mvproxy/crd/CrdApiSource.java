package io.mvproxy.crd;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.mvproxy.crd.model.CrdDefinition;
import io.mvproxy.crd.rest.CrdRouter;
import io.mvproxy.crd.rest.CrdRuntime;
import io.mvproxy.crd.rest.Responses;
import io.mvproxy.crd.store.EventWindow;
import io.mvproxy.crd.store.HazelcastObjectStore;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import io.mvproxy.openapi.CrdOpenApi;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@link ApiSource} of one CRD: serves the REST surface of api-surface.md for every served version of it,
 * with objects in the cluster-wide {@link HazelcastObjectStore} shared by every node serving the same CRD
 * (apiextensions-apiserver {@code pkg/apiserver/customresource_handler.go}). The factory starts its store;
 * requests that arrive before it is ready wait for it (503 if it failed).
 */
public final class CrdApiSource implements ApiSource {
  private final CrdDefinition crd;
  private final JsonObject manifest;
  private final HazelcastObjectStore store;
  private final CrdRouter router;
  private final List<ServedGroupVersion> groupVersions;
  private final Promise<Void> ready = Promise.promise();
  private final AtomicBoolean started = new AtomicBoolean();
  private final Map<String, JsonObject> openApi = new ConcurrentHashMap<>();
  private final CrdRuntime runtime;

  /**
   * @param crd      the validated definition
   * @param manifest the original manifest (for OpenAPI)
   * @param store    the store for {@code crd.storageKey()} (started by {@link #start()})
   * @param runtime  the REST runtime over that store
   */
  CrdApiSource(CrdDefinition crd, JsonObject manifest, HazelcastObjectStore store, CrdRuntime runtime,
               List<ServedGroupVersion> groupVersions) {
    this.crd = crd;
    this.manifest = manifest;
    this.store = store;
    this.router = new CrdRouter(runtime);
    this.groupVersions = List.copyOf(groupVersions);
    this.runtime = runtime;
  }

  /**
   * Follows every object of this source, for in-memory indexes (RBAC, namespaces): once the store is ready, each
   * current object as an {@code ADDED} event, then every change in order; an event older than what the sink
   * already got for a key is dropped. Runs on the caller's Vert.x context.
   *
   * @param sink receives events
   */
  public void follow(java.util.function.Consumer<io.mvproxy.crd.store.WatchEvent> sink) {
    io.vertx.core.Context ctx = runtime.vertx().getOrCreateContext();
    Map<String, Long> seen = new java.util.HashMap<>();
    java.util.function.Consumer<io.mvproxy.crd.store.WatchEvent> ordered = e -> {
      Long prev = seen.get(e.key());
      if (prev != null && prev >= e.resourceVersion()) {
        return;
      }
      seen.put(e.key(), e.resourceVersion());
      sink.accept(e);
    };
    ready.future().onSuccess(v -> ctx.runOnContext(x -> {
      java.util.List<io.mvproxy.crd.store.WatchEvent> buffered = new java.util.ArrayList<>();
      boolean[] listed = {false};
      try {
        EventWindow.Subscription sub = store.window().subscribe(store.window().highWater(), e -> ctx.runOnContext(
            y -> {
              if (listed[0]) {
                ordered.accept(e);
              } else {
                buffered.add(e);
              }
            }));
        sub.replay().forEach(buffered::add);
      } catch (io.mvproxy.crd.store.TooOldException e) {
        throw new IllegalStateException(e);
      }
      store.list("").onSuccess(items -> {
        for (io.mvproxy.crd.store.StoredObject so : items) {
          ordered.accept(new io.mvproxy.crd.store.WatchEvent("ADDED", so.resourceVersion(), so.key(), so.object(),
              null));
        }
        listed[0] = true;
        buffered.forEach(ordered);
        buffered.clear();
      });
    }));
  }

  /**
   * Creates an object unless one with its name exists (system namespaces, default RBAC policy), with the metadata
   * a create through the API would give it.
   *
   * @param object the object ({@code metadata.name} and, for namespaced kinds, {@code metadata.namespace} set)
   * @return the stored object, or the existing one
   */
  public Future<JsonObject> ensure(JsonObject object) {
    JsonObject o = object.copy();
    JsonObject md = o.getJsonObject("metadata");
    md.put("uid", java.util.UUID.randomUUID().toString()).put("creationTimestamp", io.mvproxy.crd.rest.ObjectRules.now());
    md.remove("resourceVersion");
    o.put("apiVersion", crd.storageApiVersion());
    String key = io.mvproxy.crd.store.StoredObject.key(crd.namespaced() ? md.getString("namespace", "") : "",
        md.getString("name"));
    return ready.future().compose(v -> store.create(key, o)).compose(created -> created != null
        ? Future.succeededFuture(created.object()) : store.get(key).map(so -> so == null ? null : so.object()));
  }

  /**
   * Replaces a stored object through a function of its current state (compare-and-set, one attempt per call).
   *
   * @param namespace namespace ({@code ""} for cluster-scoped)
   * @param name      name
   * @param change    current object to the next (null: leave it)
   * @return true when written
   */
  public Future<Boolean> update(String namespace, String name, java.util.function.UnaryOperator<JsonObject> change) {
    String key = io.mvproxy.crd.store.StoredObject.key(namespace, name);
    return ready.future().compose(v -> store.get(key)).compose(cur -> {
      if (cur == null) {
        return Future.succeededFuture(false);
      }
      JsonObject next = change.apply(cur.object().copy());
      if (next == null || next.equals(cur.object())) {
        return Future.succeededFuture(false);
      }
      return store.replace(cur, next).map(so -> so != null);
    });
  }

  /**
   * @param namespace namespace ({@code ""} for cluster-scoped)
   * @param name      name
   * @return the stored object, or null
   */
  public Future<JsonObject> get(String namespace, String name) {
    return ready.future().compose(v -> store.get(io.mvproxy.crd.store.StoredObject.key(namespace, name)))
        .map(so -> so == null ? null : so.object());
  }

  /** Starts the store (listener, map configuration) once. @return this */
  CrdApiSource start() {
    if (started.compareAndSet(false, true)) {
      store.start().onComplete(ready);
    }
    return this;
  }

  /** @return the definition served */
  public CrdDefinition definition() {
    return crd;
  }

  /** @return a copy of the CRD manifest this source was built from */
  public JsonObject manifest() {
    return manifest.copy();
  }

  /** @return completes when the store listens and requests are served without waiting */
  public Future<Void> ready() {
    return ready.future();
  }

  /** @return the event window (resume point of watches), for tests and metrics */
  public EventWindow events() {
    return store.window();
  }

  /** @return {@code crd/<metadata.name>} */
  @Override
  public String name() {
    return "crd/" + crd.name();
  }

  /** @return one group-version per served version; priorities 1000/100 (discovery.md section 7) */
  @Override
  public List<ServedGroupVersion> groupVersions() {
    return groupVersions;
  }

  /** Serves a request for this CRD's resource; every failure is answered as a Kubernetes Status. */
  @Override
  public void handle(RoutingContext ctx, RequestInfo info, UserInfo user) {
    Future<Void> f = ready.future();
    if (f.succeeded()) {
      router.handle(ctx, info, user);
      return;
    }
    ctx.request().pause();
    f.onComplete(ar -> {
      ctx.request().resume();
      if (ar.succeeded()) {
        router.handle(ctx, info, user);
      } else {
        Responses.fail(ctx, StatusException.unavailable("storage for " + crd.name() + " is not available: "
            + ar.cause().getMessage(), 1));
      }
    });
  }

  /**
   * OpenAPI v3 fragment of a served version, built by {@code kernel/openapi} {@link CrdOpenApi#v3(String)} from
   * the manifest (once per version, then copied).
   *
   * @param gv one of {@link #groupVersions()}
   * @return {@code {"paths", "components": {"schemas"}}}, or null for a group-version this source does not serve
   */
  @Override
  public JsonObject openApiV3(GroupVersion gv) {
    return fragment(gv, "v3");
  }

  /**
   * OpenAPI v2 fragment of a served version ({@link CrdOpenApi#v2(String)}).
   *
   * @param gv one of {@link #groupVersions()}
   * @return {@code {"paths", "definitions"}}, or null for a group-version this source does not serve
   */
  @Override
  public JsonObject openApiV2(GroupVersion gv) {
    return fragment(gv, "v2");
  }

  private JsonObject fragment(GroupVersion gv, String which) {
    if (!gv.group().equals(crd.group()) || crd.served(gv.version()).isEmpty()) {
      return null;
    }
    JsonObject doc = openApi.computeIfAbsent(which + "/" + gv.version(), k -> {
      CrdOpenApi oa = new CrdOpenApi(manifest);
      return "v3".equals(which) ? oa.v3(gv.version()) : oa.v2(gv.version());
    });
    return doc.copy();
  }

  /** Unregisters the store listener; stored objects stay in the cluster. */
  @Override
  public Future<Void> close() {
    if (!started.get()) {
      return Future.succeededFuture();
    }
    return ready.future().transform(ar -> store.close());
  }
}
