package io.mvproxy.builtin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import io.mvproxy.api.storage.Preconditions;
import io.mvproxy.api.storage.ResourceStorage;
import io.mvproxy.api.storage.StorageException;
import io.mvproxy.registry.impl.CrdApiSource;
import io.mvproxy.registry.impl.Kinds;
import io.mvproxy.storage.NodeStorage;
import io.mvproxy.storage.StorageConfig;
import io.mvproxy.storage.TestHazelcast;
import io.mvproxy.testkit.TestSourceContext;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link EventTtl} (kube-apiserver's {@code --event-ttl}) over the real Events store (memory storage, one Hazelcast
 * member on loopback), with the node's clock replaced by a counter the test moves: an Event goes one TTL after its
 * last write (a write restarts its TTL), a write that races the expiry wins (the resourceVersion precondition), and
 * two nodes expiring the same Event delete it once.
 */
@Tag("fleet")
class EventTtlTest {
  static final Duration TTL = Duration.ofHours(1);

  static JsonObject event(String name) {
    return new JsonObject().put("apiVersion", "v1").put("kind", "Event")
        .put("metadata", new JsonObject().put("name", name).put("namespace", "ns").put("uid", "u-" + name))
        .put("involvedObject", new JsonObject().put("kind", "Pod").put("name", "p"))
        .put("reason", "Started").put("message", "m").put("type", "Normal");
  }

  static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  static boolean gone(ResourceStorage store, String key) throws Exception {
    try {
      await(store.get(key));
      return false;
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof StorageException se && se.storageCode() == StorageException.Code.NOT_FOUND) {
        return true;
      }
      throw e;
    }
  }

  static void until(String what, java.util.concurrent.Callable<Boolean> check) {
    Awaitility.await(what).pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20))
        .atMost(Duration.ofSeconds(30)).until(check);
  }

  @Test
  void eventsGoOneTtlAfterTheirLastWriteAndAWriteWinsARace() throws Exception {
    int[] p = TestHazelcast.freePorts(1);
    HazelcastInstance hz = TestHazelcast.start(TestHazelcast.clusterName(), p[0], p[0]);
    Vertx vertx = Vertx.vertx();
    try {
      NodeStorage storage = NodeStorage.create(vertx, hz, StorageConfig.memory());
      CrdApiSource events = Kinds.createBuiltIn(BuiltinKinds.manifest("events"),
          new TestSourceContext(vertx, storage, "n1"), "events", 18000, 1,
          new Events().then(new KindSemantics("events")));
      ResourceStorage store = events.store();
      long t0 = 1_000_000_000L;
      AtomicLong clock = new AtomicLong(t0);
      await(store.create("ns/old", event("old")));
      await(store.create("ns/renewed", event("renewed")));
      EventTtl ttl = new EventTtl(vertx, TTL, clock::get, 20);
      EventTtl second = new EventTtl(vertx, TTL, clock::get, 20);  // another node of the fleet
      ttl.start(store);
      second.start(store);
      until("both nodes time both events", () -> ttl.seenAt("ns/old") == t0 && ttl.seenAt("ns/renewed") == t0
          && second.seenAt("ns/old") == t0 && second.seenAt("ns/renewed") == t0);

      clock.set(t0 + TTL.toMillis() / 2);
      await(store.guaranteedUpdate("ns/renewed", Preconditions.NONE, cur -> cur.object().copy().put("count", 2)));
      long renewedAt = clock.get();
      until("the write restarts its TTL", () -> ttl.seenAt("ns/renewed") == renewedAt);

      clock.set(t0 + TTL.toMillis() - 1);
      await(store.create("ns/young", event("young")));
      until("the young event is timed", () -> ttl.seenAt("ns/young") == t0 + TTL.toMillis() - 1);
      clock.set(t0 + TTL.toMillis());
      until("the event written one TTL ago is deleted", () -> gone(store, "ns/old"));
      until("both nodes forget it", () -> ttl.seenAt("ns/old") == -1 && second.seenAt("ns/old") == -1);
      assertTrue(!gone(store, "ns/renewed") && !gone(store, "ns/young"), "events written since stay");

      // a write the node has not seen yet when the TTL is due: the delete's precondition fails, the write stays
      // (its own clock, so the following nodes, whose TTL for the rewrite has not passed, leave the Event alone)
      AtomicLong lateClock = new AtomicLong(clock.get());
      EventTtl late = new EventTtl(vertx, TTL, lateClock::get, 3_600_000);
      late.useStore(store);
      late.apply(new io.mvproxy.api.storage.WatchEvent(io.mvproxy.api.storage.WatchEvent.Type.ADDED,
          await(store.get("ns/young")), null));
      JsonObject rewritten = await(store.guaranteedUpdate("ns/young", Preconditions.NONE,
          cur -> cur.object().copy().put("count", 3))).object();
      long rewrittenAt = clock.get();
      until("the following nodes saw the rewrite", () -> ttl.seenAt("ns/young") == rewrittenAt
          && second.seenAt("ns/young") == rewrittenAt);
      lateClock.set(t0 + 3 * TTL.toMillis());
      io.vertx.core.Promise<Void> swept = io.vertx.core.Promise.promise();
      vertx.runOnContext(v -> late.sweep().onComplete(swept));
      await(swept.future());
      assertEquals(rewritten.getJsonObject("metadata").getString("resourceVersion"),
          await(store.get("ns/young")).object().getJsonObject("metadata").getString("resourceVersion"),
          "the unseen write was not deleted by the node that missed it");
      clock.set(t0 + 3 * TTL.toMillis());

      until("the others go once their TTL passed", () -> gone(store, "ns/renewed") && gone(store, "ns/young"));
    } finally {
      await(vertx.close());
      hz.shutdown();
    }
  }

  @Test
  void theSweepPeriodIsATenthOfTheTtlBetweenOneAndThirtySeconds() {
    assertEquals(30_000, EventTtl.sweepPeriodMillis(Duration.ofHours(1)));
    assertEquals(6_000, EventTtl.sweepPeriodMillis(Duration.ofMinutes(1)));
    assertEquals(1_000, EventTtl.sweepPeriodMillis(Duration.ofSeconds(3)));
  }
}
