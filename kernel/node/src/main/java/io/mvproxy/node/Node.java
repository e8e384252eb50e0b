package io.mvproxy.node;

import io.mvproxy.discovery.DiscoveryDocuments;
import io.mvproxy.openapi.OpenApiDocuments;
import io.mvproxy.node.cluster.HazelcastConfigFactory;
import io.mvproxy.node.config.ConfigException;
import io.mvproxy.node.config.ConfigKey;
import io.mvproxy.node.config.NodeConfig;
import io.mvproxy.node.fleet.DiscoveryVerticle;
import io.mvproxy.node.fleet.FleetView;
import io.mvproxy.node.fleet.FleetViewRef;
import io.mvproxy.node.fleet.PeerDiscoveryClient;
import io.mvproxy.node.ingress.HealthHandler;
import io.mvproxy.node.ingress.IngressVerticle;
import io.mvproxy.node.membership.MembershipVerticle;
import io.mvproxy.node.metrics.NodeMetrics;
import io.mvproxy.node.nodeapi.FleetObjects;
import io.mvproxy.node.nodeapi.NodeApiSource;
import io.mvproxy.node.plugin.Plugin;
import io.mvproxy.node.plugin.PluginLoader;
import io.mvproxy.node.plugin.PluginRegistry;
import io.mvproxy.node.plugin.PluginVerticle;
import io.mvproxy.node.proxy.PeerProxy;
import io.mvproxy.node.routing.RoutingSnapshot;
import io.mvproxy.security.Authenticator;
import io.mvproxy.security.TlsOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.logging.Logger;

/**
 * One mvproxy node: joins the Hazelcast cluster (clustered Vert.x), loads its plugins, and deploys the ingress,
 * discovery-aggregation and membership verticles. {@link #start(NodeConfig)} fails fast on bad TLS material;
 * {@link #stop()} leaves the fleet gracefully.
 */
public final class Node {
  private static final Logger LOG = Logger.getLogger(Node.class.getName());
  private final NodeConfig config;
  private final Vertx vertx;
  private final PluginRegistry plugins;
  private final FleetViewRef view;
  private final int port;
  private final String membershipDeployment;

  private Node(NodeConfig config, Vertx vertx, PluginRegistry plugins, FleetViewRef view, int port,
               String membershipDeployment) {
    this.config = config;
    this.vertx = vertx;
    this.plugins = plugins;
    this.view = view;
    this.port = port;
    this.membershipDeployment = membershipDeployment;
  }

  /**
   * Starts a node.
   *
   * @param config validated configuration
   * @return the running node; fails with {@link ConfigException} naming the key when TLS/CA/token files are
   *     unusable, or with the cluster/listen error
   */
  public static Future<Node> start(NodeConfig config) {
    HttpServerOptions serverOptions;
    Authenticator authenticator;
    HttpClientOptions peerOptions = null;
    try {
      serverOptions = TlsOptions.server(str(config.tlsCertFile()), str(config.tlsPrivateKeyFile()),
          str(config.clientCaFile()), str(config.requestheaderClientCaFile()))
          .setHost(config.bindAddress()).setPort(config.securePort());
      authenticator = Authenticator.fromFlags(str(config.clientCaFile()), str(config.requestheaderClientCaFile()),
          config.requestheaderAllowedNames(), str(config.tokenAuthFile()));
      if (config.peersEnabled()) {
        peerOptions = TlsOptions.peerClient(str(config.peerCaFile()), str(config.proxyClientCertFile()),
            str(config.proxyClientKeyFile()));
      }
    } catch (IllegalArgumentException e) {
      return Future.failedFuture(new ConfigException(e.getMessage()));
    }
    if (config.clientCaFile() == null && config.tokenAuthFile() == null) {
      LOG.warning("neither " + ConfigKey.CLIENT_CA_FILE.flag() + " nor " + ConfigKey.TOKEN_AUTH_FILE.flag()
          + " is set: every request except health checks will get 401");
    }
    HazelcastClusterManager mgr = new HazelcastClusterManager(HazelcastConfigFactory.create(config));
    VertxOptions vo = new VertxOptions().setEventBusOptions(new EventBusOptions().setHost(config.clusterHost())
        .setPort(0));
    HttpClientOptions peerClientOptions = peerOptions;
    long t0 = System.nanoTime();
    return Vertx.builder().with(vo).withClusterManager(mgr).buildClustered()
        .compose(vertx -> boot(config, vertx, mgr, serverOptions, authenticator, peerClientOptions)
            .onFailure(e -> vertx.close()))
        .onSuccess(n -> LOG.info("node " + config.serverId() + " serving on https://" + config.bindAddress() + ":"
            + n.port + " in " + (System.nanoTime() - t0) / 1_000_000 + " ms"));
  }

