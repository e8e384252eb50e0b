package io.mvproxy.controllers;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.logging.Logger;

/**
 * The controller manager of one node, as kube-controller-manager ({@code cmd/kube-controller-manager/app/
 * controllermanager.go}) with {@code --leader-elect} and {@code --use-service-account-credentials}: it campaigns for
 * the Lease {@code kube-system/mvproxy-controller-manager} as {@code system:kube-controller-manager} and, while it
 * leads, runs the namespace controller, the garbage collector and the service account controller, each with its own
 * service-account identity.
 * Every node runs one; one leads at a time.
 */
public final class ControllerManager {
  /** Namespace of the lock. */
  public static final String LEASE_NAMESPACE = "kube-system";
  /** Name of the lock (upstream's is {@code kube-controller-manager}). */
  public static final String LEASE_NAME = "mvproxy-controller-manager";
  private static final Logger LOG = Logger.getLogger(ControllerManager.class.getName());

  /** The clients of the four identities. */
  public record Clients(ApiClient leaderElection, ApiClient namespaceController, ApiClient garbageCollector,
                        ApiClient serviceAccountController) {
  }

  /**
   * Timings.
   *
   * @param election       leader election timings
   * @param namespacePoll  how often the namespace controller lists namespaces
   * @param gcPeriod       time between garbage collector sweeps
   */
  public record Settings(LeaderElector.Config election, Duration namespacePoll, Duration gcPeriod) {
    /**
     * kube-controller-manager's election timings, a 1 s namespace poll and a 2 s GC sweep.
     *
     * @param identity the server ID
     * @return the settings
     */
    public static Settings defaults(String identity) {
      return new Settings(LeaderElector.Config.kubeControllerManager(LEASE_NAMESPACE, LEASE_NAME, identity),
          Duration.ofSeconds(1), Duration.ofSeconds(2));
    }
  }

  private final LeaderElector elector;
  private final NamespaceController namespaces;
  private final GarbageCollector gc;
  private final ServiceAccountController serviceAccounts;
  private final Clients clients;
  private volatile String leader = "";

  /**
   * @param vertx    the node's Vert.x
   * @param clients  one client per identity
   * @param settings timings
   * @param observer garbage collector metrics
   */
  public ControllerManager(Vertx vertx, Clients clients, Settings settings, GcObserver observer) {
    this.clients = clients;
    this.namespaces = new NamespaceController(vertx, clients.namespaceController(),
        new FleetDiscovery(clients.namespaceController()), settings.namespacePoll());
    this.gc = new GarbageCollector(vertx, clients.garbageCollector(), new FleetDiscovery(clients.garbageCollector()),
        settings.gcPeriod(), observer);
    this.serviceAccounts = new ServiceAccountController(vertx, clients.leaderElection(),
        clients.serviceAccountController(),
        settings.namespacePoll());
    this.elector = new LeaderElector(vertx, clients.leaderElection(), settings.election(),
        new LeaderElector.Callbacks() {
          @Override
          public void startedLeading() {
            LOG.info("controller manager leading: starting the namespace controller, the garbage collector and the "
                + "service account controller");
            namespaces.start();
            gc.start();
            serviceAccounts.start();
          }

          @Override
          public void stoppedLeading() {
            LOG.info("controller manager no longer leading: controllers stopped");
            namespaces.stop();
            gc.stop();
            serviceAccounts.stop();
          }

          @Override
          public void newLeader(String holder) {
            leader = holder;
          }
        });
  }

  /** Starts campaigning (call on the node's context). */
  public void start() {
    elector.start();
  }

  /** @return true while this node leads */
  public boolean leading() {
    return elector.leading();
  }

  /** @return the holder last seen in the Lease ({@code ""} before the first read) */
  public String leader() {
    return leader;
  }

  /**
   * Stops the controllers and releases the Lease when held (SIGTERM), then closes the clients.
   *
   * @return completes when released (never fails)
   */
  public Future<Void> stop() {
    return elector.stop().onComplete(ar -> {
      namespaces.stop();
      gc.stop();
      serviceAccounts.stop();
      clients.leaderElection().close();
    });
  }
}
