package io.mvproxy.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import io.mvproxy.api.storage.ResourceStorage;
import io.mvproxy.api.storage.StorageException;
import io.mvproxy.api.storage.StoredObject;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The memory backend's split-brain protection (breaker F9) on three real Hazelcast members configured as a node
 * configures them ({@link MemoryClusterConfig#apply} with three cluster members): a member left alone refuses reads
 * and writes with a 503 Status within the request timeout (never hangs), and serves again once a second member is
 * back. The merge side (a healed split keeps deletes) is proven with node processes in kernel/node's PartitionTest.
 */
@Tag("fleet")
class MemoryQuorumTest {
  private final Vertx vertx = Vertx.vertx();
  private final java.util.List<HazelcastInstance> members = new java.util.ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    members.forEach(m -> m.getLifecycleService().terminate());
    vertx.close().await(20, TimeUnit.SECONDS);
  }

  @Test
  void aMemberWithoutQuorumRefusesWithAStatusAndServesAgainWithIt() throws Exception {
    String cluster = TestHazelcast.clusterName();
    int[] p = TestHazelcast.freePorts(3);
    StorageConfig cfg = StorageConfig.memory().withRequestTimeout(Duration.ofSeconds(5));
    for (int port : p) {
      members.add(TestHazelcast.start(cluster, c -> MemoryClusterConfig.apply(c, 3, cfg), port, p));
    }
    HazelcastInstance a = members.get(0);
    await("three members", () -> a.getCluster().getMembers().size() == 3);
    assertEquals(2, a.getConfig().getMapConfig(MemoryBackend.DATA).getBackupCount() + 1,
        "every quorum of 2 of 3 members holds a copy of each partition");
    ResourceStorage rs = NodeStorage.create(vertx, a, cfg).resource("quorum.example.com/things");
    StoredObject kept = StorageConformance.await(rs.create("ns/kept", StorageConformance.obj("ns", "kept", 1)));

    // one member at a time, each time until every partition has its backup again: member a then holds every object
    await("every partition backed up", () -> a.getPartitionService().isClusterSafe());
    members.get(1).getLifecycleService().terminate();
    await("two members", () -> a.getCluster().getMembers().size() == 2);
    await("every partition backed up on two members", () -> a.getPartitionService().isClusterSafe());
    members.get(2).getLifecycleService().terminate();
    await("member a alone", () -> a.getCluster().getMembers().size() == 1);
    StorageException w = StorageConformance.failure(rs.create("ns/lost", StorageConformance.obj("ns", "lost", 1)));
    StorageException r = StorageConformance.failure(rs.get("ns/kept"));
    assertEquals(503, w.code(), "refused (503), not timed out (504): " + w.getMessage());
    assertEquals(503, r.code(), r.getMessage());
    assertTrue(w.getMessage().contains("split-brain protection"), w.getMessage());

    int[] q = TestHazelcast.freePorts(1);
    members.add(TestHazelcast.start(cluster, c -> MemoryClusterConfig.apply(c, 3, cfg), q[0], p[0], q[0]));
    await("two members", () -> a.getCluster().getMembers().size() == 2);
    await("storage answers again", () -> rs.get("ns/kept").await(10, TimeUnit.SECONDS) != null);
    StoredObject back = StorageConformance.await(rs.get("ns/kept"));
    assertEquals(kept.resourceVersion(), back.resourceVersion());
    assertEquals(404, StorageConformance.failure(rs.get("ns/lost")).code(), "the refused write was not stored");
    StoredObject next = StorageConformance.await(rs.create("ns/next", StorageConformance.obj("ns", "next", 1)));
    assertTrue(next.resourceVersion() > kept.resourceVersion());
  }

  /** Polls {@code c} every 100 ms for up to 60 s (a throwing poll counts as "not yet"). */
  private static void await(String what, java.util.concurrent.Callable<Boolean> c) {
    Awaitility.await("timed out waiting for " + what).pollInSameThread().pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(100)).atMost(Duration.ofSeconds(60)).ignoreExceptions()
        .until(() -> Boolean.TRUE.equals(c.call()));
  }
}
