package io.mvproxy.node.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.DiscoveryStrategyConfig;
import com.hazelcast.config.JoinConfig;
import io.mvproxy.node.config.NodeConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.MultiMapConfig;
import java.util.List;

/**
 * Builds the embedded Hazelcast member configuration of a node: join to the {@code --cluster-members} that answer
 * ({@link ResponsiveMembersDiscovery}, in place of Hazelcast's TCP-IP joiner), no
 * multicast, no auto-detection, no phone-home, bound to {@code --cluster-host} only, and fast failure detection
 * (stack-notes.md "Hazelcast on loopback"); with the {@code memory} storage backend, the storage structures'
 * split-brain protection and merge policy ({@link io.mvproxy.storage.MemoryClusterConfig}); with
 * {@code --cluster-secret-file}, the socket interceptor that refuses strangers ({@link FleetHandshake}; the member
 * must then be started through {@link FleetNodeContext}, as {@link ClusterJoin} does).
 */
public final class HazelcastConfigFactory {
  /** Heartbeat interval, seconds: 1 s so a frozen member is suspected quickly. */
  static final String HEARTBEAT_SECONDS = "1";
  /** A member silent this long (seconds) is removed: 5 s (Hazelcast default 60 s). A killed one goes in ~0.35 s. */
  static final String MAX_NO_HEARTBEAT_SECONDS = "5";
  /**
   * {@code hazelcast.wait.seconds.before.join}: on a joining member, how long (seconds) its discovery is asked again
   * while no other member answers (Hazelcast's {@code DiscoveryJoiner}; 0 would skip discovery altogether, so 1 is
   * the least), so a lone node waits 1 s, not Hazelcast's 5 s, for members that are not there. On the master the same
   * property would hold every join request back for this long to batch joiners ({@code ClusterJoinManager}): see
   * {@link #MAX_WAIT_BEFORE_JOIN_SECONDS}.
   */
  static final String WAIT_BEFORE_JOIN_SECONDS = "1";
  /**
   * {@code hazelcast.max.wait.seconds.before.join}: the longest the master batches join requests, seconds, counted
   * from the first request of a batch. 0: a join request starts the join at once (a restarted node's member joined
   * 1-2 s later with 2, one or two of the joiner's 1 s join-request rounds), except within
   * {@link #WAIT_BEFORE_JOIN_SECONDS} of a member's removal, when the master still batches until then.
   */
  static final String MAX_WAIT_BEFORE_JOIN_SECONDS = "0";

  private HazelcastConfigFactory() {
  }

  /**
   * @param config the node config ({@code --cluster-secret-file}, {@code --cluster-members}, {@code --cluster-host})
   * @return the handshake every member connection must pass, or null when no cluster secret is configured
   * @throws IllegalArgumentException when the secret file cannot be read or is too short
   */
  public static FleetHandshake handshake(NodeConfig config) {
    if (config.clusterSecretFile() == null) {
      return null;
    }
    List<String> members = config.clusterMembers().isEmpty() ? List.of(config.clusterHost()) : config.clusterMembers();
    return new FleetHandshake(ClusterSecret.read(config.clusterSecretFile()),
        new MemberAllowlist(members, config.clusterHost()));
  }

  /**
   * @param config    the node config (cluster name, host, port, members)
   * @param handshake {@link #handshake}: non-null turns the socket interceptor on (every accepted and opened member
   *                  connection passes it; the member must be created with a {@link FleetNodeContext})
   * @return a Hazelcast config
   */
  static Config create(NodeConfig config, FleetHandshake handshake) {
    Config hz = vertxBase();
    hz.setClusterName(config.clusterName());
    hz.setProperty("hazelcast.phone.home.enabled", "false");
    hz.setProperty("hazelcast.socket.bind.any", "false");
    hz.setProperty("hazelcast.logging.type", "jdk");
    hz.setProperty("hazelcast.heartbeat.interval.seconds", HEARTBEAT_SECONDS);
    hz.setProperty("hazelcast.max.no.heartbeat.seconds", MAX_NO_HEARTBEAT_SECONDS);
    hz.setProperty("hazelcast.wait.seconds.before.join", WAIT_BEFORE_JOIN_SECONDS);
    hz.setProperty("hazelcast.max.wait.seconds.before.join", MAX_WAIT_BEFORE_JOIN_SECONDS);
    hz.setProperty("hazelcast.tcp.join.port.try.count", "10");
    hz.setProperty("hazelcast.merge.first.run.delay.seconds", "5");
    hz.setProperty("hazelcast.merge.next.run.delay.seconds", "5");
    hz.getNetworkConfig().setPort(config.clusterPort()).setPortAutoIncrement(true).setPortCount(100);
    hz.getNetworkConfig().getInterfaces().setEnabled(true).clear().addInterface(config.clusterHost());
    hz.getNetworkConfig().setPublicAddress(null);
    JoinConfig join = hz.getNetworkConfig().getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(false);
    // join and merge only with members that answer (a frozen one made Hazelcast's IO spin): ResponsiveMembersDiscovery
    hz.setProperty("hazelcast.discovery.enabled", "true");
    List<String> members = config.clusterMembers().isEmpty() ? List.of(config.clusterHost())
        : config.clusterMembers().stream().map(HazelcastConfigFactory::resolved).toList();
    join.getDiscoveryConfig().getDiscoveryStrategyConfigs().clear();
    join.getDiscoveryConfig().addDiscoveryStrategyConfig(
        new DiscoveryStrategyConfig(new ResponsiveMembersDiscovery(members, handshake, config.clusterHost())));
    if (handshake != null) {
      hz.getNetworkConfig().setSocketInterceptorConfig(
          new com.hazelcast.config.SocketInterceptorConfig().setEnabled(true).setImplementation(handshake));
    }
    if (io.mvproxy.storage.StorageConfig.MEMORY.equals(config.storage().backend())) {
      io.mvproxy.storage.MemoryClusterConfig.apply(hz, config.clusterMembers().size(), config.storage());
    }
    return hz;
  }

  /**
   * The structures vertx-hazelcast's {@code default-cluster.xml} configures (what {@code ConfigUtil.loadConfig()}
   * returns without a {@code cluster.xml}), built directly: parsing and validating that XML took about half a second
   * of a restarted node's start-up. Its network section (multicast join) is replaced by {@link #create} anyway.
   *
   * @return a new config with the {@code __vertx.subs} multimap (1 backup, set values) and the
   *     {@code __vertx.haInfo} and {@code __vertx.nodeInfo} maps (1 backup)
   */
  static Config vertxBase() {
    Config hz = new Config();
    hz.addMultiMapConfig(new MultiMapConfig("__vertx.subs").setBackupCount(1)
        .setValueCollectionType(MultiMapConfig.ValueCollectionType.SET));
    hz.addMapConfig(new MapConfig("__vertx.haInfo").setBackupCount(1));
    hz.addMapConfig(new MapConfig("__vertx.nodeInfo").setBackupCount(1));
    return hz;
  }

  /**
   * Resolves the host of a {@code host:port} member once, at start-up (with host names, as in a compose network,
   * Hazelcast's TCP-IP join was seen not to form one cluster); an unresolvable name is kept as given.
   *
   * @param member {@code host:port}
   * @return {@code ip:port}
   */
  public static String resolved(String member) {
    int c = member.lastIndexOf(':');
    String host = c > 0 ? member.substring(0, c) : member;
    try {
      return java.net.InetAddress.getByName(host).getHostAddress() + (c > 0 ? member.substring(c) : "");
    } catch (java.net.UnknownHostException e) {
      return member;
    }
  }
}
