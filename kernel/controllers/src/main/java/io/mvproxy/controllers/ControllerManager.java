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
   * What runs and its timings (kube-controller-manager's {@code --controllers}, {@code --leader-elect*}).
   *
   * @param election      leader election lock and timings
   * @param namespacePoll how often the namespace controller looks at its terminating namespaces (they come from a
   *                      watch)
   * @param gcPeriod      time between garbage collector sweeps
   * @param proxy         UnknownVersionInteroperabilityProxy: false applies upstream's garbage collector rule (any
   *                      404 for an owner makes it absent, {@link GarbageCollector})
   * @param controllers   the enabled controllers ({@link ControllerSelection} names)
   * @param leaderElect   true: run the controllers only while holding the Lease; false: always, on this node
   */
  public record Settings(LeaderElector.Config election, Duration namespacePoll, Duration gcPeriod, boolean proxy,
                         java.util.Set<String> controllers, boolean leaderElect) {
    /** Copies the set. */
    public Settings {
      controllers = java.util.Set.copyOf(controllers);
    }

    /**
     * kube-controller-manager's election timings, a 1 s namespace poll and a 2 s GC sweep, every controller.
     *
     * @param identity the server ID
     * @return the settings
     */
    public static Settings defaults(String identity) {
      return new Settings(LeaderElector.Config.kubeControllerManager(LEASE_NAMESPACE, LEASE_NAME, identity),
          Duration.ofSeconds(1), Duration.ofSeconds(2), true, new java.util.LinkedHashSet<>(ControllerSelection.ALL),
          true);
    }

    /** @param on the feature gate @return these settings with it */
    public Settings withProxy(boolean on) {
      return new Settings(election, namespacePoll, gcPeriod, on, controllers, leaderElect);
    }

    /**
     * @param enabled       the enabled controllers
     * @param elect         {@code --leader-elect}
     * @param leaseDuration {@code --leader-elect-lease-duration}
     * @param renewDeadline {@code --leader-elect-renew-deadline}
     * @param retryPeriod   {@code --leader-elect-retry-period}
     * @return these settings with them
     */
    public Settings with(java.util.Set<String> enabled, boolean elect, Duration leaseDuration, Duration renewDeadline,
                         Duration retryPeriod) {
      return new Settings(new LeaderElector.Config(election.namespace(), election.name(), election.identity(),
          leaseDuration, renewDeadline, retryPeriod), namespacePoll, gcPeriod, proxy, enabled, elect);
    }
  }

  private final LeaderElector elector;
  private final Settings settings;
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
    this.settings = settings;
    this.namespaces = new NamespaceController(vertx, clients.namespaceController(),
        new FleetDiscovery(clients.namespaceController()), settings.namespacePoll());
    this.gc = new GarbageCollector(vertx, clients.garbageCollector(), new FleetDiscovery(clients.garbageCollector()),
        settings.gcPeriod(), observer, !settings.proxy());
    this.serviceAccounts = new ServiceAccountController(vertx, clients.leaderElection(),
        clients.serviceAccountController(),
        settings.namespacePoll());
    this.elector = new LeaderElector(vertx, clients.leaderElection(), settings.election(),
        new LeaderElector.Callbacks() {
          @Override
          public void startedLeading() {
            LOG.info("controller manager leading: starting the enabled controllers " + settings.controllers());
            startControllers();
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

  /**
   * Starts campaigning (call on the node's context); with {@code leaderElect} false starts the controllers at once,
   * with no controller enabled does nothing.
   */
  public void start() {
    if (settings.controllers().isEmpty()) {
      LOG.info("controller manager: no controller enabled (--controllers)");
    } else if (settings.leaderElect()) {
      elector.start();
    } else {
      LOG.info("controller manager: leader election disabled (--leader-elect=false): controllers start now");
      startControllers();
    }
  }

  private void startControllers() {
    if (settings.controllers().contains(ControllerSelection.NAMESPACE)) {
      namespaces.start();
    }
    if (settings.controllers().contains(ControllerSelection.GARBAGE_COLLECTOR)) {
      gc.start();
    }
    if (settings.controllers().contains(ControllerSelection.SERVICE_ACCOUNT)) {
      serviceAccounts.start();
    }
  }

  /** @return true while this node leads (always with {@code leaderElect} false and a controller enabled) */
  public boolean leading() {
    return settings.leaderElect() ? elector.leading() : !settings.controllers().isEmpty();
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
