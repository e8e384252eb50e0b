package io.mvproxy.registry.impl;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.mvproxy.registry.impl.model.CrdDefinition;
import io.mvproxy.registry.impl.rest.CrdRouter;
import io.mvproxy.registry.impl.rest.CrdRuntime;
import io.mvproxy.registry.impl.rest.Responses;
import io.mvproxy.api.storage.ResourceStorage;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import io.mvproxy.openapi.CrdOpenApi;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link ApiSource} of one CRD: serves the REST surface of api-surface.md for every served version of it,
 * with objects in the node's storage under {@code <group>/<plural>}, shared by every node serving the same CRD
 * (apiextensions-apiserver {@code pkg/apiserver/customresource_handler.go}, CRDRESTOptionsGetter).
 */
public final class CrdApiSource implements ApiSource {
  private final CrdDefinition crd;
  private final JsonObject manifest;
  private final CrdRuntime runtime;
  private final CrdRouter router;
  private final List<ServedGroupVersion> groupVersions;
  private final Map<String, JsonObject> openApi = new ConcurrentHashMap<>();
  private final io.mvproxy.registry.impl.admission.WebhookClient webhookClient;

  /**
   * @param crd      the validated definition
   * @param manifest the original manifest (for OpenAPI)
   * @param store    the storage of {@code crd.storageKey()}
   * @param runtime  the REST runtime over that storage
   * @param groupVersions what the source lists in discovery
   * @param webhookClient the conversion webhook's client (closed with the source), or null
   */
  CrdApiSource(CrdDefinition crd, JsonObject manifest, ResourceStorage store, CrdRuntime runtime,
               List<ServedGroupVersion> groupVersions, io.mvproxy.registry.impl.admission.WebhookClient webhookClient) {
    this.webhookClient = webhookClient;
    this.crd = crd;
    this.manifest = manifest;
    this.runtime = runtime;
    this.router = new CrdRouter(runtime);
    this.groupVersions = List.copyOf(groupVersions);
  }

  /** Delay before a broken follow (storage unreachable, watch expired) lists and watches again, ms. */
  static final long REFOLLOW_DELAY_MS = 1000;

  /**
   * Follows every object of this source, for in-memory indexes (RBAC, namespaces): each current object as an
   * {@code ADDED} event, then every change in order, through the node's watch cache. When the watch breaks (storage
   * unreachable, 410) it lists and watches again after {@link #REFOLLOW_DELAY_MS}, reporting objects gone meanwhile
   * as {@code DELETED}. Runs on the caller's Vert.x context.
   *
   * @param sink receives events (object and previous state as stored)
   */
  public void follow(java.util.function.Consumer<io.mvproxy.api.storage.WatchEvent> sink) {
    follow(sink, new java.util.HashMap<>(), runtime.vertx().getOrCreateContext());
  }

  private void follow(java.util.function.Consumer<io.mvproxy.api.storage.WatchEvent> sink,
                      Map<String, io.mvproxy.api.storage.StoredObject> known, io.vertx.core.Context ctx) {
    java.util.Set<String> relisted = new java.util.HashSet<>();
    boolean[] initialDone = {false};
    Runnable again = () -> runtime.vertx().setTimer(REFOLLOW_DELAY_MS, t -> ctx.runOnContext(v -> follow(sink, known,
        ctx)));
    ctx.runOnContext(v -> runtime.store().watch(new io.mvproxy.api.storage.WatchOptions("", 0, true),
        new io.mvproxy.api.storage.WatchListener() {
          @Override
          public void onEvent(io.mvproxy.api.storage.WatchEvent e) {
            if (!initialDone[0]) {
              relisted.add(e.object().key());
            }
            if (e.type() == io.mvproxy.api.storage.WatchEvent.Type.DELETED) {
              known.remove(e.object().key());
            } else {
              known.put(e.object().key(), e.object());
            }
            sink.accept(e);
          }

          @Override
          public void onInitialEventsEnd(long revision) {
            initialDone[0] = true;
            for (String k : new java.util.ArrayList<>(known.keySet())) {
              if (!relisted.contains(k)) {
                io.mvproxy.api.storage.StoredObject gone = known.remove(k);
                sink.accept(new io.mvproxy.api.storage.WatchEvent(io.mvproxy.api.storage.WatchEvent.Type.DELETED,
                    gone, gone));
              }
            }
          }

          @Override
          public void onError(io.mvproxy.api.storage.StorageException error) {
            again.run();
          }
        }).onFailure(t -> again.run()));
  }

