package io.mvproxy.node.controllers;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.mvproxy.controllers.ApiClient;
import io.mvproxy.controllers.ControllerManager;
import io.mvproxy.controllers.IdentityLeaseController;
import io.mvproxy.controllers.IdentityLeaseGc;
import io.mvproxy.api.UserInfo;
import io.mvproxy.node.membership.PeerInfo;
import io.mvproxy.security.FrontProxyHeaders;
import io.mvproxy.security.TlsOptions;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.ext.web.client.WebClient;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * Runs the node's {@link ControllerManager} on its own Vert.x context: started after the ingress listens (its
 * clients call the node's own HTTPS port), stopped first on shutdown so a held Lease is released while the node
 * still serves. Exposes {@code leader_election_master_status{name="mvproxy-controller-manager"}} (1 while leading),
 * as client-go's leader election metrics.
 *
 * <p>With {@code UnknownVersionInteroperabilityProxy} off the controllers run as upstream's kube-controller-manager
 * in front of an HA control plane without the proxy: behind a load balancer (each request to a server of the fleet
 * chosen at random, this node or a member of its cluster; the other servers are verified with
 * {@code --peer-ca-file} and reached with the front-proxy client certificate, the controller's identity in
 * {@code X-Remote-*} headers) and with upstream's garbage collector rule (any 404 for an owner makes it absent).
 * Without {@code --peer-ca-file} they talk to this node only.
 *
 * <p>Besides the controller manager it runs, on every node and whatever {@code --controllers} says, what
 * kube-apiserver runs in its post-start hooks {@code start-kube-apiserver-identity-lease-controller} and
 * {@code start-kube-apiserver-identity-lease-garbage-collector}: this node's identity Lease
 * ({@link ApiserverIdentity}, {@link IdentityLeaseController}) and the collector of expired ones
 * ({@link IdentityLeaseGc}), both as {@code system:apiserver} on this node only.
 */
