package io.mvproxy.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import io.mvproxy.api.storage.StorageException;
import io.mvproxy.api.storage.StoredObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The conformance suite on the memory backend (one Hazelcast member on loopback). */
@Tag("fleet")
class MemoryStorageTest extends StorageConformance {
  private HazelcastInstance hz;

  @Override
  protected NodeStorage open() {
    int[] p = TestHazelcast.freePorts(1);
    hz = TestHazelcast.start(TestHazelcast.clusterName(), p[0], p[0]);
    return NodeStorage.create(vertx, hz, StorageConfig.memory());
  }

  @Override
  protected boolean keepsHistory() {
    return false;
  }

  @AfterAll
  void stopHazelcast() {
    if (hz != null) {
      hz.shutdown();
    }
  }

  @Test
  void revisionNeverGoesBackwardsWhenTheCounterIsLost() throws Exception {
    StoredObject a = create("ns1", "a", 1);
    hz.getMap(MemoryBackend.META).clear();
    StoredObject b = create("ns1", "b", 1);
    assertTrue(b.resourceVersion() > a.resourceVersion());
    StorageException e = watchFailure(new io.mvproxy.api.storage.WatchOptions("", 1, false));
    assertEquals(410, e.code(), "a revision from before the counter restarted is too old");
  }
}
