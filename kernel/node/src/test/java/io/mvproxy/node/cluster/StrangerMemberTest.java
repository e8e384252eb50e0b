package io.mvproxy.node.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * name: a plain member (TCP-IP join) and a plain Hazelcast client. Tagged fleet (like {@link ClusterJoinTest}):
 * in-process, but real Hazelcast members joining and giving up take about 40 s in all.
 */
@Tag("fleet")
class StrangerMemberTest {
  /** How long the stranger member tries to join before it gives up (Hazelcast's default: 300 s). */
  static final int STRANGER_JOIN_SECONDS = 8;

  @TempDir
  Path dir;

  private final List<AutoCloseable> open = new ArrayList<>();
  private final java.util.Map<HazelcastInstance, ClusterJoin.Joined> joined = new java.util.HashMap<>();

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

  /**
   * With {@code --cluster-secret-file}: the same stranger member never gets in (the node's port refuses each of its
   * connections before any Hazelcast byte): it either gives up (its join sees only closed connections) or, having heard
   * from no one, forms a cluster of its own, empty; the fleet never lists it, not even for a moment; a plain client
   * cannot connect at all.
   */
  @Test
  void withTheSecretAStrangerMemberAndAClientAreRefused() throws Exception {
    String cluster = TestHazelcast.clusterName();
    int[] ports = TestHazelcast.freePorts(2);
    HazelcastInstance node = node(cluster, "127.0.0.1", ports[0], List.of("127.0.0.1:" + ports[0]), secret("secret"));
    node.getMap("fleet-data").put("secret", "s3cr3t");
    java.util.concurrent.atomic.AtomicInteger most = new java.util.concurrent.atomic.AtomicInteger();
    node.getCluster().addMembershipListener(new com.hazelcast.cluster.MembershipListener() {
      @Override
      public void memberAdded(com.hazelcast.cluster.MembershipEvent e) {
        most.accumulateAndGet(e.getMembers().size(), Math::max);
      }

      @Override
      public void memberRemoved(com.hazelcast.cluster.MembershipEvent e) {
      }
    });
    HazelcastInstance stranger = null;
    try {
      stranger = stranger(cluster, ports[1], ports[0]);
    } catch (IllegalStateException gaveUp) {
      // its join met only closed connections until it gave up
      assertTrue(gaveUp.getMessage().contains("Node failed to start"), gaveUp.getMessage());
    }
    if (stranger != null) {
      // or, having heard from no one, it formed a cluster of its own: empty
      assertEquals(1, stranger.getCluster().getMembers().size(), "the stranger is alone");
      assertNull(stranger.getMap("fleet-data").get("secret"), "the stranger reads only its own, empty map");
    }
    assertEquals(1, node.getCluster().getMembers().size(), "the fleet did not take the stranger in");
    assertEquals(0, most.get(), "no member was ever added");
    long t0 = System.nanoTime();
    IllegalStateException refused = assertThrows(IllegalStateException.class, () -> client(cluster, ports[0]));
    assertTrue(refused.getMessage().contains("Unable to connect"), refused.getMessage());
    assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(30), "the client gave up within its timeout");
    assertEquals(1, node.getCluster().getMembers().size());
  }

  /**
   * With the secret on both: a second node joins the first and reads its maps; a node with another secret stays
   * alone; a connection that holds the right secret but comes from an address outside {@code --cluster-members}
   * (127.0.0.2: Hazelcast itself binds only to listed interfaces, so the handshake is run by hand, as
   * {@link MemberProbe} does) is closed before the handshake, where the same from 127.0.0.1 completes it.
   */
  @Test
  void onlyMembersWithTheSecretAtAMemberAddressJoin() throws Exception {
    String cluster = TestHazelcast.clusterName();
    int[] ports = TestHazelcast.freePorts(3);
    Path secret = secret("secret");
    List<String> members = List.of("127.0.0.1:" + ports[0], "127.0.0.1:" + ports[1]);
    HazelcastInstance a = node(cluster, "127.0.0.1", ports[0], members, secret);
    a.getMap("fleet-data").put("secret", "s3cr3t");

    HazelcastInstance wrong = node(cluster, "127.0.0.1", ports[2], List.of("127.0.0.1:" + ports[0]),
        secret("wrong-secret"));
    assertEquals(1, wrong.getCluster().getMembers().size(), "a node with another secret stays alone");
    assertNull(wrong.getMap("fleet-data").get("secret"));
    assertEquals(1, a.getCluster().getMembers().size());

    FleetHandshake right = new FleetHandshake(ClusterSecret.read(secret), null);
    java.net.InetSocketAddress at = new java.net.InetSocketAddress("127.0.0.1", ports[0]);
    assertTrue(MemberProbe.answers(at, 5_000, right, "127.0.0.1"), "from a member address the secret opens");
    assertFalse(MemberProbe.answers(at, 5_000, right, "127.0.0.2"), "127.0.0.2 is not a --cluster-members address");
    FleetHandshake other = new FleetHandshake(ClusterSecret.read(dir.resolve("wrong-secret")), null);
    assertFalse(MemberProbe.answers(at, 5_000, other, "127.0.0.1"), "another secret does not open");

    HazelcastInstance b = node(cluster, "127.0.0.1", ports[1], members, secret);
    assertEquals(2, b.getCluster().getMembers().size(), "a member with the secret joins");
    assertEquals(2, a.getCluster().getMembers().size());
    assertEquals("s3cr3t", b.getMap("fleet-data").get("secret"));

    // Vert.x leaves a member it did not start running: the node's own manager shuts it down on close
    joined.get(b).vertx().close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertFalse(b.getLifecycleService().isRunning(), "closing the node's Vert.x shut its member down");
    await().pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20))
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertEquals(1, a.getCluster().getMembers().size(), "and it left the cluster"));
  }

  private Path secret(String name) throws Exception {
    Path p = dir.resolve(name);
    Files.writeString(p, ClusterSecret.generate(new java.security.SecureRandom()));
    return p;
  }

  HazelcastInstance node(String cluster, String host, int port, List<String> members, Path secret) throws Exception {
    Files.writeString(dir.resolve("tls.crt"), "x");
    Files.writeString(dir.resolve("tls.key"), "x");
    Path file = dir.resolve("node.json");
    Files.writeString(file, "{\"tlsCertFile\":\"tls.crt\",\"tlsPrivateKeyFile\":\"tls.key\"}");
    List<String> flags = new ArrayList<>(List.of("--cluster-name=" + cluster, "--cluster-host=" + host,
        "--cluster-port=" + port, "--cluster-members=" + String.join(",", members)));
    if (secret != null) {
      flags.add("--cluster-secret-file=" + secret);
    }
    NodeConfig config = ConfigLoader.load(file, flags);
    ClusterJoin.Joined joined = ClusterJoin.join(config, new VertxOptions().setEventBusOptions(
            new EventBusOptions().setHost(host).setPort(0)), Duration.ofSeconds(30), e -> { })
        .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    open.add(() -> joined.vertx().close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS));
    this.joined.put(joined.manager().getHazelcastInstance(), joined);
    return joined.manager().getHazelcastInstance();
  }

  HazelcastInstance stranger(String cluster, int port, int target) {
    HazelcastInstance h = TestHazelcast.start(cluster,
        c -> c.setProperty("hazelcast.max.join.seconds", String.valueOf(STRANGER_JOIN_SECONDS)), port, target);
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
