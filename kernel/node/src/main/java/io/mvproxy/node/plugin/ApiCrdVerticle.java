package io.mvproxy.node.plugin;

import io.mvproxy.api.Addresses;
import io.mvproxy.api.ApiSource;
import io.mvproxy.api.ApiSourceContext;
import io.mvproxy.api.ApiSourceFactory;
import io.mvproxy.api.Gvr;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.mvproxy.api.StatusWriter;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.mvproxy.api.storage.ListOptions;
import io.mvproxy.api.storage.Preconditions;
import io.mvproxy.api.storage.ResourceStorage;
import io.mvproxy.api.storage.StorageException;
import io.mvproxy.api.storage.StoredObject;
import io.mvproxy.api.storage.Watch;
import io.mvproxy.api.storage.WatchEvent;
import io.mvproxy.api.storage.WatchListener;
import io.mvproxy.api.storage.WatchOptions;
import io.mvproxy.node.routing.RoutingSnapshot;
import io.mvproxy.registry.model.CrdConditions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * CustomResourceDefinitions created through the API ({@code apiextensions.k8s.io/v1}, stored under
 * {@code <prefix>/apiextensions.k8s.io/customresourcedefinitions/<name>}), served by this node like a plugin's CRD:
 * the verticle watches the stored CRDs (relisting them every {@link #RESYNC_MS} as an informer does) and turns every API-created one (a CRD without the plugins' annotation
 * {@code mvproxy.io/served-by}) whose names are accepted into an {@link ApiSource} built by the same factory as
 * plugin manifests ({@code crd-source}), published in this node's discovery (so peers route to it). A changed spec
 * (new {@code metadata.generation}) swaps the source; a CRD gone from storage is withdrawn make-before-break as a
 * plugin is (out of the published discovery first, out of routing once every live peer applied that, closed
 * {@link PluginVerticle#DRAIN_MS} later). A CRD whose name an ACTIVE plugin of this node serves is not served from
 * the API (never two definitions of one name).
 *
 * <p>It also runs apiextensions-apiserver's CRD controllers for API-created CRDs, idempotently on every node (each
 * write is a guaranteed update of the stored CRD; concurrent nodes converge):
 * <ul>
 *   <li>naming ({@code pkg/controller/status/naming_controller.go}): {@code NamesAccepted} against the accepted
 *   names of the other CRDs and the built-in kinds of the group, {@code status.acceptedNames},
 *   {@code Established=False Installing};</li>
 *   <li>establishing ({@code pkg/controller/establish}, and kube's HA wait of {@code customresource_handler.go}):
 *   {@code Established=True InitialNamesAccepted} only once every live node serves it: this node's routing has its
 *   source, the fleet's API set is fully known, and every live peer's published discovery lists each served
 *   version's resource;</li>
 *   <li>finalizer ({@code pkg/controller/finalizer/crd_finalizer.go}): a deleted CRD's objects are deleted (objects
 *   with finalizers get {@code deletionTimestamp} and are waited for, up to a minute per round), then the
 *   {@code customresourcecleanup.apiextensions.k8s.io} finalizer is removed and the CRD with it; {@code Terminating}
 *   conditions as upstream. Creates of objects of a Terminating CRD answer {@code 405 MethodNotAllowed} as
 *   {@code customresource_handler.go}.</li>
 * </ul>
 */
public final class ApiCrdVerticle extends VerticleBase {
  /** The CRDs' storage key prefix. */
  public static final String PREFIX = "apiextensions.k8s.io/customresourcedefinitions";
  /** Longest wait at start for the first snapshot of the stored CRDs, ms (storage may still be forming). */
  static final long FIRST_SYNC_BOUND_MS = 10_000;
  /**
   * Relist interval, ms: the stored CRDs are listed again and any difference the watch did not deliver is applied
   * (as an informer's relist; a watch that ended silently cannot leave the node behind for longer).
   */
  static final long RESYNC_MS = 2000;
  /** Controller pass interval, ms (Established waits on the peers' discovery; finalizer retries). */
  static final long PASS_MS = 250;
  /** How long the finalizer waits for objects with finalizers to go, per round, ms (upstream: one minute). */
  static final long INSTANCE_WAIT_MS = 60_000;
  private static final Logger LOG = Logger.getLogger(ApiCrdVerticle.class.getName());

  private final ApiSourceContext ctx;
  private final ApiSourceFactory factory;
  private final PluginRegistry plugins;
  private final Supplier<RoutingSnapshot> routing;
  private final Supplier<List<ApiSource>> builtins;
  private ResourceStorage store;
  private Watch watch;
  private boolean stopped;
  private final Promise<Void> synced = Promise.promise();
  /** Stored CRDs by name (this node's watch). */
  private Map<String, JsonObject> stored = new HashMap<>();
  private Map<String, JsonObject> initial;
  /** Highest revision applied from the watch or a relist. */
  private long revision;
  /** Served API CRDs by name. */
  private final Map<String, Served> active = new LinkedHashMap<>();
  private volatile List<ApiSource> published = List.of();
  private volatile List<ApiSource> draining = List.of();
  private volatile Set<String> apiNames = Set.of();
  /** Names of the stored CRDs being deleted (read by request handlers on other threads). */
  private volatile Set<String> terminating = Set.of();
  /** Served GVRs of the stored API-created CRDs whose names are not refused, to their CRD's name. */
  private volatile Map<Gvr, String> pending = Map.of();
  private final Set<String> finalizing = new HashSet<>();
  private final Set<String> writing = new HashSet<>();
  private final Set<String> warned = new HashSet<>();

  private record Served(String key, ApiSource source) {
  }

  /**
   * @param ctx      node services (storage, Vert.x)
   * @param factory  the CRD manifest factory (the plugin path's, {@code apiextensions.k8s.io/v1})
   * @param plugins  this node's plugins (their CRD names win)
   * @param routing  this node's current routing snapshot (Established: what every live peer publishes)
   * @param builtins the node's built-in API sources (their names count for NamesAccepted)
   */
  public ApiCrdVerticle(ApiSourceContext ctx, ApiSourceFactory factory, PluginRegistry plugins,
                        Supplier<RoutingSnapshot> routing, Supplier<List<ApiSource>> builtins) {
    this.ctx = ctx;
    this.factory = factory;
    this.plugins = plugins;
    this.routing = routing;
    this.builtins = builtins;
  }

  /** @return the sources of API-created CRDs this node publishes in its discovery */
  public List<ApiSource> sources() {
    return published;
  }

  /** @return the sources to route to: {@link #sources()} and the withdrawn ones still draining */
  public List<ApiSource> servingSources() {
    List<ApiSource> out = new ArrayList<>(published);
    out.addAll(draining);
    return out;
  }

  /**
   * @param gvr a resource no known server serves
   * @return the 503 message when a stored API-created CRD (names not refused) defines it: this node is about to
   *     serve it, so 404 would be false; else null
   */
  public String pending(Gvr gvr) {
    String crd = pending.get(gvr);
    return crd == null ? null : "the CustomResourceDefinition " + crd + " is stored but not served yet; "
        + gvr.groupResource() + " in " + gvr.groupVersion() + " will be served shortly";
  }

  /**
   * @param name a CRD name ({@code <plural>.<group>})
   * @return true when a CRD of that name was created through the API (as this node last saw the store)
   */
  public boolean isApiCrd(String name) {
    return apiNames.contains(name);
  }

  @Override
  public Future<?> start() {
    if (ctx.storage() == null) {
      return Future.succeededFuture();
    }
    store = ctx.storage().resource(PREFIX);
    startWatch();
    vertx.setPeriodic(RESYNC_MS, t -> resync());
    vertx.setPeriodic(PASS_MS, t -> {
      reconcileSources();
      pass();
    });
    // start-up waits for the first snapshot (so the plugin loader knows the API-created names), within a bound
    Promise<Void> bounded = Promise.promise();
    long timer = vertx.setTimer(FIRST_SYNC_BOUND_MS, t -> {
      if (bounded.tryComplete()) {
        LOG.warning("stored CustomResourceDefinitions not listed within " + FIRST_SYNC_BOUND_MS + " ms; going on");
      }
    });
    synced.future().onComplete(ar -> {
      vertx.cancelTimer(timer);
      bounded.tryComplete();
    });
    return bounded.future();
  }

  @Override
  public Future<?> stop() {
    stopped = true;
    if (watch != null) {
      watch.cancel();
    }
    List<Future<Void>> closing = new ArrayList<>();
    active.values().forEach(s -> closing.add(s.source().close()));
    draining.forEach(s -> closing.add(s.close()));
    return Future.join(closing);
  }

  private void startWatch() {
    if (stopped) {
      return;
    }
    initial = new HashMap<>();
    store.watch(new WatchOptions("", 0, true), new WatchListener() {
      @Override
      public void onEvent(WatchEvent e) {
        try {
          apply(e);
        } catch (RuntimeException ex) {
          LOG.log(java.util.logging.Level.WARNING, "CustomResourceDefinition watch event not applied", ex);
        }
      }

      private void apply(WatchEvent e) {
        JsonObject o = e.object().object();
        String name = o.getJsonObject("metadata").getString("name");
        Map<String, JsonObject> into = initial != null ? initial : stored;
        revision = Math.max(revision, e.revision());
        if (e.type() == WatchEvent.Type.DELETED) {
          into.remove(name);
        } else {
          into.put(name, withRv(o, e.object().resourceVersion()));
        }
        if (initial == null) {
          changed();
        }
      }

      @Override
      public void onInitialEventsEnd(long revision) {
        stored = initial;
        initial = null;
        LOG.fine("stored CustomResourceDefinitions listed at revision " + revision + ": " + stored.size());
        synced.tryComplete();
        try {
          changed();
        } catch (RuntimeException ex) {
          LOG.log(java.util.logging.Level.WARNING, "CustomResourceDefinitions not applied", ex);
        }
      }

      @Override
      public void onError(StorageException error) {
        LOG.fine("CustomResourceDefinition watch ended: " + error.getMessage() + "; watching again");
        vertx.setTimer(1000, t -> startWatch());
      }
    }).onSuccess(w -> watch = w).onFailure(t -> {
      LOG.fine("CustomResourceDefinition watch failed: " + t.getMessage() + "; retrying");
      vertx.setTimer(1000, x -> startWatch());
    });
  }

  /** Lists the stored CRDs and applies what differs from the watched state (when the list is not older). */
  private void resync() {
    if (stopped || initial != null) {
      return;
    }
    store.list(ListOptions.all("")).onSuccess(page -> {
      if (initial != null || page.resourceVersion() < revision) {
        return;
      }
      Map<String, JsonObject> listed = new HashMap<>();
      for (StoredObject so : page.items()) {
        JsonObject o = so.object();
        listed.put(o.getJsonObject("metadata").getString("name"), withRv(o, so.resourceVersion()));
      }
      if (!listed.equals(stored)) {
        LOG.info("stored CustomResourceDefinitions relisted at revision " + page.resourceVersion()
            + " differ from the watched ones; applying the list");
        stored = listed;
        revision = page.resourceVersion();
        changed();
      }
    });
  }

  private static JsonObject withRv(JsonObject o, long rv) {
    JsonObject c = o.copy();
    c.getJsonObject("metadata").put("resourceVersion", Long.toString(rv));
    return c;
  }

  private void changed() {
    Set<String> names = new HashSet<>();
    Set<String> deleting = new HashSet<>();
    stored.forEach((n, o) -> {
      if (!isPluginCrd(o)) {
        names.add(n);
        if (o.getJsonObject("metadata").getValue("deletionTimestamp") != null) {
          deleting.add(n);
        }
      }
    });
    apiNames = Set.copyOf(names);
    terminating = Set.copyOf(deleting);
    Map<Gvr, String> gvrs = new HashMap<>();
    names.forEach(n -> {
      JsonObject crd = stored.get(n);
      JsonObject accepted = CrdConditions.find(crd, CrdConditions.NAMES_ACCEPTED);
      if (accepted != null && "False".equals(accepted.getString("status"))) {
        return;
      }
      JsonObject spec = crd.getJsonObject("spec", new JsonObject());
      String plural = spec.getJsonObject("names", new JsonObject()).getString("plural", "");
      for (Object o : spec.getJsonArray("versions", new JsonArray())) {
        if (o instanceof JsonObject v && v.getBoolean("served", false)) {
          gvrs.put(new Gvr(spec.getString("group", ""), v.getString("name", ""), plural), n);
        }
      }
    });
    pending = Map.copyOf(gvrs);
    reconcileSources();
    pass();
  }

  /** @param o a stored CRD @return true when a plugin provides it */
  static boolean isPluginCrd(JsonObject o) {
    JsonObject md = o.getJsonObject("metadata", new JsonObject());
    return md.getValue("annotations") instanceof JsonObject a && a.containsKey("mvproxy.io/served-by");
  }

  /** Builds, swaps and withdraws sources so the served set matches the stored API-created CRDs. */
  private void reconcileSources() {
    Set<String> pluginCrds = new HashSet<>();
    plugins.sources().forEach(s -> {
      if (s.name().startsWith("crd/")) {
        pluginCrds.add(s.name().substring(4));
      }
    });
    boolean change = false;
    List<ApiSource> withdrawn = new ArrayList<>();
    for (Map.Entry<String, JsonObject> e : stored.entrySet()) {
      String name = e.getKey();
      JsonObject crd = e.getValue();
      if (isPluginCrd(crd) || !CrdConditions.isTrue(crd, CrdConditions.NAMES_ACCEPTED)) {
        continue;
      }
      if (pluginCrds.contains(name)) {
        if (!warned.add(name)) {
          continue;
        }
        LOG.warning("CustomResourceDefinition " + name + " was created through the API but a plugin of this node"
            + " serves the name; the plugin's definition is served here");
        continue;
      }
      JsonObject md = crd.getJsonObject("metadata");
      String key = md.getString("uid") + "/" + md.getValue("generation");
      Served cur = active.get(name);
      if (cur != null && cur.key().equals(key)) {
        continue;
      }
      ApiSource source;
      try {
        source = new TerminatingGuard(factory.create(manifest(crd), ctx), name);
      } catch (RuntimeException ex) {
        LOG.warning("CustomResourceDefinition " + name + " cannot be served: " + ex.getMessage());
        continue;
      }
      active.put(name, new Served(key, source));
      if (cur != null) {
        withdrawn.add(cur.source());
      }
      change = true;
      LOG.info("CustomResourceDefinition " + name + " (generation " + md.getValue("generation") + ") served from the"
          + " API");
    }
    for (String name : new ArrayList<>(active.keySet())) {
      JsonObject crd = stored.get(name);
      if (crd == null || isPluginCrd(crd) || pluginCrds.contains(name)
          || !crd.getJsonObject("metadata").getString("uid", "").equals(
              active.get(name).key().substring(0, active.get(name).key().indexOf('/')))) {
        withdrawn.add(active.remove(name).source());
        change = true;
        LOG.info("CustomResourceDefinition " + name + " withdrawn: no longer stored");
      }
    }
    if (!change) {
      return;
    }
    List<ApiSource> nextDraining = new ArrayList<>(draining);
    nextDraining.addAll(withdrawn);
    draining = List.copyOf(nextDraining);
    published = active.values().stream().map(Served::source).toList();
    vertx.eventBus().publish(Addresses.LOCAL_APIS_CHANGED, null);
    withdrawn.forEach(this::drain);
  }

  /** Like {@link PluginVerticle}'s drain: out of routing once every live peer applied the withdrawal, then closed. */
  private void drain(ApiSource s) {
    vertx.eventBus().request(Addresses.LOCAL_PEERS_CAUGHT_UP, null,
        new io.vertx.core.eventbus.DeliveryOptions().setSendTimeout(PluginVerticle.PEER_DRAIN_BOUND_MS))
        .onComplete(ar -> {
          List<ApiSource> next = new ArrayList<>(draining);
          next.remove(s);
          draining = List.copyOf(next);
          vertx.eventBus().publish(Addresses.LOCAL_APIS_CHANGED, null);
          vertx.setTimer(PluginVerticle.DRAIN_MS, t -> s.close());
        });
  }

  /** The stored CRD as the manifest the factory reads (status and system metadata do not matter to it). */
  private static JsonObject manifest(JsonObject crd) {
    JsonObject m = crd.copy();
    m.remove("status");
    return m;
  }

  /** One controller pass over the stored API-created CRDs (naming, establishing, finalizer). */
  private void pass() {
    if (stopped || store == null) {
      return;
    }
    for (JsonObject crd : stored.values()) {
      if (isPluginCrd(crd)) {
        continue;
      }
      String name = crd.getJsonObject("metadata").getString("name");
      if (writing.contains(name)) {
        continue;
      }
      JsonObject md = crd.getJsonObject("metadata");
      boolean deleting = md.getValue("deletionTimestamp") != null;
      JsonObject next = naming(crd);
      if (next == null && !deleting) {
        next = establishing(crd);
      }
      if (next != null) {
        write(name, crd, next);
      } else if (deleting && md.getValue("finalizers") instanceof JsonArray f
          && f.contains(CrdConditions.CLEANUP_FINALIZER) && finalizing.add(name)) {
        finalize(crd).onComplete(ar -> {
          finalizing.remove(name);
          if (ar.failed()) {
            LOG.warning("finalizing CustomResourceDefinition " + name + ": " + ar.cause().getMessage());
          }
        });
      }
    }
  }

  /** @return the CRD with its names' verdict when it changes, else null */
  private JsonObject naming(JsonObject crd) {
    CrdConditions.Names mine = CrdConditions.names(crd);
    JsonObject status = crd.getJsonObject("status", new JsonObject());
    boolean accepted = CrdConditions.isTrue(crd, CrdConditions.NAMES_ACCEPTED);
    if (accepted && mine.toJson().equals(status.getJsonObject("acceptedNames"))) {
      return null;
    }
    List<CrdConditions.Names> others = new ArrayList<>();
    String self = crd.getJsonObject("metadata").getString("name");
    stored.forEach((n, o) -> {
      if (!n.equals(self) && o.getJsonObject("status", new JsonObject()).getValue("acceptedNames")
          instanceof JsonObject an) {
        JsonObject view = new JsonObject().put("spec", new JsonObject().put("group", o.getJsonObject("spec",
            new JsonObject()).getString("group", "")).put("names", an));
        others.add(CrdConditions.names(view));
      }
    });
    for (ApiSource b : builtins.get()) {
      for (ServedGroupVersion gv : b.groupVersions()) {
        for (DiscoveryResource r : gv.resources()) {
          String kind = r.responseKind() == null ? "" : r.responseKind().kind();
          others.add(new CrdConditions.Names(gv.groupVersion().group(), r.resource(),
              r.singularResource() == null ? "" : r.singularResource(), r.shortNames(), kind,
              kind.isEmpty() ? "" : kind + "List"));
        }
      }
    }
    String[] verdict = CrdConditions.namesAccepted(mine, others);
    JsonObject next = crd.copy();
    String now = now();
    CrdConditions.set(next, CrdConditions.NAMES_ACCEPTED, verdict[0], verdict[1], verdict[2], now);
    if ("True".equals(verdict[0])) {
      next.getJsonObject("status").put("acceptedNames", mine.toJson());
    }
    if (!CrdConditions.isTrue(crd, CrdConditions.ESTABLISHED)) {
      if ("True".equals(verdict[0])) {
        CrdConditions.set(next, CrdConditions.ESTABLISHED, "False", "Installing",
            "the initial names have been accepted", now);
      } else {
        CrdConditions.set(next, CrdConditions.ESTABLISHED, "False", "NotAccepted", "not all names are accepted", now);
      }
    }
    return sameStatus(crd, next) ? null : next;
  }

  /** @return the CRD Established when every live node serves it now and it was not yet, else null */
  private JsonObject establishing(JsonObject crd) {
    if (!CrdConditions.isTrue(crd, CrdConditions.NAMES_ACCEPTED) || CrdConditions.isTrue(crd,
        CrdConditions.ESTABLISHED)) {
      return null;
    }
    String name = crd.getJsonObject("metadata").getString("name");
    if (!servedByFleet(crd, name)) {
      return null;
    }
    JsonObject next = crd.copy();
    CrdConditions.set(next, CrdConditions.ESTABLISHED, "True", "InitialNamesAccepted",
        "the initial names have been accepted", now());
    return next;
  }

  /**
   * How Established is detected: this node serves the current generation and its routing has it, the fleet's API
   * set is fully known (no member, record or discovery awaited), and every live peer's fetched discovery lists the
   * resource in every served version.
   */
  private boolean servedByFleet(JsonObject crd, String name) {
    Served mine = active.get(name);
    JsonObject md = crd.getJsonObject("metadata");
    if (mine == null || !mine.key().equals(md.getString("uid") + "/" + md.getValue("generation"))) {
      return false;
    }
    return servedByFleet(crd, routing.get());
  }

  /**
   * Whether every live node serves a CRD, as this node sees the fleet (the Established rule): the fleet's API set is
   * fully known ({@link RoutingSnapshot#ready()}, nothing awaited), this node routes every served version's resource
   * to a local source it publishes, and every live peer's discovery has been fetched and lists each of them.
   *
   * @param crd     the stored CRD ({@code spec.group}, {@code spec.names.plural}, {@code spec.versions})
   * @param routing this node's routing snapshot
   * @return true when every live node serves every served version
   */
  static boolean servedByFleet(JsonObject crd, RoutingSnapshot routing) {
    RoutingSnapshot r = routing;
    if (!r.ready() || !r.awaiting().isEmpty()) {
      return false;
    }
    JsonObject spec = crd.getJsonObject("spec");
    String group = spec.getString("group");
    String plural = spec.getJsonObject("names").getString("plural");
    List<Gvr> gvrs = new ArrayList<>();
    for (Object o : spec.getJsonArray("versions", new JsonArray())) {
      JsonObject v = (JsonObject) o;
      if (v.getBoolean("served", false)) {
        gvrs.add(new Gvr(group, v.getString("name"), plural));
      }
    }
    for (Gvr g : gvrs) {
      if (r.local().get(g) == null || !r.localCaps().serves(g, "")) {
        return false;
      }
      for (RoutingSnapshot.PeerEntry p : r.peers().values()) {
        if (!p.loaded() || !p.caps().serves(g, "")) {
          return false;
        }
      }
    }
    return !gvrs.isEmpty();
  }

  /** The finalizer controller for one deleted CRD. */
  private Future<Void> finalize(JsonObject crd) {
    String name = crd.getJsonObject("metadata").getString("name");
    String uid = crd.getJsonObject("metadata").getString("uid");
    boolean established = CrdConditions.isTrue(crd, CrdConditions.ESTABLISHED);
    JsonObject spec = crd.getJsonObject("spec");
    ResourceStorage objects = ctx.storage().resource(spec.getString("group") + "/"
        + spec.getJsonObject("names").getString("plural"));
    return updateStatus(name, uid, c -> CrdConditions.set(c, CrdConditions.TERMINATING, "True",
        "InstanceDeletionInProgress", "CustomResource deletion is in progress", now()))
        .compose(v -> !established ? Future.succeededFuture(new String[] {"False", "NeverEstablished",
            "resource was never established"}) : deleteInstances(objects).map(v2 -> new String[] {"False",
            "InstanceDeletionCompleted", "removed all instances"}))
        .recover(t -> {
          String[] failed = {"True", t instanceof IllegalStateException ? "InstanceDeletionCheck"
              : "InstanceDeletionFailed", t.getMessage()};
          return updateStatus(name, uid, c -> CrdConditions.set(c, CrdConditions.TERMINATING, failed[0], failed[1],
              failed[2], now())).compose(v -> Future.failedFuture(t));
        })
        .compose(cond -> store.guaranteedUpdate(name, new Preconditions(uid, null), cur -> {
          JsonObject c = cur.object().copy();
          CrdConditions.set(c, CrdConditions.TERMINATING, cond[0], cond[1], cond[2], now());
          JsonArray fin = c.getJsonObject("metadata").getJsonArray("finalizers", new JsonArray()).copy();
          fin.remove(CrdConditions.CLEANUP_FINALIZER);
          c.getJsonObject("metadata").put("finalizers", fin);
          return c;
        }))
        .compose(so -> {
          JsonArray fin = so.object().getJsonObject("metadata").getJsonArray("finalizers", new JsonArray());
          if (!fin.isEmpty()) {
            return Future.succeededFuture();
          }
          LOG.info("CustomResourceDefinition " + name + " finalized: its objects are deleted; removing it");
          return store.delete(name, new Preconditions(uid, null), null).<Void>mapEmpty();
        })
        .recover(t -> t instanceof StorageException se && (se.storageCode() == StorageException.Code.NOT_FOUND
            || se.storageCode() == StorageException.Code.CONFLICT) ? Future.succeededFuture()
            : Future.failedFuture(t));
  }

  /**
   * Deletes every object of the resource (an object with finalizers gets {@code deletionTimestamp} and is waited
   * for), then waits until none is left, at most {@link #INSTANCE_WAIT_MS}.
   *
   * @return fails with IllegalStateException ({@code could not confirm zero CustomResources remaining}) when objects
   *     remain, or with the storage error ({@code could not list instances} / {@code could not issue all deletes})
   */
  private Future<Void> deleteInstances(ResourceStorage objects) {
    return objects.list(ListOptions.all("")).recover(t -> Future.failedFuture(
            new RuntimeException("could not list instances: " + t.getMessage(), t)))
        .compose(page -> {
          List<Future<?>> deletes = new ArrayList<>();
          for (StoredObject so : page.items()) {
            deletes.add(deleteOne(objects, so));
          }
          return Future.all(deletes).recover(t -> Future.failedFuture(
              new RuntimeException("could not issue all deletes: " + t.getMessage(), t)));
        })
        .compose(v -> waitEmpty(objects, System.currentTimeMillis() + INSTANCE_WAIT_MS));
  }

  private Future<Void> deleteOne(ResourceStorage objects, StoredObject so) {
    JsonObject md = so.object().getJsonObject("metadata");
    boolean finalizers = md.getValue("finalizers") instanceof JsonArray f && !f.isEmpty();
    Future<?> op;
    if (!finalizers) {
      op = objects.delete(so.key(), new Preconditions(so.uid(), null), null);
    } else if (md.getValue("deletionTimestamp") == null) {
      op = objects.guaranteedUpdate(so.key(), new Preconditions(so.uid(), null), cur -> {
        JsonObject c = cur.object().copy();
        c.getJsonObject("metadata").put("deletionTimestamp", now()).put("deletionGracePeriodSeconds", 0);
        return c;
      });
    } else {
      op = Future.succeededFuture();
    }
    return op.<Void>mapEmpty().recover(t -> t instanceof StorageException se
        && (se.storageCode() == StorageException.Code.NOT_FOUND || se.storageCode() == StorageException.Code.CONFLICT)
        ? Future.succeededFuture() : Future.failedFuture(t));
  }

  private Future<Void> waitEmpty(ResourceStorage objects, long deadline) {
    return objects.count("").compose(n -> {
      if (n == 0) {
        return Future.succeededFuture();
      }
      if (System.currentTimeMillis() > deadline) {
        return Future.failedFuture(new IllegalStateException("could not confirm zero CustomResources remaining: "
            + n + " left"));
      }
      Promise<Void> p = Promise.promise();
      vertx.setTimer(PASS_MS, t -> waitEmpty(objects, deadline).onComplete(p));
      return p.future();
    });
  }

  private Future<Void> updateStatus(String name, String uid, java.util.function.UnaryOperator<JsonObject> f) {
    return store.guaranteedUpdate(name, new Preconditions(uid, null), cur -> f.apply(cur.object().copy()))
        .mapEmpty();
  }

  private void write(String name, JsonObject seen, JsonObject next) {
    writing.add(name);
    String uid = seen.getJsonObject("metadata").getString("uid");
    String rv = seen.getJsonObject("metadata").getString("resourceVersion");
    JsonObject toStore = next.copy();
    toStore.getJsonObject("metadata").remove("resourceVersion");
    store.guaranteedUpdate(name, new Preconditions(uid, rv), cur -> toStore).onComplete(ar -> {
      writing.remove(name);
      if (ar.failed() && !(ar.cause() instanceof StorageException se
          && (se.storageCode() == StorageException.Code.CONFLICT
          || se.storageCode() == StorageException.Code.NOT_FOUND))) {
        LOG.info("CustomResourceDefinition " + name + " status not written: " + ar.cause().getMessage());
      }
    });
  }

  private static boolean sameStatus(JsonObject a, JsonObject b) {
    return a.getJsonObject("status", new JsonObject()).equals(b.getJsonObject("status", new JsonObject()));
  }

  private static String now() {
    return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
  }

  /**
   * The source of an API-created CRD: creates of its objects answer {@code 405 MethodNotAllowed} ({@code create
   * not allowed while custom resource definition is terminating}) once the CRD is being deleted, as
   * {@code customresource_handler.go}; everything else is the factory's source.
   */
  private final class TerminatingGuard implements ApiSource {
    private final ApiSource delegate;
    private final String crdName;

    TerminatingGuard(ApiSource delegate, String crdName) {
      this.delegate = delegate;
      this.crdName = crdName;
    }

    @Override
    public String name() {
      return delegate.name();
    }

    @Override
    public List<ServedGroupVersion> groupVersions() {
      return delegate.groupVersions();
    }

    @Override
    public void handle(RoutingContext rc, RequestInfo info, UserInfo user) {
      if ("create".equals(info.verb()) && info.subresource().isEmpty() && terminating.contains(crdName)) {
        StatusWriter.send(rc, new StatusException(StatusReason.MethodNotAllowed,
            "create not allowed while custom resource definition is terminating", null));
        return;
      }
      delegate.handle(rc, info, user);
    }

    @Override
    public JsonObject openApiV3(io.mvproxy.api.GroupVersion gv) {
      return delegate.openApiV3(gv);
    }

    @Override
    public JsonObject openApiV2(io.mvproxy.api.GroupVersion gv) {
      return delegate.openApiV2(gv);
    }

    @Override
    public Future<Void> ready() {
      return delegate.ready();
    }

    @Override
    public Future<Void> close() {
      return delegate.close();
    }
  }
}
