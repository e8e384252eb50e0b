package io.mvproxy.node.plugin;

import io.mvproxy.api.Addresses;
import io.mvproxy.api.ApiSource;
import io.mvproxy.api.ApiSourceContext;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.jackson.DatabindCodec;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.logging.Logger;

/**
 * Hot plugin loading: watches the plugin folder (file-system events as hints, plus a rescan every
 * {@link #RESCAN_MS} as the fallback for bind mounts and network folders), and without restart loads new jars,
 * unloads removed ones and swaps replaced ones. A replacement that fails keeps the previous version serving (last
 * known good) and reports the failure; a jar claiming a GVR another ACTIVE plugin serves is refused. After each
 * change it publishes {@link Addresses#LOCAL_APIS_CHANGED}.
 *
 * <p>Make before break (README "Plugins"): a removed or replaced plugin first leaves this node's published discovery
 * but keeps serving (UNLOADED, {@link PluginRegistry#draining()}); a replacement is ACTIVE before its predecessor is
 * withdrawn, so a swap never leaves a moment in which none of them serves. Once every live peer has applied the
 * discovery without it ({@link Addresses#LOCAL_PEERS_CAUGHT_UP}, at most {@link #PEER_DRAIN_BOUND_MS}) it leaves
 * routing too, and its sources are closed {@link #DRAIN_MS} later so requests in flight finish; class loaders are
 * closed and Jackson's caches flushed so they can be collected. A peer hop that still arrives afterwards gets 503
 * {@code X-Mvproxy-Not-Served-Here} and is retried on another peer by the proxying node.
 */
public final class PluginVerticle extends VerticleBase {
  /** Fallback rescan interval, ms. */
  static final long RESCAN_MS = 2000;
  /** Debounce of file-system events, ms: a copy produces several events. */
  static final long DEBOUNCE_MS = 30;
  /** Delay before an unloaded plugin's sources are closed, ms: lets in-flight requests finish. */
  static final long DRAIN_MS = 2000;
  /**
   * Longest wait, ms, for every live peer to apply this node's discovery without a withdrawn plugin before the plugin
   * leaves routing: a peer fetches within milliseconds of the announcement on loopback and about a second on a loaded
   * machine; an older peer that never confirms, or one frozen until Hazelcast drops it (about 5 s), is waited for no
   * longer than this (its late hops get 503 Not-Served-Here and are retried elsewhere).
   */
  static final long PEER_DRAIN_BOUND_MS = 10_000;
  /**
   * Logged as {@code plugin <jar> [<version>] closed: ...} once a withdrawn, refused or late plugin's sources are
   * closed (for a drained one {@link #DRAIN_MS} after it left routing): the end of its withdrawal.
   */
  public static final String CLOSED_LOG = "closed: its sources no longer serve";
  private static final Logger LOG = Logger.getLogger(PluginVerticle.class.getName());

  private final Path dir;
  private final PluginLoader loader;
  private final ApiSourceContext sourceContext;
  private final PluginRegistry registry;
  private final java.util.function.Predicate<String> apiCrd;
  private WatchService watcher;
  private Thread watchThread;
  private boolean scanning;
  private boolean rescan;
  private long debounce = -1;
  /** Plugins withdrawn since the last publication: drained once it is out. */
  private final List<Plugin> withdrawn = new java.util.ArrayList<>();

  /**
   * @param dir           the plugin folder (created when missing)
   * @param loader        reads jars
   * @param sourceContext node services for the sources
   * @param registry      where the current plugins are published
   */
  public PluginVerticle(Path dir, PluginLoader loader, ApiSourceContext sourceContext, PluginRegistry registry) {
    this(dir, loader, sourceContext, registry, name -> false);
  }

  /**
   * @param dir           the plugin folder (created when missing)
   * @param loader        reads jars
   * @param sourceContext node services for the sources
   * @param registry      where the current plugins are published
   * @param apiCrd        true for the name of a CustomResourceDefinition created through the API: a plugin serving
   *                      that name is refused (FAILED), the API-created CRD keeps it
   */
  public PluginVerticle(Path dir, PluginLoader loader, ApiSourceContext sourceContext, PluginRegistry registry,
                        java.util.function.Predicate<String> apiCrd) {
    this.apiCrd = apiCrd;
    this.dir = dir;
    this.loader = loader;
    this.sourceContext = sourceContext;
    this.registry = registry;
  }

