package io.mvproxy.node;

import io.mvproxy.api.ApiSource;
import io.mvproxy.authorization.NodeAuthorization;
import io.mvproxy.discovery.DiscoveryDocuments;
import io.mvproxy.node.cluster.ClusterJoin;
import io.mvproxy.node.cluster.HazelcastConfigFactory;
import io.mvproxy.node.config.ConfigException;
import io.mvproxy.node.config.ConfigKey;
import io.mvproxy.node.config.NodeConfig;
import io.mvproxy.node.controllers.ControllerIdentities;
import io.mvproxy.node.controllers.ControllerVerticle;
import io.mvproxy.node.fleet.DiscoveryVerticle;
import io.mvproxy.node.fleet.FleetView;
import io.mvproxy.node.fleet.FleetViewRef;
import io.mvproxy.node.fleet.PeerDiscoveryClient;
import io.mvproxy.node.fleet.PeerOpenApiClient;
import io.mvproxy.node.ingress.HealthHandler;
import io.mvproxy.node.ingress.IngressVerticle;
import io.mvproxy.node.membership.MembershipVerticle;
import io.mvproxy.node.metrics.NodeMetrics;
import io.mvproxy.node.nodeapi.FleetObjects;
import io.mvproxy.node.nodeapi.NodeApiSource;
import io.mvproxy.node.plugin.Plugin;
import io.mvproxy.node.plugin.PluginLoader;
import io.mvproxy.node.plugin.PluginRegistry;
import io.mvproxy.node.plugin.PluginState;
import io.mvproxy.node.plugin.PluginVerticle;
import io.mvproxy.node.proxy.PeerProxy;
import io.mvproxy.node.routing.RoutingSnapshot;
import io.mvproxy.openapi.OpenApiDocuments;
import io.mvproxy.security.Authenticator;
import io.mvproxy.security.TlsOptions;
import io.mvproxy.security.serviceaccount.ServiceAccountTokens;
import io.mvproxy.storage.NodeStorage;
import io.mvproxy.storage.StorageConfig;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * One mvproxy node: joins the Hazelcast cluster (clustered Vert.x), then deploys, in order, the plugin, ingress,
 * discovery-aggregation, membership and controller-manager verticles. {@link #start(NodeConfig)} fails fast on bad TLS material;
 * {@link #stop()} leaves the fleet gracefully (readiness off, record withdrawn, requests drained, sources closed).
 */
public final class Node {
  /**
   * After the record is withdrawn, how long peers get to stop routing here before the server stops accepting, ms
   * (like kube-apiserver's --shutdown-delay-duration; membership changes propagate in well under a second).
   */
  static final long SHUTDOWN_DELAY_MS = 1000;
  /**
   * Longest wait for the local API sources' first discovery checks before the membership record is published, ms
   * (an aggregated backend's check times out after 5 s).
   */
  static final long SOURCES_READY_TIMEOUT_MS = 15_000;
  /** How long a starting node keeps trying to join a cluster that turns it away (e.g. FROZEN while merging). */
  static final Duration CLUSTER_JOIN_BUDGET = Duration.ofSeconds(60);
  private static final Logger LOG = Logger.getLogger(Node.class.getName());
  /** This process's controller identities (random tokens, accepted only by nodes of this process). */
  private static final ControllerIdentities CONTROLLERS = ControllerIdentities.generate();

  private final NodeConfig config;
  private final Vertx vertx;
  private final PluginRegistry plugins;
  private final FleetViewRef view;
  private final NodeLifecycle lifecycle;
  private final io.mvproxy.node.ingress.IngressGroup ingress;
  private final io.mvproxy.node.audit.AuditFilter audit;
  private final Deployments deployments;
  private final int port;
  private final NodeStorage storage;

  /** Deployment IDs of the verticles, undeployed in reverse order on stop. */
  private record Deployments(String plugins, String membership, String controllers) {
  }

  private Node(Boot b, Deployments deployments) {
    this.config = b.config;
    this.vertx = b.vertx;
    this.plugins = b.plugins;
    this.view = b.view;
    this.lifecycle = b.lifecycle;
    this.ingress = b.ingress;
    this.audit = b.audit;
    this.port = b.ingress.actualPort();
    this.deployments = deployments;
    this.storage = b.storage;
  }

  /**
   * The clustered event bus: mutual TLS with the node's serving key pair, accepting only certificates signed by
   * {@code --peer-ca-file} (or {@code --client-ca-file} on a node without peers, which signs the same serving
   * certificates in the fleet's PKI); unencrypted, with a warning, only when neither CA is set.
   *
   * @param config the node config
   * @return the event bus options
   * @throws IllegalArgumentException naming the flag when a file is unusable
   */
  static EventBusOptions eventBusOptions(NodeConfig config) {
    ConfigKey ca = config.peerCaFile() != null ? ConfigKey.PEER_CA_FILE
        : config.clientCaFile() != null ? ConfigKey.CLIENT_CA_FILE : null;
    if (ca == null) {
      LOG.warning("neither " + ConfigKey.PEER_CA_FILE.flag() + " nor " + ConfigKey.CLIENT_CA_FILE.flag()
          + " is set: the cluster event bus is NOT encrypted nor authenticated");
      return new EventBusOptions().setHost(config.clusterHost()).setPort(0);
    }
    return TlsOptions.eventBus(config.clusterHost(), str(config.tlsCertFile()), str(config.tlsPrivateKeyFile()),
        str(ca == ConfigKey.PEER_CA_FILE ? config.peerCaFile() : config.clientCaFile()), ca.flag());
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
    ServiceAccountTokens saTokens;
    HttpClientOptions peerOptions = null;
    EventBusOptions busOptions;
    HttpClientOptions balancerOptions = null;
    try {
      io.vertx.core.net.SSLEngineOptions tlsEngine = TlsOptions.engine(config.serving().tlsEngine());
      serverOptions = TlsOptions.serverEngine(TlsOptions.server(str(config.tlsCertFile()),
              str(config.tlsPrivateKeyFile()), str(config.clientCaFile()), str(config.requestheaderClientCaFile())),
          tlsEngine, true).setHost(config.bindAddress()).setPort(config.securePort());
      NodeConfig.ServiceAccounts sa = config.serviceAccounts();
      saTokens = ServiceAccountTokens.fromFlags(sa.issuers(), sa.signingKeyFile(),
          sa.keyFile() == null ? List.of() : List.of(sa.keyFile()), sa.apiAudiences(), sa.maxExpiration());
      authenticator = Authenticator.fromFlags(str(config.clientCaFile()), str(config.requestheaderClientCaFile()),
          config.requestheaderAllowedNames(), str(config.tokenAuthFile())).withTokens(CONTROLLERS.tokens())
          .withServiceAccounts(saTokens);
      if (config.peersEnabled()) {
        peerOptions = TlsOptions.peerClient(str(config.peerCaFile()), str(config.proxyClientCertFile()),
            str(config.proxyClientKeyFile()));
        peerOptions.setSslEngineOptions(tlsEngine.copy());
      }
      busOptions = eventBusOptions(config);
      if (config.controllers().serverCaFile() != null) {
        // gate off: the controller manager reaches the other servers as through a load balancer
        balancerOptions = TlsOptions.peerClient(str(config.controllers().serverCaFile()),
            str(config.proxyClientCertFile()), str(config.proxyClientKeyFile()));
        balancerOptions.setSslEngineOptions(tlsEngine.copy());
      }
    } catch (IllegalArgumentException e) {
      return Future.failedFuture(new ConfigException(e.getMessage()));
    }
    if ((config.peerAdvertiseIp() == null) != (config.peerAdvertisePort() == null)) {
      LOG.warning(ConfigKey.PEER_ADVERTISE_IP.flag() + " and " + ConfigKey.PEER_ADVERTISE_PORT.flag()
          + " are used only together (as in kube-apiserver); peers will use " + config.peerHost() + " and the secure port");
    }
    if (config.clusterSecretFile() == null) {
      LOG.warning("fleet security is off: " + ConfigKey.CLUSTER_SECRET_FILE.flag() + " is not set, so anything that "
          + "reaches the Hazelcast port " + config.clusterHost() + ":" + config.clusterPort() + " and knows the cluster "
          + "name joins the cluster" + (io.mvproxy.storage.StorageConfig.MEMORY.equals(config.storage().backend())
          ? " and reads and writes every object (--storage-backend=memory)" : "")
          + "; firewall it to the fleet's members (README \"Security of the fleet's links\")");
    }
    if (config.clientCaFile() == null && config.tokenAuthFile() == null) {
      LOG.warning("neither " + ConfigKey.CLIENT_CA_FILE.flag() + " nor " + ConfigKey.TOKEN_AUTH_FILE.flag()
          + " is set: every request except health checks will get 401");
    }
    // every blocked-thread report carries its stack (Vert.x: only past 5 s), so a blocking call on an event loop
    // can be told from a starved machine (the fleet tests fail on the former)
    VertxOptions vo = new VertxOptions().setEventBusOptions(busOptions)
        .setWarningExceptionTime(VertxOptions.DEFAULT_MAX_EVENT_LOOP_EXECUTE_TIME)
        .setWarningExceptionTimeUnit(VertxOptions.DEFAULT_MAX_EVENT_LOOP_EXECUTE_TIME_UNIT);
    HttpClientOptions peerClientOptions = peerOptions;
    HttpClientOptions controllerClientOptions = balancerOptions;
    ServiceAccountTokens serviceAccountTokens = saTokens;
    long t0 = System.nanoTime();
    return ClusterJoin.join(config, vo, CLUSTER_JOIN_BUDGET, e -> { })
        .compose(j -> new Boot(config, j.vertx(), j.manager(), serverOptions, authenticator, peerClientOptions,
            controllerClientOptions, serviceAccountTokens).run()
            .onFailure(e -> j.vertx().close()))
        .recover(e -> Future.failedFuture(e instanceof java.net.BindException
            || String.valueOf(e.getMessage()).contains("Address already in use")
            || String.valueOf(e.getMessage()).contains("Cannot assign requested address")
            ? new ConfigException(ConfigKey.SECURE_PORT, "cannot listen on " + config.bindAddress() + ":"
                + config.securePort() + " (" + ConfigKey.BIND_ADDRESS.flag() + "): " + e.getMessage())
            : e))
        .onSuccess(n -> n.logSummary((System.nanoTime() - t0) / 1_000_000));
  }

  /** Everything assembled during start-up, in one place. */
  private static final class Boot {
    final NodeConfig config;
    final Vertx vertx;
    final HazelcastClusterManager mgr;
    final HttpServerOptions serverOptions;
    final Authenticator authenticator;
    final HttpClientOptions peerOptions;
    final HttpClientOptions balancerOptions;
    final ServiceAccountTokens serviceAccountTokens;
    final NodeMetrics metrics = new NodeMetrics();
    final PluginRegistry plugins = new PluginRegistry();
    final NodeLifecycle lifecycle = new NodeLifecycle();
    final NodeAuthorization authorization;
    final FleetViewRef view;
    NodeSourceContext ctx;
    io.mvproxy.api.BuiltinApiSet builtin;
    /** CRDs created through the API, served like a plugin's (null when no CRD factory is on the class path). */
    io.mvproxy.node.plugin.ApiCrdVerticle apiCrds;
    /** APIServices created through the API, served like a plugin's (null when no APIService factory is present). */
    io.mvproxy.node.plugin.ApiServiceVerticle apiServices;
    io.mvproxy.node.ingress.IngressGroup ingress;
    io.mvproxy.node.audit.AuditFilter audit;
    NodeStorage storage;

    Boot(NodeConfig config, Vertx vertx, HazelcastClusterManager mgr, HttpServerOptions serverOptions,
         Authenticator authenticator, HttpClientOptions peerOptions, HttpClientOptions balancerOptions,
         ServiceAccountTokens serviceAccountTokens) {
      this.balancerOptions = balancerOptions;
      this.serviceAccountTokens = serviceAccountTokens;
      this.config = config;
      this.vertx = vertx;
      this.mgr = mgr;
      this.serverOptions = serverOptions;
      this.authenticator = authenticator;
      this.peerOptions = peerOptions;
      this.authorization = new NodeAuthorization(config.authorizationModes());
      this.view = new FleetViewRef(new FleetView(RoutingSnapshot.EMPTY,
          DiscoveryDocuments.empty(config.serverId(), config.peerHost() + ":" + config.securePort()),
          OpenApiDocuments.empty(), Map.of()));
    }

    Future<Node> run() {
      io.mvproxy.node.bus.LocalCodec.register(vertx.eventBus(), io.mvproxy.node.membership.MembershipSnapshot.class);
      Path privateDir = Path.of(System.getProperty("java.io.tmpdir"), "mvproxy-" + config.serverId() + "-"
          + ProcessHandle.current().pid(), "plugins");
      try {
        storage = NodeStorage.create(vertx, mgr.getHazelcastInstance(), config.storage());
        if (config.storage().encryption() != null) {
          LOG.info("encryption at rest (" + config.storage().encryptionFile() + "): "
              + config.storage().encryption().summary());
        }
      } catch (IllegalArgumentException e) {
        return Future.failedFuture(new ConfigException(ConfigKey.ETCD_CAFILE, e.getMessage()));
      }
      ctx = new NodeSourceContext(vertx, storage, config.serverId(),
          config.serviceResolution(), config.proxyClientCertFile() == null ? null
          : TlsOptions.keyCert(str(config.proxyClientCertFile()), "--proxy-client-cert-file",
              str(config.proxyClientKeyFile()), "--proxy-client-key-file"), authorization,
          authenticator::authenticateToken,
          new java.util.concurrent.atomic.AtomicReference<>(), services(),
          new java.util.concurrent.atomic.AtomicReference<>());
      try {
        builtin = java.util.ServiceLoader.load(io.mvproxy.api.BuiltinApiProvider.class, Node.class.getClassLoader())
            .findFirst().orElseThrow(() -> new IllegalStateException("no " + io.mvproxy.api.BuiltinApiProvider.class
                .getName() + " on the class path (the builtin-apis module belongs beside the node's jar)"))
            .create(ctx);
      } catch (RuntimeException e) {
        return Future.failedFuture(e);
      }
      ctx.namespaces().set(builtin.namespaces());
      ctx.admissionRef().set(builtin.admission());
      List<io.mvproxy.api.ApiSourceFactory> factories = PluginLoader.discoverFactories();
      io.mvproxy.api.ApiSourceFactory crdFactory = factories.stream()
          .filter(f -> f.supports("apiextensions.k8s.io/v1", "CustomResourceDefinition")).findFirst().orElse(null);
      if (crdFactory != null) {
        apiCrds = new io.mvproxy.node.plugin.ApiCrdVerticle(ctx, crdFactory, plugins, () -> view.get().routing(),
            builtin::sources);
      }
      io.mvproxy.api.ApiSourceFactory apiServiceFactory = factories.stream()
          .filter(f -> f.supports("apiregistration.k8s.io/v1", "APIService")).findFirst().orElse(null);
      if (apiServiceFactory != null) {
        apiServices = new io.mvproxy.node.plugin.ApiServiceVerticle(ctx, apiServiceFactory, plugins,
            () -> view.get().routing(), config.serverId());
      }
      view.pending(gvr -> {
        String why = apiCrds == null ? null : apiCrds.pending(gvr);
        return why != null || apiServices == null ? why : apiServices.pending(gvr);
      });
      PluginVerticle pluginVerticle = new PluginVerticle(config.pluginDir(),
          new PluginLoader(privateDir, factories), ctx, plugins,
          apiCrds == null ? name -> false : apiCrds::isApiCrd);
      registerGauges();
      // only once the first scan loaded every jar: its earlier empty publication would withdraw this node from every
      // stored CRD and add it back (rewriting each CRD, or deleting it when the whole fleet restarts at once)
      java.util.concurrent.atomic.AtomicBoolean scanned = new java.util.concurrent.atomic.AtomicBoolean();
      vertx.eventBus().localConsumer(io.mvproxy.api.Addresses.LOCAL_APIS_CHANGED, m -> {
        if (scanned.get()) {
          publishCrds();
        }
      });
      Future<String> crdsFirst = apiCrds == null ? Future.succeededFuture("") : vertx.deployVerticle(apiCrds);
      return crdsFirst.compose(c -> apiServices == null ? Future.succeededFuture("")
          : vertx.deployVerticle(apiServices)).compose(c -> vertx.deployVerticle(pluginVerticle)).onSuccess(id -> {
        scanned.set(true);
        publishCrds();
      }).compose(pid -> deployIngress().compose(v -> deployFleet(pid)));
    }

    /** Stores the CRDs and APIServices of this node's ACTIVE plugins as API objects (merged fleet-wide). */
    private void publishCrds() {
      List<io.vertx.core.json.JsonObject> defs = new ArrayList<>();
      plugins.sources().forEach(s -> {
        s.customResourceDefinition().ifPresent(defs::add);
        s.apiService().ifPresent(defs::add);
      });
      builtin.publishDefinitions(defs);
    }

    /** @return the typed node services API sources may look up ({@link io.mvproxy.api.ApiSourceContext#service}) */
    private Map<Class<?>, Object> services() {
      Map<Class<?>, Object> out = new java.util.HashMap<>();
      out.put(NodeAuthorization.class, authorization);
      out.put(Authenticator.class, authenticator);
      if (serviceAccountTokens != null) {
        out.put(io.mvproxy.security.serviceaccount.ServiceAccountTokens.class, serviceAccountTokens);
      }
      return out;
    }

    private Future<String> deployIngress() {
      Map<String, BooleanSupplier> ready = new LinkedHashMap<>();
      ready.put("cluster", mgr::isActive);
      ready.put("plugins", plugins::loaded);
      // a start-up check, like kube-apiserver's post-start hooks: once the fleet's API set was known, a peer that
      // restarts later must not take this node out of a load balancer (its GVRs get 503 per request meanwhile)
      ready.put("peer-discovery", HealthHandler.once(() -> view.get().routing().ready()));
      ready.put("shutdown", () -> !lifecycle.shuttingDown());
      ready.put("builtin-apis", () -> builtin.started().succeeded() && builtin.definitionsPublished().succeeded());
      Map<String, BooleanSupplier> live = new LinkedHashMap<>();
      if (StorageConfig.ETCD3.equals(storage.backend())) {
        ready.put("etcd", storage::healthy); // kube-apiserver's /readyz lists both, /livez only etcd
        ready.put("etcd-readiness", storage::ready);
        live.put("etcd", storage::healthy);
      }
      if (config.storage().encryptionFile() != null) {
        // kube-apiserver's encryption health check; false while the file would not start a node again
        ready.put("kms-providers", new io.mvproxy.storage.encryption.EncryptionConfigCheck(
            config.storage().encryptionFile()));
      }
      HealthHandler health = new HealthHandler(MvproxyVersion.VERSION, live, ready);
      audit = auditFilter(vertx, config.audit(), metrics);
      io.mvproxy.node.ingress.MaxInFlight inFlight = new io.mvproxy.node.ingress.MaxInFlight(
          config.serving().maxRequestsInflight(), config.serving().maxMutatingInflight());
      return io.mvproxy.node.ingress.IngressGroup.deploy(vertx, config.serving().ingressInstances(), serverOptions,
          options -> new IngressVerticle(options, authenticator, health, view, metrics,
              peerOptions == null ? null : v -> PeerProxy.create(v, config.serving().peerHttp2()
                  ? TlsOptions.offerHttp2(new HttpClientOptions(peerOptions)) : peerOptions, metrics, view),
              config.peersEnabled(), lifecycle, authorization, config.serving(), inFlight, audit))
          .map(g -> {
            ingress = g;
            return "ingress x" + g.size();
          });
    }

    private Future<Node> deployFleet(String pluginDeployment) {
      int port = ingress.actualPort();
      String advertise = config.peerHost();
      io.vertx.core.http.HttpClient peerHttp = peerOptions == null ? null
          : vertx.createHttpClient(peerOptions, TlsOptions.peerPool());
      PeerDiscoveryClient client = peerHttp == null ? null : new PeerDiscoveryClient(peerHttp);
      PeerOpenApiClient openApiClient = peerHttp == null ? null : new PeerOpenApiClient(peerHttp);
      FleetObjects objects = new FleetObjects(config.serverId(), MvproxyVersion.VERSION,
          advertise + ":" + config.peerPort(port), plugins::plugins, view::get);
      NodeApiSource builtin = new NodeApiSource(objects::plugins, objects::nodes);
      List<ApiSource> builtinApis = Boot.this.builtin.sources();
      Supplier<List<ApiSource>> sources = () -> {
        List<ApiSource> all = new ArrayList<>();
        all.add(builtin);
        all.addAll(builtinApis);
        all.addAll(plugins.sources());
        if (apiCrds != null) {
          all.addAll(apiCrds.sources());
        }
        if (apiServices != null) {
          all.addAll(apiServices.sources());
        }
        return all;
      };
      Supplier<List<ApiSource>> serving = () -> {
        List<ApiSource> all = new ArrayList<>();
        all.add(builtin);
        all.addAll(builtinApis);
        all.addAll(plugins.servingSources());
        if (apiCrds != null) {
          all.addAll(apiCrds.servingSources());
        }
        if (apiServices != null) {
          all.addAll(apiServices.servingSources());
        }
        return all;
      };
      DiscoveryVerticle discovery = new DiscoveryVerticle(config.serverId(), advertise + ":" + port, sources,
          serving, client, openApiClient, view, metrics, config.clusterMembers().stream().map(HazelcastConfigFactory::resolved).toList(),
          selfClusterAddress(), config.memberWait());
      MembershipVerticle membership = new MembershipVerticle(config.serverId(), advertise, config.peerPort(port),
          MvproxyVersion.VERSION, objects::pluginSummaries, () -> view.get().discovery().localEtag());
      String host = "0.0.0.0".equals(config.bindAddress()) || "::".equals(config.bindAddress()) ? "127.0.0.1"
          : config.bindAddress();
      java.util.concurrent.atomic.AtomicReference<List<io.mvproxy.node.membership.PeerInfo>> members =
          new java.util.concurrent.atomic.AtomicReference<>(List.of());
      vertx.eventBus().<io.mvproxy.node.membership.MembershipSnapshot>localConsumer(
          io.mvproxy.api.Addresses.MEMBERSHIP_CHANGED, m -> members.set(m.body().peers()));
      ControllerVerticle controllers = new ControllerVerticle(config.serverId(), str(config.tlsCertFile()), host, port,
          CONTROLLERS, metrics.registry(), config.peerProxyEnabled(), config.controllers(), balancerOptions, members::get,
          config.identityLease(), config.peerProxyEnabled() ? advertise + ":" + config.peerPort(port) : null);
      return vertx.deployVerticle(discovery).compose(d -> sourcesReady(sources.get()))
          .compose(v -> vertx.deployVerticle(membership))
          .compose(mid -> vertx.deployVerticle(controllers)
              .map(cid -> new Node(this, new Deployments(pluginDeployment, mid, cid))));
    }

    /** @return this member's Hazelcast {@code ip:port}, or "" when unknown */
    private String selfClusterAddress() {
      try {
        com.hazelcast.cluster.Address a = mgr.getHazelcastInstance().getCluster().getLocalMember().getAddress();
        return a.getHost() + ":" + a.getPort();
      } catch (RuntimeException e) {
        return "";
      }
    }

    /**
     * Waits until every local source knows its API set ({@link ApiSource#ready()}: aggregated backends' first
     * discovery check), at most {@link #SOURCES_READY_TIMEOUT_MS}, before the membership record is published.
     */
    private Future<Void> sourcesReady(List<ApiSource> all) {
      Promise<Void> p = Promise.promise();
      long timer = vertx.setTimer(SOURCES_READY_TIMEOUT_MS, t -> {
        if (p.tryComplete()) {
          LOG.warning("API sources not ready after " + SOURCES_READY_TIMEOUT_MS + " ms; publishing the record anyway");
        }
      });
      Future.join(all.stream().map(ApiSource::ready).toList()).onComplete(ar -> {
        vertx.cancelTimer(timer);
        p.tryComplete();
      });
      return p.future();
    }

    private void registerGauges() {
      metrics.gauge("mvproxy_peers", "Peers of this node by state", "state", "live",
          () -> view.get().routing().peers().size());
      metrics.gauge("mvproxy_peers", "Peers of this node by state", "state", "departed",
          () -> view.get().routing().departed().size());
      for (io.mvproxy.node.routing.Awaited.Kind k : io.mvproxy.node.routing.Awaited.Kind.values()) {
        metrics.gauge("mvproxy_fleet_awaited", "What this node waits for before it may answer 404, by kind", "kind",
            k.label(), () -> view.get().routing().awaiting().stream().filter(a -> a.kind() == k).count());
      }
      for (PluginState s : PluginState.values()) {
        metrics.gauge("mvproxy_plugins", "Plugins of this node by state", "state", s.name(),
            () -> plugins.plugins().stream().filter(p -> p.state() == s).count());
      }
    }
  }

  private void logSummary(long startMs) {
    List<String> ps = plugins.plugins().stream().map(FleetObjects::summary).toList();
    LOG.info(String.format("mvproxy %s node %s started in %d ms: https://%s:%d (peer address %s:%d), cluster %s on "
            + "%s:%d, peers %s, plugins %s, peer proxy %s", MvproxyVersion.VERSION, config.serverId(), startMs,
        config.bindAddress(), port, config.peerHost(), config.peerPort(port), config.clusterName(),
        config.clusterHost(), config.clusterPort(), view.get().members().keySet(), ps,
        config.peersEnabled() ? "on" : "off (" + (config.peerProxyEnabled() ? "no --peer-ca-file" : "gate off") + ")"));
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
   * Leaves the fleet gracefully: {@code /readyz} turns false and the membership record is withdrawn (peers stop
   * routing here); after {@link #SHUTDOWN_DELAY_MS} the server stops accepting connections and requests in flight
   * get up to the grace period to finish; then the API sources close (ending watches, whose clients reconnect
   * elsewhere) and Vert.x closes, leaving the Hazelcast cluster.
   *
   * @return completes when stopped
   */
  public Future<Void> stop() {
    if (!lifecycle.beginShutdown()) {
      return Future.succeededFuture();
    }
    Duration grace = config.shutdownGracePeriod();
    long t0 = System.nanoTime();
    LOG.info("shutting down: leaving the fleet, draining " + lifecycle.inFlight() + " request(s) for up to "
        + grace.toSeconds() + " s");
    return step("release the controller manager's lease", vertx.undeploy(deployments.controllers()), 3000)
        .compose(v -> step("leave the fleet", vertx.undeploy(deployments.membership()), 3000))
        .compose(v -> delay(Math.min(SHUTDOWN_DELAY_MS, grace.toMillis())))
        .compose(v -> {
          ingress.shutdown(grace).onFailure(e -> LOG.fine("server shutdown: " + e));
          return drained(System.currentTimeMillis() + grace.toMillis());
        })
        .compose(v -> {
          if (audit != null) {
            audit.close(); // the queued events are written (a few seconds at most)
          }
          return Future.<Void>succeededFuture();
        })
        .compose(v -> step("close API sources", vertx.undeploy(deployments.plugins()), 5000))
        .compose(v -> step("close storage", storage.close(), 5000))
        .compose(v -> step("leave the cluster", vertx.close(), 10_000))
        .onComplete(ar -> System.err.println("mvproxy: node " + config.serverId() + " stopped in "
            + (System.nanoTime() - t0) / 1_000_000 + " ms"));
  }

  /** Runs one shutdown step with a time limit; a failure or time-out is logged and shutdown goes on. */
  private Future<Void> step(String what, Future<?> f, long timeoutMs) {
    Promise<Void> p = Promise.promise();
    long timer = vertx.setTimer(timeoutMs, t -> {
      if (p.tryComplete()) {
        LOG.warning("shutdown step '" + what + "' did not finish within " + timeoutMs + " ms");
      }
    });
    f.onComplete(ar -> {
      vertx.cancelTimer(timer);
      if (ar.failed()) {
        LOG.warning("shutdown step '" + what + "' failed: " + ar.cause());
      }
      p.tryComplete();
    });
    return p.future();
  }

  private Future<Void> delay(long ms) {
    Promise<Void> p = Promise.promise();
    vertx.setTimer(Math.max(1, ms), t -> p.complete());
    return p.future();
  }

  private Future<Void> drained(long deadline) {
    if (lifecycle.inFlight() <= 0 || System.currentTimeMillis() >= deadline) {
      return Future.succeededFuture();
    }
    return delay(50).compose(v -> drained(deadline));
  }

  /**
   * The audit steps of the ingress, or null when auditing is off (no policy or no backend: a warning names what is
   * missing, as kube-apiserver records no event without both).
   *
   * @param vertx   the node's Vert.x (the webhook's HTTP client)
   * @param audit   the {@code --audit-*} settings
   * @param metrics the node's metrics (audit counters)
   * @return the filter, shared by every ingress instance, or null
   */
  static io.mvproxy.node.audit.AuditFilter auditFilter(Vertx vertx, NodeConfig.Audit audit, NodeMetrics metrics) {
    if (audit.policy() == null && audit.logPath() == null && audit.webhook() == null) {
      return null;
    }
    if (!audit.enabled()) {
      LOG.warning(audit.policy() == null ? "an audit backend is set without " + ConfigKey.AUDIT_POLICY_FILE.flag()
          + ": no audit events are written"
          : ConfigKey.AUDIT_POLICY_FILE.flag() + " is set without " + ConfigKey.AUDIT_LOG_PATH.flag() + " or "
          + ConfigKey.AUDIT_WEBHOOK_CONFIG_FILE.flag() + ": no audit backend, no audit events are written");
      return null;
    }
    List<io.mvproxy.node.audit.AuditSink> sinks = new java.util.ArrayList<>();
    if (audit.logPath() != null) {
      sinks.add(new io.mvproxy.node.audit.AuditLogBackend(audit.logPath(), audit.maxSizeMb(), audit.maxBackups(),
          audit.maxAgeDays(), audit.bufferSize(), metrics.registry()));
    }
    if (audit.webhook() != null) {
      NodeConfig.WebhookBatch b = audit.webhookBatch();
      sinks.add(new io.mvproxy.node.audit.AuditWebhookBackend(vertx, audit.webhook(), b.bufferSize(),
          b.maxBatchSize(), b.maxWait(), b.initialBackoff(), metrics.registry()));
    }
    LOG.info("audit: policy " + audit.policyFile() + " (" + audit.policy().rules().size() + " rules)"
        + (audit.logPath() == null ? "" : ", log " + audit.logPath())
        + (audit.webhook() == null ? "" : ", webhook " + audit.webhook().server()));
    return new io.mvproxy.node.audit.AuditFilter(audit.policy(), sinks, metrics.registry());
  }
}
