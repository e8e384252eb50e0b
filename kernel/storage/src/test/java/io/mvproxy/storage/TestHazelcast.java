package io.mvproxy.storage;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import java.io.IOException;
import java.util.UUID;

/** Shared through the test-jar: Hazelcast members on loopback only, one unique cluster per test (stack-notes.md "Hazelcast on loopback"). */
public final class TestHazelcast {
  private TestHazelcast() {
  }

  /** @return a unique cluster name */
  public static String clusterName() {
    return "storage-test-" + UUID.randomUUID();
  }

  /**
   * Free loopback ports below the kernel's ephemeral range ({@link io.mvproxy.testkit.TestPorts#belowEphemeral}): a
   * port the kernel handed out and that was closed again can be taken by any outgoing connection (Hazelcast members,
   * HTTP clients) before the member binds it ("Port [38689] is already in use", seen under load).
   *
   * @param n how many
   * @return n distinct ports
   */
  public static int[] freePorts(int n) {
    int[] out = new int[n];
    try {
      for (int i = 0; i < n; i++) {
        out[i] = io.mvproxy.testkit.TestPorts.belowEphemeral();
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return out;
  }

  /**
   * Sets a config up as {@link #start} does: loopback only, TCP-IP join to {@code ports}, fast join.
   *
   * @param c       the config to change (e.g. vertx-hazelcast's {@code ConfigUtil.loadConfig()})
   * @param cluster cluster name
   * @param port    this member's port
   * @param ports   all members' ports
   * @return {@code c}
   */
  public static Config configure(Config c, String cluster, int port, int... ports) {
    java.util.logging.Logger.getLogger("com.hazelcast").setLevel(java.util.logging.Level.WARNING);
    c.setClusterName(cluster);
    c.setInstanceName(cluster + "-" + port);
    c.setProperty("hazelcast.phone.home.enabled", "false");
    c.setProperty("hazelcast.socket.bind.any", "false");
    c.setProperty("hazelcast.wait.seconds.before.join", "0");
    c.setProperty("hazelcast.max.wait.seconds.before.join", "1");
    c.setProperty("hazelcast.logging.type", "jdk");
    c.setProperty("hazelcast.shutdownhook.enabled", "false");
    NetworkConfig n = c.getNetworkConfig();
    n.setPort(port).setPortAutoIncrement(false);
    n.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    JoinConfig j = n.getJoin();
    j.getMulticastConfig().setEnabled(false);
    j.getAutoDetectionConfig().setEnabled(false);
    j.getTcpIpConfig().setEnabled(true);
    for (int p : ports) {
      j.getTcpIpConfig().addMember("127.0.0.1:" + p);
    }
    return c;
  }

  /**
   * Starts a member (blocking; call from the test thread).
   *
   * @param cluster cluster name
   * @param port    this member's port
   * @param ports   all members' ports
   */
  public static HazelcastInstance start(String cluster, int port, int... ports) {
    return start(cluster, c -> { }, port, ports);
  }

  /**
   * Starts a member with extra configuration (blocking; call from the test thread).
   *
   * @param cluster cluster name
   * @param extra   applied to the config last (e.g. {@link MemoryClusterConfig#apply})
   * @param port    this member's port
   * @param ports   all members' ports
   */
  public static HazelcastInstance start(String cluster, java.util.function.Consumer<Config> extra, int port,
                                        int... ports) {
    Config c = configure(new Config(), cluster, port, ports);
    extra.accept(c);
    return Hazelcast.newHazelcastInstance(c);
  }
}
