package io.mvproxy.node.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.instance.impl.HazelcastInstanceFactory;
import io.vertx.core.Completable;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.util.UUID;

/**
 * Vert.x's Hazelcast cluster manager over a member this node started itself, through {@link FleetNodeContext} (so
 * that every member connection passes the {@link FleetHandshake}): Vert.x leaves such a "custom" member running on
 * {@code leave}, so this manager shuts it down once Vert.x has left (as Vert.x does for a member it started).
 */
final class FleetClusterManager extends HazelcastClusterManager {
  /** Vert.x's member attribute naming the node (vertx-hazelcast {@code HazelcastClusterManager.NODE_ID_ATTRIBUTE}). */
  static final String NODE_ID_ATTRIBUTE = "__vertx.nodeId";

  private final HazelcastInstance member;

  private FleetClusterManager(HazelcastInstance member) {
    super(member);
    this.member = member;
  }

  /**
   * Starts the member (blocking: Hazelcast's join takes up to a few seconds; call off any event loop).
   *
   * @param config    the member config ({@link HazelcastConfigFactory#create(io.mvproxy.node.config.NodeConfig,
   *                  FleetHandshake)} with the handshake); changed here as vertx-hazelcast changes the config of
   *                  a member it starts (Vert.x node id attribute, no JVM shutdown hook)
   * @param handshake the interceptor of every member connection
   * @return the manager to give {@code Vertx.builder().withClusterManager}
   * @throws IllegalStateException (Hazelcast's "Node failed to start!") when the cluster refused the join
   */
  static FleetClusterManager start(Config config, FleetHandshake handshake) {
    config.setProperty("hazelcast.shutdownhook.enabled", "false");
    config.getMemberAttributeConfig().setAttribute(NODE_ID_ATTRIBUTE, UUID.randomUUID().toString());
    return new FleetClusterManager(HazelcastInstanceFactory.newHazelcastInstance(config, config.getInstanceName(),
        new FleetNodeContext(handshake)));
  }

  /** Shuts the member down (blocking), as a failed start-up must when Vert.x never took it over. */
  void shutdownMember() {
    if (member.getLifecycleService().isRunning()) {
      member.getLifecycleService().shutdown();
    }
  }

  /** Leaves as Vert.x does, then shuts the member down on a thread of its own (it migrates partitions: seconds). */
  @Override
  public void leave(Completable<Void> promise) {
    super.leave((v, err) -> {
      Thread t = new Thread(() -> {
        try {
          shutdownMember();
        } catch (RuntimeException e) {
          // the member is going away either way
        }
        promise.complete(v, err);
      }, "mvproxy-hazelcast-shutdown");
      t.setDaemon(true);
      t.start();
    });
  }
}
