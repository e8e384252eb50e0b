package io.mvproxy.node.plugin;

import io.mvproxy.api.Addresses;
import io.mvproxy.api.ApiSource;
import io.mvproxy.api.ApiSourceContext;
import io.mvproxy.api.ApiSourceFactory;
import io.mvproxy.api.Gvr;
import io.mvproxy.api.storage.Preconditions;
import io.mvproxy.api.storage.ResourceStorage;
import io.mvproxy.api.storage.StorageException;
import io.mvproxy.node.routing.RoutingSnapshot;
import io.mvproxy.registry.impl.model.CrdConditions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
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
 * plugin manifests ({@code crd-source}), published in this node's discovery (so peers route to it). The factory
 * runs on a worker thread (parsing compiles the CRD's CEL rules, seconds for big CRDs), its result is applied on this
 * verticle's event loop; a CRD whose build fails is logged and not built again until its generation changes. A changed spec
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
 *   {@code Established=False Installing} ({@link CrdNaming});</li>
 *   <li>establishing ({@code pkg/controller/establish}, and kube's HA wait of {@code customresource_handler.go}):
 *   {@code Established=True InitialNamesAccepted} only once every live node serves it: this node's routing has its
 *   source, the fleet's API set is fully known, and every live peer's published discovery lists each served
 *   version's resource ({@link CrdEstablishing});</li>
 *   <li>API approval ({@code pkg/controller/apiapproval}): {@code KubernetesAPIApprovalPolicyConformant} on CRDs of
 *   the protected groups {@code *.k8s.io} and {@code *.kubernetes.io} ({@link
 *   io.mvproxy.registry.impl.model.ApiApproval});</li>
 *   <li>finalizer ({@code pkg/controller/finalizer/crd_finalizer.go}): a deleted CRD's objects are deleted (objects
 *   with finalizers get {@code deletionTimestamp} and are waited for, up to a minute per round), then the
 *   {@code customresourcecleanup.apiextensions.k8s.io} finalizer is removed and the CRD with it; {@code Terminating}
 *   conditions as upstream. Creates of objects of a Terminating CRD answer {@code 405 MethodNotAllowed} as
 *   {@code customresource_handler.go} ({@link CrdFinalizer}, {@link TerminatingGuard}).</li>
 * </ul>
 * The stored CRDs are kept by {@link StoredCrds}.
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
  private boolean stopped;
  /** The stored CRDs (this node's watch and relists). */
  private StoredCrds crds;
  private CrdNaming namingController;
  private CrdEstablishing establishingController;
  private CrdFinalizer finalizer;
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

  /** Names to the {@code <uid>/<generation>} whose source is being built on a worker. */
  private final Map<String, String> building = new HashMap<>();
  /** Names to sources built on a worker, not yet applied (source null: the build failed for that key). */
  private final Map<String, Served> built = new HashMap<>();

  /** A served API CRD: {@code <uid>/<generation>} of the definition it was built from, and its source. */
  record Served(String key, ApiSource source) {
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
    crds = new StoredCrds(vertx, store, this::changed);
    namingController = new CrdNaming(crds, builtins);
    establishingController = new CrdEstablishing(active, routing);
    finalizer = new CrdFinalizer(vertx, ctx, store);
    crds.start();
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
    crds.synced().onComplete(ar -> {
      vertx.cancelTimer(timer);
      bounded.tryComplete();
    });
    return bounded.future();
  }

  @Override
  public Future<?> stop() {
    stopped = true;
    if (crds != null) {
      crds.stop();
    }
    List<Future<Void>> closing = new ArrayList<>();
    active.values().forEach(s -> closing.add(s.source().close()));
    draining.forEach(s -> closing.add(s.close()));
    built.values().forEach(s -> {
      if (s.source() != null) {
        closing.add(s.source().close());
      }
    });
    built.clear();
    return Future.join(closing);
  }

  private void changed() {
    Set<String> names = new HashSet<>();
    Set<String> deleting = new HashSet<>();
    Map<String, JsonObject> stored = crds.stored();
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
    Map<String, JsonObject> stored = crds.stored();
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
      Served done = built.get(name);
      if (done == null || !done.key().equals(key)) {
        build(name, key, crd);
        continue;
      }
      if (done.source() == null) {
        continue; // this generation cannot be served (logged once); a new generation is built again
      }
      built.remove(name);
      ApiSource source = new TerminatingGuard(done.source(), name, () -> terminating);
      active.put(name, new Served(key, source));
      if (cur != null) {
        withdrawn.add(cur.source());
      }
      change = true;
      LOG.info("CustomResourceDefinition " + name + " (generation " + md.getValue("generation") + ") served from the"
          + " API");
    }
    built.entrySet().removeIf(e -> {
      if (stored.containsKey(e.getKey())) {
        return false;
      }
      if (e.getValue().source() != null) {
        e.getValue().source().close();
      }
      return true;
    });
    for (String name : new ArrayList<>(active.keySet())) {
      JsonObject crd = stored.get(name);
      if (crd == null || isPluginCrd(crd) || pluginCrds.contains(name)
          || !crd.getJsonObject("metadata").getString("uid", "").equals(
              active.get(name).key().substring(0, active.get(name).key().indexOf('/')))) {
        ApiSource gone = active.remove(name).source();
        if (crd == null || !isPluginCrd(crd) && !pluginCrds.contains(name)) {
          if (gone instanceof TerminatingGuard g) {
            g.markGone(); // deleted: its drain serves reads only
          }
        }
        withdrawn.add(gone);
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

  /**
   * Builds the source of one stored CRD on a worker thread (parsing a CRD compiles its CEL rules, which takes
   * seconds for big CRDs: never on the event loop), then reconciles again on this verticle's event loop, which
   * applies the result. A build already under way for {@code key} is not started again; a finished build of an older
   * generation is closed.
   */
  private void build(String name, String key, JsonObject crd) {
    if (key.equals(building.get(name))) {
      return;
    }
    Served stale = built.remove(name);
    if (stale != null && stale.source() != null) {
      stale.source().close();
    }
    building.put(name, key);
    JsonObject manifest = manifest(crd);
    vertx.executeBlocking(() -> factory.create(manifest, ctx), false).onComplete(ar -> {
      building.remove(name, key);
      if (ar.failed()) {
        LOG.warning("CustomResourceDefinition " + name + " cannot be served: " + ar.cause().getMessage());
      }
      if (stopped) {
        if (ar.succeeded()) {
          ar.result().close();
        }
        return;
      }
      Served old = built.put(name, new Served(key, ar.succeeded() ? ar.result() : null));
      if (old != null && old.source() != null) {
        old.source().close();
      }
      reconcileSources();
    });
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
    for (JsonObject crd : crds.stored().values()) {
      if (isPluginCrd(crd)) {
        continue;
      }
      String name = crd.getJsonObject("metadata").getString("name");
      if (writing.contains(name)) {
        continue;
      }
      JsonObject md = crd.getJsonObject("metadata");
      boolean deleting = md.getValue("deletionTimestamp") != null;
      JsonObject next = namingController.naming(crd);
      if (next == null && !deleting) {
        next = establishingController.establishing(crd);
      }
      if (next == null && !deleting) {
        next = io.mvproxy.registry.impl.model.ApiApproval.condition(crd, now());
      }
      if (next != null) {
        write(name, crd, next);
      } else if (deleting && md.getValue("finalizers") instanceof JsonArray f
          && f.contains(CrdConditions.CLEANUP_FINALIZER) && finalizing.add(name)) {
        finalizer.finalize(crd).onComplete(ar -> {
          finalizing.remove(name);
          if (ar.failed()) {
            LOG.warning("finalizing CustomResourceDefinition " + name + ": " + ar.cause().getMessage());
          }
        });
      }
    }
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

  /** @return now as a condition's {@code lastTransitionTime} (RFC 3339, whole seconds) */
  static String now() {
    return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
