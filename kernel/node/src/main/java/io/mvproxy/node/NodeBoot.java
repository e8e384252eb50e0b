package io.mvproxy.node;

import io.mvproxy.api.ApiSource;
import io.mvproxy.authorization.NodeAuthorization;
import io.mvproxy.discovery.DiscoveryDocuments;
import io.mvproxy.node.cluster.HazelcastConfigFactory;
import io.mvproxy.node.config.ConfigException;
import io.mvproxy.node.config.ConfigKey;
import io.mvproxy.node.config.NodeConfig;
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
import io.mvproxy.node.plugin.PluginRegistry;
import io.mvproxy.node.plugin.PluginState;
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
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * A node's start-up wiring, everything assembled in one place: storage, the API source context, the built-in APIs,
 * the local API sources ({@link LocalSources}), then, in order, the ingress, discovery-aggregation, membership and
 * controller-manager verticles. Used once by {@link Node#start}; its result is the running {@link Node}.
 */
final class NodeBoot {
  /**
   * Longest wait for the local API sources' first discovery checks before the membership record is published, ms
   * (an aggregated backend's check times out after 5 s).
   */
  static final long SOURCES_READY_TIMEOUT_MS = 15_000;
  private static final Logger LOG = Logger.getLogger(Node.class.getName());

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
  LocalSources local;
  io.mvproxy.node.ingress.IngressGroup ingress;
  io.mvproxy.node.audit.AuditFilter audit;
  NodeStorage storage;
  final StartupStages stages;

  /**
   * @param config   the validated config
   * @param vertx    the clustered Vert.x, joined
   * @param mgr      its Hazelcast cluster manager
   * @param security the TLS and authentication material built from the config
   * @param stages   where each start-up stage's duration is recorded (the cluster join just ended)
   */
  NodeBoot(NodeConfig config, Vertx vertx, HazelcastClusterManager mgr, NodeSecurity security,
           StartupStages stages) {
    this.stages = stages;
    stages.mark("cluster join");
    this.balancerOptions = security.balancerOptions();
    this.serviceAccountTokens = security.serviceAccountTokens();
    this.config = config;
    this.vertx = vertx;
    this.mgr = mgr;
    this.serverOptions = security.serverOptions();
    this.authenticator = security.authenticator();
    this.peerOptions = security.peerOptions();
    this.authorization = new NodeAuthorization(config.authorizationModes());
    this.view = new FleetViewRef(new FleetView(RoutingSnapshot.EMPTY,
        DiscoveryDocuments.empty(config.serverId(), config.peerHost() + ":" + config.securePort()),
        OpenApiDocuments.empty(), Map.of()));
  }

  /**
   * Runs the start-up.
   *
   * @return the running node; fails with {@link ConfigException} on unusable storage TLS material, or with the
   *     first verticle that failed to deploy
   */
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
    if (config.encryptionAutoReload()) {
      startEncryptionReload();
    }
    ctx = new NodeSourceContext(vertx, storage, config.serverId(),
        config.serviceResolution(), config.proxyClientCertFile() == null ? null
        : TlsOptions.keyCert(NodeSecurity.str(config.proxyClientCertFile()), "--proxy-client-cert-file",
            NodeSecurity.str(config.proxyClientKeyFile()), "--proxy-client-key-file"), authorization,
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
    registerGauges();
    stages.mark("storage and built-in APIs");
    local = new LocalSources(ctx, builtin, plugins, view, config.serverId());
    return local.deploy(vertx, config.pluginDir(), privateDir)
        .onSuccess(pid -> stages.mark("stored CRDs, APIServices and plugins loaded"))
        .compose(pid -> deployIngress().onSuccess(v -> stages.mark("ingress listening"))
            .compose(v -> deployFleet(pid)));
  }

  /** @return the typed node services API sources may look up ({@link io.mvproxy.api.ApiSourceContext#service}) */
  private Map<Class<?>, Object> services() {
    Map<Class<?>, Object> out = new java.util.HashMap<>();
    out.put(NodeAuthorization.class, authorization);
    out.put(Authenticator.class, authenticator);
    out.put(io.mvproxy.api.BuiltinApiOptions.class, new io.mvproxy.api.BuiltinApiOptions(config.eventTtl()));
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
      // kube-apiserver's encryption health check; without automatic reload false while the file would not start a
      // node again; with it, as upstream's dynamic check (KMS plugins only, none here), a bad file is a counted
      // reload failure, not unreadiness (one typo in the shared file would take every node out of the balancer)
      ready.put("kms-providers", config.encryptionAutoReload() ? () -> true
          : new io.mvproxy.storage.encryption.EncryptionConfigCheck(config.storage().encryptionFile()));
    }
    HealthHandler health = new HealthHandler(MvproxyVersion.VERSION, live, ready);
    audit = auditFilter(vertx, config.audit(), metrics);
    io.mvproxy.node.ingress.MaxInFlight inFlight = new io.mvproxy.node.ingress.MaxInFlight(
        config.serving().maxRequestsInflight(), config.serving().maxMutatingInflight());
    java.util.concurrent.atomic.AtomicReference<io.mvproxy.security.serviceaccount.OpenIdMetadata> openId =
        new java.util.concurrent.atomic.AtomicReference<>();
    if (config.securePort() != 0) {
      openId.set(openIdMetadata(config.securePort()));
    }
    return io.mvproxy.node.ingress.IngressGroup.deploy(vertx, config.serving().ingressInstances(), serverOptions,
        options -> new IngressVerticle(options, authenticator, health, view, metrics,
            peerOptions == null ? null : v -> PeerProxy.create(v, config.serving().peerHttp2()
                ? TlsOptions.offerHttp2(new HttpClientOptions(peerOptions)) : peerOptions, metrics, view),
            config.peersEnabled(), lifecycle, authorization, config.serving(), inFlight, audit, openId::get))
        .map(g -> {
          ingress = g;
          if (config.securePort() == 0) {
            openId.set(openIdMetadata(g.actualPort()));  // any free port: known once bound
          }
          return "ingress x" + g.size();
        });
  }

  /**
   * The service account issuer discovery documents ({@code NewOpenIDMetadataProvider}: the first
   * {@code --service-account-issuer}, {@code --service-account-jwks-uri} or
   * {@code https://<advertise address>:<port>/openid/v1/jwks}, the verification keys).
   *
   * @param port the HTTPS port clients reach this node at
   * @return the documents, or null without service account tokens or when they cannot be built (an issuer that is
   *     not an https URL: logged, and neither path is served, as kube-apiserver does)
   */
  private io.mvproxy.security.serviceaccount.OpenIdMetadata openIdMetadata(int port) {
    if (serviceAccountTokens == null) {
      return null;
    }
    String host = config.advertiseAddress();
    String address = (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    try {
      return serviceAccountTokens.openIdMetadata(config.serviceAccounts().jwksUri(), address);
    } catch (IllegalArgumentException e) {
      java.util.logging.Logger.getLogger(NodeBoot.class.getName()).warning("service account issuer discovery is not "
          + "served (" + ConfigKey.SERVICE_ACCOUNT_ISSUER.flag() + "): " + e.getMessage());
      return null;
    }
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
    NodeApiSource nodeApi = new NodeApiSource(objects::plugins, objects::nodes);
    List<ApiSource> builtinApis = builtin.sources();
    Supplier<List<ApiSource>> sources = () -> local.published(nodeApi, builtinApis);
    Supplier<List<ApiSource>> serving = () -> local.serving(nodeApi, builtinApis);
    DiscoveryVerticle discovery = new DiscoveryVerticle(config.serverId(), advertise + ":" + port, sources,
        serving, client, openApiClient, view, metrics,
        config.clusterMembers().stream().map(HazelcastConfigFactory::resolved).toList(), selfClusterAddress(),
        config.memberWait());
    MembershipVerticle membership = new MembershipVerticle(config.serverId(), advertise, config.peerPort(port),
        MvproxyVersion.VERSION, objects::pluginSummaries, () -> view.get().discovery().localEtag());
    String host = "0.0.0.0".equals(config.bindAddress()) || "::".equals(config.bindAddress()) ? "127.0.0.1"
        : config.bindAddress();
    java.util.concurrent.atomic.AtomicReference<List<io.mvproxy.node.membership.PeerInfo>> members =
        new java.util.concurrent.atomic.AtomicReference<>(List.of());
    vertx.eventBus().<io.mvproxy.node.membership.MembershipSnapshot>localConsumer(
        io.mvproxy.api.Addresses.MEMBERSHIP_CHANGED, m -> members.set(m.body().peers()));
    ControllerVerticle controllers = new ControllerVerticle(config.serverId(), NodeSecurity.str(config.tlsCertFile()),
        host, port, Node.CONTROLLERS, metrics.registry(), config.peerProxyEnabled(), config.controllers(),
        balancerOptions, members::get, config.identityLease(),
        config.peerProxyEnabled() ? advertise + ":" + config.peerPort(port) : null);
    return vertx.deployVerticle(discovery).compose(d -> sourcesReady(sources.get()))
        .onSuccess(v -> stages.mark("discovery and sources ready"))
        .compose(v -> vertx.deployVerticle(membership))
        .onSuccess(v -> stages.mark("membership record published"))
        .compose(mid -> vertx.deployVerticle(controllers).onSuccess(v -> stages.mark("controllers"))
            .map(cid -> new Node(this, new NodeShutdown.Deployments(pluginDeployment, mid, cid))));
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

  /**
   * {@code --encryption-provider-config-automatic-reload}: checks the file every
   * {@link io.mvproxy.storage.encryption.EncryptionConfigReloader#POLL_PERIOD_MS} on a worker thread, counting the
   * outcomes as kube-apiserver's {@code apiserver_encryption_config_controller_automatic_reloads_total{status}}.
   */
  private void startEncryptionReload() {
    io.mvproxy.storage.encryption.EncryptionConfigReloader reloader =
        new io.mvproxy.storage.encryption.EncryptionConfigReloader(config.storage().encryptionFile(),
            config.storage().encryption(), storage::reloadEncryption);
    String idHash = "sha256:" + java.util.HexFormat.of().formatHex(sha256(config.serverId()));
    io.micrometer.core.instrument.FunctionCounter.builder("apiserver_encryption_config_controller_automatic_reloads",
            reloader, r -> r.successes()).description("Total number of reload successes and failures of encryption "
            + "configuration split by apiserver identity.").tag("status", "success").tag("apiserver_id_hash", idHash)
        .register(metrics.registry());
    io.micrometer.core.instrument.FunctionCounter.builder("apiserver_encryption_config_controller_automatic_reloads",
            reloader, r -> r.failures()).description("Total number of reload successes and failures of encryption "
            + "configuration split by apiserver identity.").tag("status", "failure").tag("apiserver_id_hash", idHash)
        .register(metrics.registry());
    vertx.setPeriodic(io.mvproxy.storage.encryption.EncryptionConfigReloader.POLL_PERIOD_MS,
        t -> vertx.executeBlocking(reloader::check, false));
  }

  private static byte[] sha256(String s) {
    try {
      return java.security.MessageDigest.getInstance("SHA-256").digest(s.getBytes(
          java.nio.charset.StandardCharsets.UTF_8));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
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
