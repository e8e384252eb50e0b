package io.mvproxy.node.controllers;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.mvproxy.controllers.ApiClient;
import io.mvproxy.controllers.ControllerManager;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;

/**
 * Runs the node's {@link ControllerManager} on its own Vert.x context: started after the ingress listens (its
 * clients call the node's own HTTPS port), stopped first on shutdown so a held Lease is released while the node
 * still serves. Exposes {@code leader_election_master_status{name="mvproxy-controller-manager"}} (1 while leading),
 * as client-go's leader election metrics.
 */
public final class ControllerVerticle extends VerticleBase {
  private final String serverId;
  private final String servingCert;
  private final String host;
  private final int port;
  private final ControllerIdentities identities;
  private final MeterRegistry registry;
  private ControllerManager manager;

  /**
   * @param serverId    the holder identity
   * @param servingCert the node's serving certificate file (pinned by the clients)
   * @param host        address of the node's HTTPS server
   * @param port        its port
   * @param identities  the controller identities' tokens (accepted by the node's authenticator)
   * @param registry    the node's metrics registry
   */
  public ControllerVerticle(String serverId, String servingCert, String host, int port,
                            ControllerIdentities identities, MeterRegistry registry) {
    this.serverId = serverId;
    this.servingCert = servingCert;
    this.host = host;
    this.port = port;
    this.identities = identities;
    this.registry = registry;
  }

  @Override
  public Future<?> start() {
    ApiClient election = new ApiClient(vertx, servingCert, host, port, identities.leaderElectionToken(),
        "kube-controller-manager/mvproxy leader-election", 10_000);
    ControllerManager.Clients clients = new ControllerManager.Clients(election,
        new ApiClient(election, identities.namespaceToken(), "kube-controller-manager/mvproxy namespace-controller"),
        new ApiClient(election, identities.garbageCollectorToken(),
            "kube-controller-manager/mvproxy generic-garbage-collector"),
        new ApiClient(election, identities.serviceAccountToken(),
            "kube-controller-manager/mvproxy service-account-controller"));
    manager = new ControllerManager(vertx, clients, ControllerManager.Settings.defaults(serverId),
        new ControllerMetrics(registry));
    Gauge.builder("leader_election_master_status", () -> manager.leading() ? 1 : 0)
        .description("Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 "
            + "indicates master. 'name' is the string used to identify the lease.")
        .tag("name", ControllerManager.LEASE_NAME).register(registry);
    manager.start();
    return Future.succeededFuture();
  }

  /** @return the manager (after start) */
  public ControllerManager manager() {
    return manager;
  }

  @Override
  public Future<?> stop() {
    return manager == null ? Future.succeededFuture() : manager.stop();
  }
}
