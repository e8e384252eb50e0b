package io.mvproxy.node.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.DiscoveryStrategyConfig;
import com.hazelcast.config.JoinConfig;
import io.mvproxy.node.config.NodeConfig;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
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
  /** Join waits (seconds): a lone node must not wait 5-20 s for members that are not there. */
  static final String WAIT_BEFORE_JOIN_SECONDS = "1";
  static final String MAX_WAIT_BEFORE_JOIN_SECONDS = "2";

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
    Config hz = ConfigUtil.loadConfig();
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