  private static Future<Node> boot(NodeConfig config, Vertx vertx, HazelcastClusterManager mgr,
                                   HttpServerOptions serverOptions, Authenticator authenticator,
                                   HttpClientOptions peerOptions) {
    NodeMetrics metrics = new NodeMetrics();
    Path privateDir = Path.of(System.getProperty("java.io.tmpdir"), "mvproxy-" + config.serverId() + "-"
        + ProcessHandle.current().pid(), "plugins");
    NodeSourceContext ctx = new NodeSourceContext(vertx, mgr.getHazelcastInstance(), config.serverId(),
        config.serviceResolution(), config.proxyClientCertFile() == null ? null
        : TlsOptions.keyCert(str(config.proxyClientCertFile()), "--proxy-client-cert-file",
            str(config.proxyClientKeyFile()), "--proxy-client-key-file"));
    PluginRegistry registry = new PluginRegistry();
    PluginVerticle pluginVerticle = new PluginVerticle(config.pluginDir(),
        new PluginLoader(privateDir, PluginLoader.discoverFactories()), ctx, registry);
    return vertx.deployVerticle(pluginVerticle)
        .compose(pid -> deploy(config, vertx, mgr, serverOptions, authenticator, peerOptions, metrics, registry));
  }

  private static Future<Node> deploy(NodeConfig config, Vertx vertx, HazelcastClusterManager mgr,
                                     HttpServerOptions serverOptions, Authenticator authenticator,
                                     HttpClientOptions peerOptions, NodeMetrics metrics, PluginRegistry plugins) {
    String advertise = config.peerHost();
    FleetViewRef view = new FleetViewRef(new FleetView(RoutingSnapshot.EMPTY,
        DiscoveryDocuments.empty(config.serverId(), advertise + ":" + config.securePort()),
        OpenApiDocuments.empty(), Map.of()));
    Map<String, BooleanSupplier> ready = new LinkedHashMap<>();
    ready.put("cluster", () -> mgr.isActive());
    ready.put("plugins", plugins::loaded);
    ready.put("peer-discovery", () -> view.get().routing().ready());
    HealthHandler health = new HealthHandler(MvproxyVersion.VERSION, ready);
    IngressVerticle ingress = new IngressVerticle(serverOptions, authenticator, health, view, metrics,
        peerOptions == null ? null
            : v -> new PeerProxy(v.createHttpClient(peerOptions, TlsOptions.peerPool()), metrics),
        config.peersEnabled());
    return vertx.deployVerticle(ingress).compose(id -> {
      int port = ingress.actualPort();
      String address = advertise + ":" + port;
      PeerDiscoveryClient client = peerOptions == null ? null
          : new PeerDiscoveryClient(vertx.createHttpClient(peerOptions, TlsOptions.peerPool()));
      FleetObjects objects = new FleetObjects(config.serverId(), MvproxyVersion.VERSION,
          advertise + ":" + config.peerPort(port), plugins::plugins, view::get);
      NodeApiSource builtin = new NodeApiSource(objects::plugins, objects::nodes);
      java.util.function.Supplier<List<io.mvproxy.api.ApiSource>> sources = () -> {
        List<io.mvproxy.api.ApiSource> all = new java.util.ArrayList<>();
        all.add(builtin);
        all.addAll(plugins.sources());
        return all;
      };
      DiscoveryVerticle discovery = new DiscoveryVerticle(config.serverId(), address, sources, client, view,
          metrics);
      return vertx.deployVerticle(discovery).compose(d -> {
        MembershipVerticle membership = new MembershipVerticle(config.serverId(), advertise,
            config.peerPort(port), MvproxyVersion.VERSION, objects::pluginSummaries);
        return vertx.deployVerticle(membership);
      }).map(mid -> new Node(config, vertx, plugins, view, port, mid));
    });
  }

  private static String str(Path p) {
    return p == null ? null : p.toString();
  }

  /** @return the HTTPS port actually bound */
  public int port() {
    return port;
  }

  /** @return the node's configuration */
  public NodeConfig config() {
    return config;
  }

  /** @return the plugins and their states, now */
  public List<Plugin> plugins() {
    return plugins.plugins();
  }

  /** @return the current fleet view (routing and discovery) */
  public FleetView view() {
    return view.get();
  }

  /**
   * Leaves the fleet: removes this node's record first (peers stop routing here), waits for in-flight work up to
   * the grace period, then closes Vert.x (leaving the Hazelcast cluster).
   *
   * @return completes when stopped
   */
  public Future<Void> stop() {
    return vertx.undeploy(membershipDeployment).recover(e -> Future.succeededFuture())
        .compose(v -> vertx.close());
  }
}