public final class ControllerVerticle extends VerticleBase {
  private final String serverId;
  private final String servingCert;
  private final String host;
  private final int port;
  private final ControllerIdentities identities;
  private final MeterRegistry registry;
  private final boolean proxy;
  private final io.mvproxy.node.config.NodeConfig.Controllers settings;
  private final HttpClientOptions peerOptions;
  private final Supplier<List<PeerInfo>> members;
  private final io.mvproxy.node.config.NodeConfig.IdentityLease identityLease;
  private final String peerAddress;
  private ControllerManager manager;
  private WebClient peerClient;
  private IdentityLeaseController leaseController;
  private IdentityLeaseGc leaseGc;

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
    this(serverId, servingCert, host, port, identities, registry, true, null, null, List::of,
        new io.mvproxy.node.config.NodeConfig.IdentityLease(3600, 10), null);
  }

  /**
   * @param serverId    the holder identity
   * @param servingCert the node's serving certificate file (pinned by the clients)
   * @param host        address of the node's HTTPS server
   * @param port        its port
   * @param identities  the controller identities' tokens (accepted by the node's authenticator)
   * @param registry    the node's metrics registry
   * @param proxy       {@code UnknownVersionInteroperabilityProxy}
   * @param settings    {@code --controllers}, {@code --leader-elect*} (null: kube-controller-manager's defaults)
   * @param peerOptions with the gate off: TLS options reaching the other servers (peer CA, front-proxy client
   *                    certificate), or null to talk to this node only
   * @param members     the fleet's live members (this node's record may be among them)
   * @param identityLease {@code --identity-lease-duration-seconds}, {@code --identity-lease-renew-interval-seconds}
   * @param peerAddress {@code ip:port} peers proxy to (the identity Lease's annotation), or null without the proxy
   */
  public ControllerVerticle(String serverId, String servingCert, String host, int port,
                            ControllerIdentities identities, MeterRegistry registry, boolean proxy,
                            io.mvproxy.node.config.NodeConfig.Controllers settings, HttpClientOptions peerOptions,
                            Supplier<List<PeerInfo>> members,
                            io.mvproxy.node.config.NodeConfig.IdentityLease identityLease, String peerAddress) {
    this.identityLease = identityLease;
    this.peerAddress = peerAddress;
    this.proxy = proxy;
    this.settings = settings;
    this.peerOptions = proxy ? null : peerOptions;
    this.members = members;
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
    ApiClient namespaces = new ApiClient(election, identities.namespaceToken(),
        "kube-controller-manager/mvproxy namespace-controller");
    ApiClient gc = new ApiClient(election, identities.garbageCollectorToken(),
        "kube-controller-manager/mvproxy generic-garbage-collector");
    ApiClient serviceAccounts = new ApiClient(election, identities.serviceAccountToken(),
        "kube-controller-manager/mvproxy service-account-controller");
    if (peerOptions != null) {
      peerClient = WebClient.wrap(vertx.createHttpClient(peerOptions, TlsOptions.peerPool()));
      ApiClient.ServerPicker picker = this::pick;
      java.util.Map<String, UserInfo> users = identities.tokens();
      election = election.spread(peerClient, picker, headers(users.get(identities.leaderElectionToken())));
      namespaces = namespaces.spread(peerClient, picker, headers(users.get(identities.namespaceToken())));
      gc = gc.spread(peerClient, picker, headers(users.get(identities.garbageCollectorToken())));
      serviceAccounts = serviceAccounts.spread(peerClient, picker,
          headers(users.get(identities.serviceAccountToken())));
    }
    ControllerManager.Clients clients = new ControllerManager.Clients(election, namespaces, gc, serviceAccounts);
    ControllerManager.Settings s = ControllerManager.Settings.defaults(serverId).withProxy(proxy);
    if (settings != null) {
      s = s.with(settings.enabled(), settings.leaderElect(), settings.leaseDuration(), settings.renewDeadline(),
          settings.retryPeriod());
    }
    manager = new ControllerManager(vertx, clients, s, new ControllerMetrics(registry));
    Gauge.builder("leader_election_master_status", () -> manager.leading() ? 1 : 0)
        .description("Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 "
            + "indicates master. 'name' is the string used to identify the lease.")
        .tag("name", ControllerManager.LEASE_NAME).register(registry);
    manager.start();
    startIdentityLease(election);
    return Future.succeededFuture();
  }

  /** The identity Lease and its garbage collector, as {@code system:apiserver} on this node. */
  private void startIdentityLease(ApiClient pool) {
    ApiClient loopback = new ApiClient(pool, identities.apiserverToken(), "kube-apiserver/mvproxy identity-lease");
    java.util.Map<String, String> labels = java.util.Map.of(ApiserverIdentity.IDENTITY_LABEL,
        ApiserverIdentity.KUBE_APISERVER, ApiserverIdentity.HOSTNAME_LABEL, ApiserverIdentity.hostname());
    java.util.Map<String, String> annotations = peerAddress == null ? java.util.Map.of()
        : java.util.Map.of(ApiserverIdentity.PEER_ADVERTISE_ADDRESS, peerAddress);
    leaseController = new IdentityLeaseController(vertx, loopback, new IdentityLeaseController.Config(
        ApiserverIdentity.NAMESPACE, ApiserverIdentity.leaseName(serverId), serverId, identityLease.durationSeconds(),
        java.time.Duration.ofSeconds(identityLease.renewIntervalSeconds()), labels, annotations));
    leaseGc = new IdentityLeaseGc(vertx, loopback, java.time.Duration.ofSeconds(identityLease.durationSeconds()),
        ApiserverIdentity.NAMESPACE, ApiserverIdentity.IDENTITY_LABEL + "=" + ApiserverIdentity.KUBE_APISERVER);
    leaseController.start();
    leaseGc.start();
  }

  /** The load balancer: a server of the fleet at random, null (this node) for this node's own record. */
  private String pick() {
    List<PeerInfo> all = members.get().stream().filter(p -> !p.serverId().equals(serverId)).toList();
    int i = ThreadLocalRandom.current().nextInt(all.size() + 1);
    if (i == all.size()) {
      return null;
    }
    return all.get(i).baseUrl();
  }

  private static MultiMap headers(UserInfo user) {
    MultiMap h = MultiMap.caseInsensitiveMultiMap();
    FrontProxyHeaders.write(user, h);
    return h;
  }

  /** @return the manager (after start) */
  public ControllerManager manager() {
    return manager;
  }

  @Override
  public Future<?> stop() {
    if (leaseController != null) {
      leaseController.stop();
      leaseGc.stop();
    }
    Future<?> f = manager == null ? Future.succeededFuture() : manager.stop();
    return f.onComplete(ar -> {
      if (peerClient != null) {
        peerClient.close();
      }
    });
  }
}
