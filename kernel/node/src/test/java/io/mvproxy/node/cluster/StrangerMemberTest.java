package io.mvproxy.node.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.core.HazelcastInstance;
import io.mvproxy.node.config.ConfigLoader;
import io.mvproxy.node.config.NodeConfig;
import io.mvproxy.storage.TestHazelcast;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBusOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster port as an attacker sees it: a fleet node joined through the project's own code ({@link ClusterJoin},
 * {@link HazelcastConfigFactory}), then a stranger with the project's own Hazelcast jar that knows only the cluster
 * name: a plain member (TCP-IP join) and a plain Hazelcast client.
 */
@Tag("unit")
class StrangerMemberTest {
  @TempDir
  Path dir;

  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      try {
        open.get(i).close();
      } catch (Exception e) {
        // best effort
      }
    }
  }

  /** Without {@code --cluster-secret-file} (as before): a stranger member joins and reads the fleet's maps. */
  @Test
  void withoutTheSecretAStrangerJoinsAndReads() throws Exception {
    String cluster = TestHazelcast.clusterName();
    int[] ports = TestHazelcast.freePorts(2);
    HazelcastInstance node = node(cluster, "127.0.0.1", ports[0], List.of("127.0.0.1:" + ports[0]), null);
    node.getMap("fleet-data").put("secret", "s3cr3t");
    HazelcastInstance stranger = stranger(cluster, ports[1], ports[0]);
    assertEquals(2, stranger.getCluster().getMembers().size(), "the stranger became a member");
    assertEquals("s3cr3t", stranger.getMap("fleet-data").get("secret"));
    HazelcastInstance client = client(cluster, ports[0]);
    assertEquals("s3cr3t", client.getMap("fleet-data").get("secret"), "a plain client reads the maps too");
  }

  HazelcastInstance node(String cluster, String host, int port, List<String> members, Path secret) throws Exception {
    Files.writeString(dir.resolve("tls.crt"), "x");
    Files.writeString(dir.resolve("tls.key"), "x");
    Path file = dir.resolve("node.json");
    Files.writeString(file, "{\"tlsCertFile\":\"tls.crt\",\"tlsPrivateKeyFile\":\"tls.key\"}");
    List<String> flags = new ArrayList<>(List.of("--cluster-name=" + cluster, "--cluster-host=" + host,
        "--cluster-port=" + port, "--cluster-members=" + String.join(",", members)));
    NodeConfig config = ConfigLoader.load(file, flags);
    ClusterJoin.Joined joined = ClusterJoin.join(config, new VertxOptions().setEventBusOptions(
            new EventBusOptions().setHost(host).setPort(0)), Duration.ofSeconds(30), e -> { })
        .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    open.add(() -> joined.vertx().close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS));
    return joined.manager().getHazelcastInstance();
  }

  HazelcastInstance stranger(String cluster, int port, int target) {
    HazelcastInstance h = TestHazelcast.start(cluster, port, target);
    open.add(h::shutdown);
    return h;
  }

  HazelcastInstance client(String cluster, int target) {
    ClientConfig c = new ClientConfig().setClusterName(cluster);
    c.setProperty("hazelcast.logging.type", "jdk");
    c.getNetworkConfig().addAddress("127.0.0.1:" + target);
    c.getConnectionStrategyConfig().getConnectionRetryConfig().setClusterConnectTimeoutMillis(5_000);
    HazelcastInstance h = HazelcastClient.newHazelcastClient(c);
    open.add(h::shutdown);
    return h;
  }
}
