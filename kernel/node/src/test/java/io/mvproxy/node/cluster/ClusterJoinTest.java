package io.mvproxy.node.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.cluster.ClusterState;
import com.hazelcast.core.HazelcastInstance;
import io.mvproxy.node.config.ConfigLoader;
import io.mvproxy.node.config.NodeConfig;
import io.mvproxy.storage.TestHazelcast;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBusOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node starting while the cluster is FROZEN (as during a split-brain merge) joins once it thaws, not exits. */
@Tag("fleet")
class ClusterJoinTest {
  @TempDir
  Path dir;

  @Test
  void joinIsRetriedWhileTheClusterTurnsMembersAway() throws Exception {
    String cluster = TestHazelcast.clusterName();
    int[] ports = TestHazelcast.freePorts(2);
    HazelcastInstance member = TestHazelcast.start(cluster, ports[0], ports[0]);
    try {
      member.getCluster().changeClusterState(ClusterState.FROZEN);
      Files.writeString(dir.resolve("tls.crt"), "x");
      Files.writeString(dir.resolve("tls.key"), "x");
      Path file = dir.resolve("node.json");
      Files.writeString(file, "{\"tlsCertFile\":\"tls.crt\",\"tlsPrivateKeyFile\":\"tls.key\"}");
      NodeConfig config = ConfigLoader.load(file, List.of("--cluster-name=" + cluster, "--cluster-host=127.0.0.1",
          "--cluster-port=" + ports[1], "--cluster-members=127.0.0.1:" + ports[0]));
      AtomicInteger retries = new AtomicInteger();
      CountDownLatch refused = new CountDownLatch(1);
      var joining = ClusterJoin.join(config, new VertxOptions().setEventBusOptions(
          new EventBusOptions().setHost("127.0.0.1").setPort(0)), Duration.ofSeconds(90), e -> {
            retries.incrementAndGet();
            refused.countDown();
          });
      assertTrue(refused.await(60, TimeUnit.SECONDS), "the frozen cluster refused the first attempt");
      assertFalse(joining.isComplete());
      member.getCluster().changeClusterState(ClusterState.ACTIVE);
      ClusterJoin.Joined joined = joining.toCompletionStage().toCompletableFuture().get(90, TimeUnit.SECONDS);
      try {
        assertEquals(2, member.getCluster().getMembers().size());
        assertTrue(retries.get() >= 1);
      } finally {
        joined.vertx().close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      }
    } finally {
      member.shutdown();
    }
  }

  @Test
  void addressInUseIsNotRetried() {
    assertFalse(ClusterJoin.retryable(new RuntimeException("x", new java.net.BindException("Address already in use"))));
    assertTrue(ClusterJoin.retryable(new IllegalStateException("Node failed to start!")));
  }
}
