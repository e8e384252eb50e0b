package io.mvproxy.node.plugin;

import io.mvproxy.api.Addresses;
import io.mvproxy.api.ApiSource;
import io.mvproxy.api.ApiSourceContext;
import io.mvproxy.api.ApiSourceFactory;
import io.mvproxy.api.Gvr;
import io.mvproxy.api.storage.ListOptions;
import io.mvproxy.api.storage.ResourceStorage;
import io.mvproxy.api.storage.StorageException;
import io.mvproxy.api.storage.StoredObject;
import io.mvproxy.api.storage.Watch;
import io.mvproxy.api.storage.WatchEvent;
import io.mvproxy.api.storage.WatchListener;
import io.mvproxy.api.storage.WatchOptions;
import io.mvproxy.node.routing.RoutingSnapshot;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * APIServices created through the API ({@code apiregistration.k8s.io/v1}, stored under
 * {@code <prefix>/apiregistration.k8s.io/apiservices/<name>}), served by this node like a plugin's APIService: the
 * verticle watches the stored APIServices (relisting every {@link #RESYNC_MS}) and turns every API-created one (no
 * {@code mvproxy.io/served-by} annotation) with a {@code spec.service} into an {@link ApiSource} built by the same
 * factory as plugin manifests ({@code aggregated-api-source}: whole-group-version proxying, service resolution,
 * caBundle, front-proxy headers), published in this node's discovery. A changed spec swaps the source; a deleted
 * APIService is withdrawn make-before-break as a plugin is. An APIService a plugin of this node provides is never
 * served from the API (the plugin wins).
 *
 * <p>It also runs kube-aggregator's availability controller ({@code pkg/controllers/status/remote/
 * remote_available_controller.go}): every {@link #CHECK_MS} the backend's {@code /apis/<group>/<version>} is checked
 * (5 s deadline) and {@code status.conditions[type=Available]} written when it changed: {@code Passed},
 * {@code ServiceNotFound} (no {@code --service-resolution} entry), {@code FailedDiscoveryCheck}; local APIServices
 * (no service) are {@code Available=True Local}. One node writes: the live node with the lowest server ID (for a
 * plugin's APIService, the lowest live server ID among the nodes whose plugins serve it) &mdash; a deterministic
 * choice from the fleet membership instead of a Lease (nodes agreeing on membership agree on the writer; a brief
 * disagreement at most writes twice). That controller is {@link ApiServiceAvailability}.
 */
public final class ApiServiceVerticle extends VerticleBase {
  /** The APIServices' storage key prefix. */
  public static final String PREFIX = "apiregistration.k8s.io/apiservices";
  /** Relist interval, ms (as an informer's relist). */
  static final long RESYNC_MS = 2000;
  /** Availability check period, ms (kube-aggregator re-checks every 30 s; faster here so an outage shows at once). */
  static final long CHECK_MS = 3000;
  static final String SERVED_BY = "mvproxy.io/served-by";
  private static final Logger LOG = Logger.getLogger(ApiServiceVerticle.class.getName());

  private final ApiSourceContext ctx;
  private final ApiSourceFactory factory;
  private final PluginRegistry plugins;
  private final Supplier<RoutingSnapshot> routing;
  private final String serverId;
  private ResourceStorage store;
  private Watch watch;
  private boolean stopped;
  private Map<String, JsonObject> stored = new HashMap<>();
  private Map<String, JsonObject> initial;
  private long revision;
  private final Map<String, Served> active = new LinkedHashMap<>();
  private volatile List<ApiSource> published = List.of();
  private volatile List<ApiSource> draining = List.of();
  private volatile Map<io.mvproxy.api.GroupVersion, String> pending = Map.of();
  private final Set<String> warned = new HashSet<>();
  /** The availability controller (from start on, when there is storage). */
  private ApiServiceAvailability availability;

  /** A served API-created APIService: {@code <uid>/<generation>} of the object it was built from, and its source. */
  record Served(String key, ApiSource source) {
  }

  /**
   * @param ctx      node services (storage, Vert.x, service resolution, proxy client certificate)
   * @param factory  the APIService manifest factory (the plugin path's, {@code apiregistration.k8s.io/v1})
   * @param plugins  this node's plugins (their APIServices win)
   * @param routing  this node's routing snapshot (the live peers, for the writer of the conditions)
   * @param serverId this node's server ID
   */
  public ApiServiceVerticle(ApiSourceContext ctx, ApiSourceFactory factory, PluginRegistry plugins,
                            Supplier<RoutingSnapshot> routing, String serverId) {
    this.ctx = ctx;
    this.factory = factory;
    this.plugins = plugins;
    this.routing = routing;
    this.serverId = serverId;
  }

  /** @return the sources of API-created APIServices this node publishes in its discovery */
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
   * @return the 503 message when a stored API-created APIService registers its group-version (this node is about to
   *     serve it, so 404 would be false); else null
   */
  public String pending(Gvr gvr) {
    String name = pending.get(gvr.groupVersion());
    return name == null ? null : "the APIService " + name + " is stored but not served yet; " + gvr.groupVersion()
        + " will be served shortly";
  }

  @Override
  public Future<?> start() {
    if (ctx.storage() == null) {
      return Future.succeededFuture();
    }
    store = ctx.storage().resource(PREFIX);
    availability = new ApiServiceAvailability(plugins, routing, serverId, store, active, () -> stored, () -> stopped);
    startWatch();
    vertx.setPeriodic(RESYNC_MS, t -> resync());
    vertx.setPeriodic(CHECK_MS, t -> availability.checkAvailability());
    return Future.succeededFuture();
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
        } catch (RuntimeException ex) {
          LOG.log(Level.WARNING, "APIService watch event not applied", ex);
        }
      }

      @Override
      public void onInitialEventsEnd(long rev) {
        stored = initial;
        initial = null;
        changed();
      }

      @Override
      public void onError(StorageException error) {
        LOG.fine("APIService watch ended: " + error.getMessage() + "; watching again");
        vertx.setTimer(1000, t -> startWatch());
      }
    }).onSuccess(w -> watch = w).onFailure(t -> {
      LOG.fine("APIService watch failed: " + t.getMessage() + "; retrying");
      vertx.setTimer(1000, x -> startWatch());
    });
  }

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

  /** @param o a stored APIService @return true when a plugin provides it */
  static boolean isPlugin(JsonObject o) {
    JsonObject md = o.getJsonObject("metadata", new JsonObject());
    return md.getValue("annotations") instanceof JsonObject a && a.containsKey(SERVED_BY);
  }

  static boolean isLocal(JsonObject o) {
    return !(o.getJsonObject("spec", new JsonObject()).getValue("service") instanceof JsonObject);
  }

  private void changed() {
    Map<io.mvproxy.api.GroupVersion, String> gvs = new HashMap<>();
    stored.forEach((n, o) -> {
      if (!isPlugin(o) && !isLocal(o)) {
        JsonObject spec = o.getJsonObject("spec");
        gvs.put(new io.mvproxy.api.GroupVersion(spec.getString("group", ""), spec.getString("version", "")), n);
      }
    });
    pending = Map.copyOf(gvs);
    reconcileSources();
  }

  private Set<String> pluginApiServices() {
    Set<String> out = new HashSet<>();
    plugins.sources().forEach(s -> {
      if (s.name().startsWith("apiservice/")) {
        out.add(s.name().substring("apiservice/".length()));
      }
    });
    return out;
  }

  /** Builds, swaps and withdraws sources so the served set matches the stored API-created APIServices. */
  private void reconcileSources() {
    Set<String> pluginNames = pluginApiServices();
    boolean change = false;
    List<ApiSource> withdrawn = new ArrayList<>();
    for (Map.Entry<String, JsonObject> e : stored.entrySet()) {
      String name = e.getKey();
      JsonObject o = e.getValue();
      if (isPlugin(o) || isLocal(o)) {
        continue;
      }
      if (pluginNames.contains(name)) {
        if (warned.add(name)) {
          LOG.warning("APIService " + name + " was created through the API but a plugin of this node provides it;"
              + " the plugin's is served here");
        }
        continue;
      }
      String key = o.getJsonObject("metadata").getString("uid") + "/" + o.getJsonObject("spec").encode();
      Served cur = active.get(name);
      if (cur != null && cur.key().equals(key)) {
        continue;
      }
      ApiSource source;
      try {
        source = factory.create(manifest(o), ctx);
      } catch (RuntimeException ex) {
        LOG.warning("APIService " + name + " cannot be served: " + ex.getMessage());
        continue;
      }
      Served served = new Served(key, source);
      active.put(name, served);
      // the backend's resources become known after its discovery check: re-publish this node's discovery then
      source.onChange(() -> {
        if (active.get(name) == served) {
          vertx.eventBus().publish(Addresses.LOCAL_APIS_CHANGED, null);
        }
      });
      if (cur != null) {
        withdrawn.add(cur.source());
      }
      change = true;
      LOG.info("APIService " + name + " served from the API");
    }
    for (String name : new ArrayList<>(active.keySet())) {
      JsonObject o = stored.get(name);
      if (o == null || isPlugin(o) || isLocal(o) || pluginNames.contains(name) || !active.get(name).key()
          .startsWith(o.getJsonObject("metadata").getString("uid", "") + "/")) {
        withdrawn.add(active.remove(name).source());
        change = true;
        LOG.info("APIService " + name + " withdrawn: no longer stored from the API");
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
    availability.checkAvailability();
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

  private static JsonObject manifest(JsonObject o) {
    JsonObject m = o.copy();
    m.remove("status");
    return m;
  }
}