  @Override
  public Future<?> start() {
    return vertx.executeBlocking(() -> {
      Files.createDirectories(dir);
      watcher = FileSystems.getDefault().newWatchService();
      dir.register(watcher, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE,
          StandardWatchEventKinds.ENTRY_MODIFY);
      return null;
    }).compose(v -> scan()).onSuccess(v -> {
      watchThread = new Thread(this::watch, "mvproxy-plugin-watch");
      watchThread.setDaemon(true);
      watchThread.start();
      vertx.setPeriodic(RESCAN_MS, t -> scanSoon(0));
    });
  }

  @Override
  public Future<?> stop() {
    try {
      if (watcher != null) {
        watcher.close();
      }
    } catch (IOException e) {
      LOG.fine("watch service close: " + e);
    }
    List<Future<Void>> closing = registry.servingSources().stream().map(ApiSource::close).toList();
    return Future.join(closing);
  }

  private void watch() {
    try {
      while (true) {
        WatchKey key = watcher.take();
        key.pollEvents();
        key.reset();
        io.mvproxy.node.fleet.Convergence.stage("file-event", "-", "-");
        context.runOnContext(v -> scanSoon(DEBOUNCE_MS));
      }
    } catch (InterruptedException | ClosedWatchServiceException e) {
      // stopping
    }
  }

  private void scanSoon(long delayMs) {
    if (scanning) {
      rescan = true;
    } else if (delayMs == 0) {
      scan();
    } else if (debounce < 0) {
      debounce = vertx.setTimer(delayMs, t -> {
        debounce = -1;
        scan();
      });
    }
  }

  /** Lists the folder and applies every difference, one jar at a time. */
  private Future<Void> scan() {
    if (scanning) {
      rescan = true;
      return Future.succeededFuture();
    }
    scanning = true;
    return vertx.executeBlocking(this::listJars).compose(this::applyAll).eventually(() -> {
      scanning = false;
      if (rescan) {
        rescan = false;
        scanSoon(0);
      }
      return Future.succeededFuture();
    });
  }