  private String key(String namespace, String name) {
    return crd.namespaced() ? namespace + "/" + name : name;
  }

  private static boolean notFound(Throwable t) {
    return t instanceof io.mvproxy.api.storage.StorageException se
        && se.storageCode() == io.mvproxy.api.storage.StorageException.Code.NOT_FOUND;
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
    md.put("uid", java.util.UUID.randomUUID().toString()).put("creationTimestamp", io.mvproxy.registry.impl.rest.ObjectRules.now());
    md.remove("resourceVersion");
    o.put("apiVersion", crd.storageApiVersion());
    String key = key(md.getString("namespace", ""), md.getString("name"));
    return runtime.store().create(key, o).map(io.mvproxy.api.storage.StoredObject::object).recover(t ->
        t instanceof io.mvproxy.api.storage.StorageException se
            && se.storageCode() == io.mvproxy.api.storage.StorageException.Code.KEY_EXISTS
            ? runtime.store().get(key).map(io.mvproxy.api.storage.StoredObject::object) : Future.failedFuture(t));
  }

  /**
   * Replaces a stored object through a function of its current state (a guaranteed update: re-run on lost races).
   *
   * @param namespace namespace ({@code ""} for cluster-scoped)
   * @param name      name
   * @param change    current object (a copy) to the next (null: leave it)
   * @return true when written; false when absent or unchanged
   */
  public Future<Boolean> update(String namespace, String name, java.util.function.UnaryOperator<JsonObject> change) {
    long[] before = {-1};
    return runtime.store().guaranteedUpdate(key(namespace, name), io.mvproxy.api.storage.Preconditions.NONE, cur -> {
      before[0] = cur.resourceVersion();
      JsonObject next = change.apply(cur.object().copy());
      return next == null ? cur.object() : next;
    }).map(so -> so.resourceVersion() != before[0]).recover(t -> notFound(t) ? Future.succeededFuture(false)
        : Future.failedFuture(t));
  }

  /**
   * @param namespace namespace ({@code ""} for cluster-scoped)
   * @param name      name
   * @return the stored object, or null
   */
  public Future<JsonObject> get(String namespace, String name) {
    return runtime.store().get(key(namespace, name)).map(io.mvproxy.api.storage.StoredObject::object)
        .recover(t -> notFound(t) ? Future.succeededFuture(null) : Future.failedFuture(t));
  }

  /** @return the storage of this source's objects (built-in registries writing objects of their own), or null */
  public ResourceStorage store() {
    return runtime.store();
  }

  /** @return this (the storage needs no start: its watch opens with the first client watch) */
  public CrdApiSource start() {
    return this;
  }

  /** @return the CRD manifest (a copy): this source serves a CustomResourceDefinition */
  @Override
  public java.util.Optional<JsonObject> customResourceDefinition() {
    return java.util.Optional.of(manifest());
  }

  /** @return the definition served */
  public CrdDefinition definition() {
    return crd;
  }

  /** @return a copy of the CRD manifest this source was built from */
  public JsonObject manifest() {
    return manifest.copy();
  }

  /** @return a completed future: the source serves as soon as it is built */
  public Future<Void> ready() {
    return Future.succeededFuture();
  }

  /** @return the watch sessions of this CRD running on this node now (tests, metrics) */
  public int watchCount() {
    return runtime.watches().get();
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
    if (runtime.store() == null) {
      Responses.fail(ctx, StatusException.unavailable("storage for " + crd.name() + " is not available", 1));
      return;
    }
    router.handle(ctx, info, user);
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

  /**
   * Closes the conversion webhook's HTTP client, if any; stored objects stay in storage; running watches end with
   * their connections.
   */
  @Override
  public Future<Void> close() {
    if (webhookClient != null) {
      webhookClient.close();
    }
    return Future.succeededFuture();
  }
}
