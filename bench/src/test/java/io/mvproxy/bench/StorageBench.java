package io.mvproxy.bench;

import com.hazelcast.core.HazelcastInstance;
import io.mvproxy.api.storage.ListOptions;
import io.mvproxy.api.storage.ResourceStorage;
import io.mvproxy.api.storage.StorageException;
import io.mvproxy.api.storage.Watch;
import io.mvproxy.api.storage.WatchEvent;
import io.mvproxy.api.storage.WatchListener;
import io.mvproxy.api.storage.WatchOptions;
import io.mvproxy.storage.EtcdRunner;
import io.mvproxy.storage.NodeStorage;
import io.mvproxy.storage.ObjectStore;
import io.mvproxy.storage.StorageConfig;
import io.mvproxy.storage.TestHazelcast;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Storage load driver, both backends side by side in one run: create / get / list rates (medians of 3 rounds of
 * {@value #OBJECTS} objects, {@value #IN_FLIGHT} calls in flight) and the cost of {@value #WATCHES} client watches
 * on one node (backend watches opened, heap per watch, fan-out latency of one change to all of them). Prints FIGURE
 * lines; asserts nothing. Run: {@code mvn -pl bench -am install -DskipTests && mvn -pl bench test -Dtest=StorageBench}.
 */
@Tag("unit")
class StorageBench {
  static final int OBJECTS = 2000;
  static final int IN_FLIGHT = 32;
  static final int WATCHES = 1000;
  static final int ROUNDS = 3;

  @Test
  void bothBackends() throws Exception {
    Map<String, Map<String, Double>> figures = new LinkedHashMap<>();
    Vertx vertx = Vertx.vertx();
    int[] p = TestHazelcast.freePorts(1);
    HazelcastInstance hz = TestHazelcast.start(TestHazelcast.clusterName(), p[0], p[0]);
    try (EtcdRunner etcd = EtcdRunner.single()) {
      NodeStorage memory = NodeStorage.create(vertx, hz, StorageConfig.memory());
      NodeStorage etcd3 = NodeStorage.create(vertx, null, StorageConfig.etcd(etcd.clientUrls())
          .withCompactionInterval(Duration.ZERO));
      figures.put("memory", run(memory));
      figures.put("etcd3", run(etcd3));
      memory.close().await(10, TimeUnit.SECONDS);
      etcd3.close().await(10, TimeUnit.SECONDS);
    } finally {
      hz.shutdown();
      vertx.close().await(10, TimeUnit.SECONDS);
    }
    System.out.println("FIGURE metric                      memory        etcd3   etcd3/memory");
    for (String k : figures.get("memory").keySet()) {
      double m = figures.get("memory").get(k);
      double e = figures.get("etcd3").get(k);
      System.out.printf("FIGURE %-24s %12.1f %12.1f %10.2f%n", k, m, e, m == 0 ? 0 : e / m);
    }
  }

  private Map<String, Double> run(NodeStorage storage) throws Exception {
    Map<String, Double> out = new LinkedHashMap<>();
    List<Double> creates = new ArrayList<>();
    List<Double> gets = new ArrayList<>();
    List<Double> lists = new ArrayList<>();
    for (int round = 0; round < ROUNDS; round++) {
      ResourceStorage rs = storage.resource("bench.mvproxy.io/r" + round);
      creates.add(rate(OBJECTS, i -> rs.create("ns/o" + i, obj(i))));
      gets.add(rate(OBJECTS, i -> rs.get("ns/o" + i)));
      lists.add(rate(20, i -> rs.list(ListOptions.all("")).map(l -> {
        if (l.items().size() != OBJECTS) {
          throw new IllegalStateException("listed " + l.items().size());
        }
        return l;
      })) * OBJECTS);
    }
    out.put("creates/s", median(creates));
    out.put("gets/s", median(gets));
    out.put("listed objects/s", median(lists));
    ResourceStorage rs = storage.resource("bench.mvproxy.io/watched");
    rs.create("ns/seed", obj(0)).await(30, TimeUnit.SECONDS);
    long rev = rs.currentRevision().await(30, TimeUnit.SECONDS);
    System.gc();
    long before = used();
    AtomicLong seen = new AtomicLong();
    List<Watch> ws = new ArrayList<>();
    for (int i = 0; i < WATCHES; i++) {
      ws.add(rs.watch(new WatchOptions("", rev, false), new WatchListener() {
        @Override
        public void onEvent(WatchEvent event) {
          seen.incrementAndGet();
        }

        @Override
        public void onError(StorageException error) {
        }
      }).await(30, TimeUnit.SECONDS));
    }
    System.gc();
    long after = used();
    out.put("backend watches", (double) ((ObjectStore) rs).cache().backendWatches());
    out.put("heap bytes per watch", (double) Math.max(0, after - before) / WATCHES);
    long t0 = System.nanoTime();
    rs.create("ns/change", obj(1)).await(30, TimeUnit.SECONDS);
    while (seen.get() < WATCHES) {
      Thread.onSpinWait();
    }
    out.put("fan-out to all ms", (System.nanoTime() - t0) / 1e6);
    ws.forEach(Watch::cancel);
    return out;
  }

  private static long used() {
    Runtime r = Runtime.getRuntime();
    return r.totalMemory() - r.freeMemory();
  }

  private static double median(List<Double> v) {
    List<Double> s = new ArrayList<>(v);
    s.sort(Double::compare);
    return s.get(s.size() / 2);
  }

  private interface Op {
    Future<?> call(int i);
  }

  /** @return calls per second of {@code n} calls with {@link #IN_FLIGHT} in flight */
  private static double rate(int n, Op op) throws Exception {
    long t0 = System.nanoTime();
    List<Future<?>> inflight = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      inflight.add(op.call(i));
      if (inflight.size() >= IN_FLIGHT) {
        Future.all(inflight).await(60, TimeUnit.SECONDS);
        inflight.clear();
      }
    }
    Future.all(inflight).await(60, TimeUnit.SECONDS);
    return n / ((System.nanoTime() - t0) / 1e9);
  }

  private static JsonObject obj(int i) {
    return new JsonObject().put("apiVersion", "bench.mvproxy.io/v1").put("kind", "R")
        .put("metadata", new JsonObject().put("name", "o" + i).put("namespace", "ns").put("uid", "u" + i))
        .put("spec", new JsonObject().put("i", i).put("payload", "x".repeat(200)));
  }
}
