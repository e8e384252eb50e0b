package io.mvproxy.node;

import io.mvproxy.api.Addresses;
import io.mvproxy.api.ApiSource;
import io.mvproxy.api.ApiSourceFactory;
import io.mvproxy.api.BuiltinApiSet;
import io.mvproxy.node.fleet.FleetViewRef;
import io.mvproxy.node.plugin.ApiCrdVerticle;
import io.mvproxy.node.plugin.ApiServiceVerticle;
import io.mvproxy.node.plugin.PluginLoader;
import io.mvproxy.node.plugin.PluginRegistry;
import io.mvproxy.node.plugin.PluginVerticle;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A node's local API sources and their watching: the built-in APIs, the plugin jars of {@code --plugin-dir}
 * (watched by the {@link PluginVerticle}), and the CRDs and APIServices created through the API (served like a
 * plugin's when a factory for them is on the class path). Deploys their verticles, stores the definitions of the
 * ACTIVE plugins as API objects whenever the local API set changes, and lists the sources for discovery (published)
 * and routing (serving, including withdrawn ones still draining).
 */
final class LocalSources {
  private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(Node.class.getName());
  private final NodeSourceContext ctx;
  private final BuiltinApiSet builtin;
  private final PluginRegistry plugins;
  private final FleetViewRef view;
  private final String serverId;
  /** CRDs created through the API, served like a plugin's (null when no CRD factory is on the class path). */
  private ApiCrdVerticle apiCrds;
  /** APIServices created through the API, served like a plugin's (null when no APIService factory is present). */
  private ApiServiceVerticle apiServices;

  /**
   * @param ctx      the node services handed to API sources
   * @param builtin  the built-in APIs, created
   * @param plugins  the node's plugin registry
   * @param view     the fleet view (routing, for API-created CRDs and APIServices)
   * @param serverId this node's server ID
   */
  LocalSources(NodeSourceContext ctx, BuiltinApiSet builtin, PluginRegistry plugins, FleetViewRef view,
               String serverId) {
    this.ctx = ctx;
    this.builtin = builtin;
    this.plugins = plugins;
    this.view = view;
    this.serverId = serverId;
  }

  /**
   * Creates and deploys, in order, the API-created CRD and APIService verticles (when their factories exist) and
   * the plugin verticle; once its first scan loaded every jar, publishes the definitions, and again on every
   * {@link io.mvproxy.api.Addresses#LOCAL_APIS_CHANGED}.
   *
   * @param vertx      the node's Vert.x
   * @param pluginDir  {@code --plugin-dir}
   * @param privateDir this process's private copy folder of plugin jars
   * @return the plugin verticle's deployment ID (undeployed last on shutdown, closing the sources)
   */
  Future<String> deploy(Vertx vertx, Path pluginDir, Path privateDir) {
    List<ApiSourceFactory> factories = PluginLoader.discoverFactories();
    ApiSourceFactory crdFactory = factories.stream()
        .filter(f -> f.supports("apiextensions.k8s.io/v1", "CustomResourceDefinition")).findFirst().orElse(null);
    if (crdFactory != null) {
      apiCrds = new ApiCrdVerticle(ctx, crdFactory, plugins, () -> view.get().routing(), builtin::sources);
    }
    ApiSourceFactory apiServiceFactory = factories.stream()
        .filter(f -> f.supports("apiregistration.k8s.io/v1", "APIService")).findFirst().orElse(null);
    if (apiServiceFactory != null) {
      apiServices = new ApiServiceVerticle(ctx, apiServiceFactory, plugins, () -> view.get().routing(), serverId);
    }
    view.pending(gvr -> {
      String why = apiCrds == null ? null : apiCrds.pending(gvr);
      return why != null || apiServices == null ? why : apiServices.pending(gvr);
    });
    PluginVerticle pluginVerticle = new PluginVerticle(pluginDir, new PluginLoader(privateDir, factories), ctx,
        plugins, apiCrds == null ? name -> false : apiCrds::isApiCrd);
    // only once the first scan loaded every jar: its earlier empty publication would withdraw this node from every
    // stored CRD and add it back (rewriting each CRD, or deleting it when the whole fleet restarts at once)
    AtomicBoolean scanned = new AtomicBoolean();
    vertx.eventBus().localConsumer(Addresses.LOCAL_APIS_CHANGED, m -> {
      if (scanned.get()) {
        publishDefinitions();
      }
    });
    long[] at = {System.nanoTime(), 0, 0};
    Future<String> crdsFirst = apiCrds == null ? Future.succeededFuture("") : vertx.deployVerticle(apiCrds);
    return crdsFirst.compose(c -> {
      at[1] = System.nanoTime();
      return apiServices == null ? Future.succeededFuture("") : vertx.deployVerticle(apiServices);
    }).compose(c -> {
      at[2] = System.nanoTime();
      return vertx.deployVerticle(pluginVerticle);
    }).onSuccess(id -> {
      // the three parts of the start-up stage "stored CRDs, APIServices and plugins loaded"
      LOG.info("local sources: stored CRDs listed in " + (at[1] - at[0]) / 1_000_000 + " ms, APIServices in "
          + (at[2] - at[1]) / 1_000_000 + " ms, plugins loaded in " + (System.nanoTime() - at[2]) / 1_000_000 + " ms");
      scanned.set(true);
      publishDefinitions();
    });
  }

  /** Stores the CRDs and APIServices of this node's ACTIVE plugins as API objects (merged fleet-wide). */
  private void publishDefinitions() {
    List<JsonObject> defs = new ArrayList<>();
    plugins.sources().forEach(s -> {
      s.customResourceDefinition().ifPresent(defs::add);
      s.apiService().ifPresent(defs::add);
    });
    builtin.publishDefinitions(defs);
  }

  /**
   * @param node     the node API source ({@code mvproxy.io} nodes and plugins), listed first
   * @param builtins the built-in API sources, listed next
   * @return the sources published in discovery now: the node API, built-in, plugins', API-created CRDs' and
   *     APIServices'
   */
  List<ApiSource> published(ApiSource node, List<ApiSource> builtins) {
    List<ApiSource> all = new ArrayList<>();
    all.add(node);
    all.addAll(builtins);
    all.addAll(plugins.sources());
    if (apiCrds != null) {
      all.addAll(apiCrds.sources());
    }
    if (apiServices != null) {
      all.addAll(apiServices.sources());
    }
    return all;
  }

  /**
   * @param node     the node API source, listed first
   * @param builtins the built-in API sources, listed next
   * @return the sources routed to now: {@link #published} plus withdrawn ones still draining
   */
  List<ApiSource> serving(ApiSource node, List<ApiSource> builtins) {
    List<ApiSource> all = new ArrayList<>();
    all.add(node);
    all.addAll(builtins);
    all.addAll(plugins.servingSources());
    if (apiCrds != null) {
      all.addAll(apiCrds.servingSources());
    }
    if (apiServices != null) {
      all.addAll(apiServices.servingSources());
    }
    return all;
  }
}