  private Map<String, String> listJars() throws IOException {
    Map<String, String> out = new TreeMap<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.jar")) {
      for (Path p : ds) {
        String fp = PluginLoader.fingerprint(p);
        if (fp != null) {
          out.put(p.getFileName().toString(), fp);
        }
      }
    }
    return out;
  }

  private Future<Void> applyAll(Map<String, String> onDisk) {
    Map<String, Plugin> current = registry.current();
    Future<Void> chain = Future.succeededFuture();
    boolean removed = false;
    Map<String, Plugin> next = new TreeMap<>(current);
    for (String gone : current.keySet()) {
      if (!onDisk.containsKey(gone)) {
        unload(next.remove(gone), "removed from " + dir);
        removed = true;
      }
    }
    if (removed || !registry.loaded()) {
      publish(next);
    }
    for (Map.Entry<String, String> e : onDisk.entrySet()) {
      Plugin old = current.get(e.getKey());
      if (old == null || !e.getValue().equals(old.fingerprint())) {
        Path jar = dir.resolve(e.getKey());
        chain = chain.compose(v -> loadWithinBudget(jar, e.getValue())
            .map(p -> {
              install(p);
              return null;
            }));
      }
    }
    return chain;
  }

  /**
   * Loads one jar on a worker thread (unordered, so a load that never returns does not hold up the next one) within
   * the loader's budget: past it the jar is FAILED with the reason and the scan goes on; sources it creates later
   * are closed.
   */
  private Future<Plugin> loadWithinBudget(Path jar, String fingerprint) {
    io.vertx.core.Promise<Plugin> done = io.vertx.core.Promise.promise();
    long budgetMs = loader.limits().budget().toMillis();
    long timer = vertx.setTimer(budgetMs, t -> done.tryComplete(new Plugin(jar.getFileName().toString()
        .replaceFirst("\\.jar$", ""), "", jar, fingerprint, PluginState.LOADED, null, List.of(), null)
        .failed("not loaded within the load budget of " + loader.limits().budget().toSeconds() + " s")));
    vertx.executeBlocking(() -> loader.load(jar, fingerprint, sourceContext), false).onComplete(ar -> {
      vertx.cancelTimer(timer);
      Plugin loaded = ar.succeeded() ? ar.result() : new Plugin(jar.getFileName().toString()
          .replaceFirst("\\.jar$", ""), "", jar, fingerprint, PluginState.LOADED, null, List.of(), null)
          .failed(PluginLoader.describe(ar.cause()));
      if (!done.tryComplete(loaded) && loaded.state() == PluginState.ACTIVE) {
        LOG.warning("plugin " + jar.getFileName() + " finished loading after its budget; closing it");
        closeLater(loaded, 0);
      }
    });
    return done.future();
  }

  /** Installs a freshly read plugin (on the verticle's context). */
  private void install(Plugin loaded) {
    Map<String, Plugin> next = new TreeMap<>(registry.current());
    String file = loaded.fileName();
    Plugin old = next.get(file);
    Plugin p = loaded.state() == PluginState.ACTIVE ? refuseConflicts(loaded, next) : loaded;
    if (p.state() == PluginState.FAILED && old != null && old.state() == PluginState.ACTIVE) {
      LOG.warning("plugin " + file + " replacement FAILED, previous version keeps serving: " + p.error());
      next.put(file, new Plugin(old.name(), old.version(), old.jar(), p.fingerprint(), PluginState.ACTIVE,
          "replacement failed, previous version still serving: " + p.error(), old.sources(), old.classLoader()));
      publish(next);
      return;
    }
    next.put(file, p);
    if (old != null) {
      unload(old, "replaced");
    }
    if (p.state() == PluginState.ACTIVE) {
      // a source whose API set changes later (aggregated APIs) re-triggers discovery, while it is installed
      p.sources().forEach(s -> s.onChange(() -> {
        if (registry.current().get(file) == p) {
          vertx.eventBus().publish(Addresses.LOCAL_APIS_CHANGED, null);
        }
      }));
      LOG.info("plugin " + p.name() + (p.version().isEmpty() ? "" : " " + p.version()) + " ACTIVE from " + file + ": "
          + p.sources().stream().map(ApiSource::name).toList());
      io.mvproxy.node.fleet.Convergence.stage("applied", "-", "-");
    } else {
      LOG.warning("plugin " + file + " FAILED: " + p.error());
    }
    publish(next);
  }

  private Plugin refuseConflicts(Plugin p, Map<String, Plugin> others) {
    Map<String, String> claimed = new HashMap<>();
    others.values().stream().filter(o -> o.state() == PluginState.ACTIVE && !o.fileName().equals(p.fileName()))
        .forEach(o -> o.sources().forEach(s -> claims(s).forEach(c -> claimed.put(c, o.fileName()))));
    for (ApiSource s : p.sources()) {
      for (String c : claims(s)) {
        if (c.startsWith("crd ") && apiCrd.test(c.substring(4))) {
          closeLater(p, 0);
          return p.failed("CustomResourceDefinition " + c.substring(4) + " was created through the API"
              + " (apiextensions.k8s.io/v1); delete it there before a plugin may serve that name");
        }
        String owner = claimed.get(c);
        if (owner == null && c.startsWith("gv ")) {
          owner = claimed.entrySet().stream().filter(e -> e.getKey().startsWith(c.substring(3) + "/"))
              .map(Map.Entry::getValue).findFirst().orElse(null);
        }
        if (owner == null && c.contains("/")) {
          owner = claimed.get("gv " + c.substring(0, c.lastIndexOf('/')));
        }
        if (owner != null) {
          closeLater(p, 0);
          return p.failed(c.replaceFirst("^gv ", "").replaceFirst("^crd ", "CustomResourceDefinition ")
              + " is already served by plugin " + owner);
        }
      }
    }
    return p;
  }

  /**
   * What a source claims: {@code gv <group>/<version>} for whole-group-version sources, else
   * {@code <group>/<version>/<resource>} per resource, and {@code crd <name>} for a custom resource definition.
   */
  private static List<String> claims(ApiSource s) {
    if (s.servesWholeGroupVersion()) {
      return s.groupVersions().stream().map(gv -> "gv " + gv.groupVersion().group() + "/"
          + gv.groupVersion().version()).toList();
    }
    List<String> out = new java.util.ArrayList<>(PluginLoader.gvrs(s).stream()
        .map(g -> g.group() + "/" + g.version() + "/" + g.resource()).toList());
    if (s.name().startsWith("crd/")) {
      // one CustomResourceDefinition per <plural>.<group>, as kube-apiserver: its scope and names hold for every
      // version, so another plugin may not add versions (or another scope) under the same name
      out.add("crd " + s.name().substring("crd/".length()));
    }
    return out;
  }

  /** Withdraws a plugin from this node's published discovery; it keeps serving until drained (see the class doc). */
  private void unload(Plugin p, String why) {
    if (p.state() != PluginState.ACTIVE) {
      closeLater(p, 0);
      return;
    }
    LOG.info("plugin " + p.fileName() + " UNLOADED (" + why + "): withdrawn from discovery, serving until the peers"
        + " stop routing to it");
    if (why.startsWith("removed")) {
      io.mvproxy.node.fleet.Convergence.stage("applied", "-", "-");
    }
    registry.addDraining(p);
    withdrawn.add(p);
  }

  /**
   * Once the withdrawal is published: waits for every live peer to apply it (at most {@link #PEER_DRAIN_BOUND_MS}),
   * then takes the plugin out of routing and closes its sources after {@link #DRAIN_MS}.
   */
  private void drain(Plugin p) {
    long t0 = System.nanoTime();
    vertx.eventBus().request(Addresses.LOCAL_PEERS_CAUGHT_UP, null,
        new io.vertx.core.eventbus.DeliveryOptions().setSendTimeout(PEER_DRAIN_BOUND_MS)).onComplete(ar -> {
          long ms = (System.nanoTime() - t0) / 1_000_000;
          if (ar.succeeded()) {
            LOG.info("plugin " + p.fileName() + " drained: every live peer stopped routing to it after " + ms + " ms");
          } else {
            LOG.warning("plugin " + p.fileName() + " drained after " + ms + " ms without every peer's confirmation: "
                + ar.cause().getMessage());
          }
          registry.removeDraining(p);
          vertx.eventBus().publish(Addresses.LOCAL_APIS_CHANGED, null);
          closeLater(p, DRAIN_MS);
        });
  }

  /**
   * Closes a plugin's sources after {@code delayMs} (0: at once), then its class loader; logs
   * {@link #CLOSED_LOG} when done.
   */
  private void closeLater(Plugin p, long delayMs) {
    Runnable close = () -> Future.join(p.sources().stream().map(ApiSource::close).toList()).onComplete(ar -> {
      LOG.info("plugin " + p.fileName() + (p.version().isEmpty() ? "" : " " + p.version()) + " " + CLOSED_LOG
          + (ar.succeeded() ? "" : " (a source failed to close: " + ar.cause() + ")"));
      PluginLoader.closeQuietly(p.classLoader());
      if (p.classLoader() != null) {
        // Vert.x's shared Jackson mapper caches serializers per class: flush so the loader can be collected
        DatabindCodec.mapper().getTypeFactory().clearCache();
        ((com.fasterxml.jackson.databind.ser.DefaultSerializerProvider) DatabindCodec.mapper()
            .getSerializerProvider()).flushCachedSerializers();
      }
    });
    if (delayMs == 0) {
      close.run();
    } else {
      vertx.setTimer(delayMs, t -> close.run());
    }
  }

  private void publish(Map<String, Plugin> next) {
    registry.set(next);
    vertx.eventBus().publish(Addresses.LOCAL_APIS_CHANGED, null);
    List<Plugin> out = List.copyOf(withdrawn);
    withdrawn.clear();
    out.forEach(this::drain);
  }
}
