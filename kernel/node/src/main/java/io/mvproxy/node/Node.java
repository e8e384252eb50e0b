package io.mvproxy.node;

import io.mvproxy.node.cluster.ClusterJoin;
import io.mvproxy.node.config.ConfigException;
import io.mvproxy.node.config.ConfigKey;
import io.mvproxy.node.config.NodeConfig;
import io.mvproxy.node.controllers.ControllerIdentities;
import io.mvproxy.node.fleet.FleetView;
import io.mvproxy.node.fleet.FleetViewRef;
import io.mvproxy.node.nodeapi.FleetObjects;
import io.mvproxy.node.plugin.Plugin;
import io.mvproxy.node.plugin.PluginRegistry;
import io.vertx.core.Future;
import io.vertx.core.VertxOptions;
import java.time.Duration;
import java.util.List;
import java.util.logging.Logger;

/**
 * One mvproxy node: joins the Hazelcast cluster (clustered Vert.x), then deploys, in order, the plugin, ingress,
 * discovery-aggregation, membership and controller-manager verticles ({@link NodeBoot}, the local sources in
 * {@link LocalSources}). {@link #start(NodeConfig)} fails fast on bad TLS material ({@link NodeSecurity});
 * {@link #stop()} leaves the fleet gracefully (readiness off, record withdrawn, requests drained, sources closed:
 * {@link NodeShutdown}).
 */
public final class Node {
  /** How long a starting node keeps trying to join a cluster that turns it away (e.g. FROZEN while merging). */
  static final Duration CLUSTER_JOIN_BUDGET = Duration.ofSeconds(60);
  private static final Logger LOG = Logger.getLogger(Node.class.getName());
  /** This process's controller identities (random tokens, accepted only by nodes of this process). */
  static final ControllerIdentities CONTROLLERS = ControllerIdentities.generate();

  private final NodeConfig config;
  private final PluginRegistry plugins;
  private final FleetViewRef view;
  private final int port;
  private final NodeShutdown shutdown;
  private final io.vertx.core.Vertx vertx;

  /**
   * @param b           the finished start-up
   * @param deployments the deployed verticles, undeployed on stop
   */
  Node(NodeBoot b, NodeShutdown.Deployments deployments) {
    this.config = b.config;
    this.plugins = b.plugins;
    this.view = b.view;
    this.port = b.ingress.actualPort();
    this.vertx = b.vertx;
    this.shutdown = new NodeShutdown(b.vertx, b.config, b.lifecycle, deployments, b.ingress, b.audit, b.storage);
  }

  /**
   * Starts a node.
   *
   * @param config validated configuration
   * @return the running node; fails with {@link ConfigException} naming the key when TLS/CA/token files are
   *     unusable, or with the cluster/listen error
   */
  public static Future<Node> start(NodeConfig config) {
    NodeSecurity security;
    try {
      security = NodeSecurity.from(config, CONTROLLERS);
    } catch (ConfigException e) {
      return Future.failedFuture(e);
    }
    NodeSecurity.warn(config);
    // every blocked-thread report carries its stack (Vert.x: only past 5 s), so a blocking call on an event loop
    // can be told from a starved machine (the fleet tests fail on the former)
    VertxOptions vo = new VertxOptions().setEventBusOptions(security.busOptions())
        .setPreferNativeTransport(config.serving().nativeTransport())
        .setWarningExceptionTime(VertxOptions.DEFAULT_MAX_EVENT_LOOP_EXECUTE_TIME)
        .setWarningExceptionTimeUnit(VertxOptions.DEFAULT_MAX_EVENT_LOOP_EXECUTE_TIME_UNIT);
    long t0 = System.nanoTime();
    StartupStages stages = new StartupStages();
    // the TLS stack's first use costs a second or more of a cold JVM's CPU: paid meanwhile, while the member joins
    TlsWarmUp.start(config.tlsCertFile(), config.tlsPrivateKeyFile(),
        config.peerCaFile() != null ? config.peerCaFile() : config.clientCaFile());
    return ClusterJoin.join(config, vo, CLUSTER_JOIN_BUDGET, e -> { })
        .compose(j -> new NodeBoot(config, j.vertx(), j.manager(), security, stages).run()
            .onFailure(e -> j.vertx().close()))
        .recover(e -> Future.failedFuture(e instanceof java.net.BindException
            || String.valueOf(e.getMessage()).contains("Address already in use")
            || String.valueOf(e.getMessage()).contains("Cannot assign requested address")
            ? new ConfigException(ConfigKey.SECURE_PORT, "cannot listen on " + config.bindAddress() + ":"
                + config.securePort() + " (" + ConfigKey.BIND_ADDRESS.flag() + "): " + e.getMessage())
            : e))
        .onSuccess(n -> n.logSummary((System.nanoTime() - t0) / 1_000_000, stages));
  }

  private void logSummary(long startMs, StartupStages stages) {
    List<String> ps = plugins.plugins().stream().map(FleetObjects::summary).toList();
    LOG.info(String.format("mvproxy %s node %s started in %d ms: https://%s:%d (peer address %s:%d), cluster %s on "
            + "%s:%d, peers %s, plugins %s, peer proxy %s", MvproxyVersion.VERSION, config.serverId(), startMs,
        config.bindAddress(), port, config.peerHost(), config.peerPort(port), config.clusterName(),
        config.clusterHost(), config.clusterPort(), view.get().members().keySet(), ps,
        config.peersEnabled() ? "on" : "off (" + (config.peerProxyEnabled() ? "no --peer-ca-file" : "gate off") + ")"));
    LOG.info("start-up stages of node " + config.serverId() + ": " + stages.summary());
    if (config.serving().nativeTransport()) {
      Throwable why = vertx.isNativeTransportEnabled() ? null : vertx.unavailableNativeTransportCause();
      LOG.info(why == null ? "transport: native epoll (" + ConfigKey.NATIVE_TRANSPORT.flag() + "=true)"
          : "transport: Java NIO, the native transport did not load (" + ConfigKey.NATIVE_TRANSPORT.flag()
          + "=true): " + why);
    }
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
   * routing here); after {@link NodeShutdown#SHUTDOWN_DELAY_MS} the server stops accepting connections and requests
   * in flight get up to the grace period to finish; then the API sources close (ending watches, whose clients reconnect
   * elsewhere) and Vert.x closes, leaving the Hazelcast cluster.
   *
   * @return completes when stopped
   */
  public Future<Void> stop() {
    return shutdown.run();
  }
}
