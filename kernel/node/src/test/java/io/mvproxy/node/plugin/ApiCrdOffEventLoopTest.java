package io.mvproxy.node.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import io.mvproxy.api.ApiSource;
import io.mvproxy.api.ApiSourceContext;
import io.mvproxy.api.ApiSourceFactory;
import io.mvproxy.registry.impl.CrdDiscovery;
import io.mvproxy.registry.impl.CrdSourceOptions;
import io.mvproxy.registry.impl.Kinds;
import io.mvproxy.registry.impl.model.CrdDefinition;
import io.mvproxy.registry.impl.model.CrdParser;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.mvproxy.storage.NodeStorage;
import io.mvproxy.storage.StorageConfig;
import io.mvproxy.storage.TestHazelcast;
import io.mvproxy.testkit.TestSourceContext;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An API-created CRD is parsed (its CEL rules compiled) on a worker, never on the verticle's event loop: while the
 * parse is held, the verticle's event loop still answers; the source is applied once the parse ends. Memory storage
 * over one Hazelcast member on loopback.
 */
@Tag("fleet")
class ApiCrdOffEventLoopTest {

  static JsonObject storedCrd() {
    return new JsonObject("""
        {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
         "metadata":{"name":"foos.example.com","uid":"u1","generation":1},
         "spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"foos","kind":"Foo"},
          "versions":[{"name":"v1","served":true,"storage":true,
            "schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object",
              "x-kubernetes-validations":[{"rule":"self.a < self.b"},{"rule":"size(self.n) > 0"}],
              "properties":{"a":{"type":"integer"},"b":{"type":"integer"},"n":{"type":"string"}}}}}}}]},
         "status":{"conditions":[{"type":"NamesAccepted","status":"True","reason":"NoConflicts","message":""}],
          "acceptedNames":{"plural":"foos","kind":"Foo"},"storedVersions":["v1"]}}""");
  }

  @Test
  void theCrdIsParsedOnAWorkerWhileTheEventLoopKeepsAnswering() throws Exception {
    int[] p = TestHazelcast.freePorts(1);
    HazelcastInstance hz = TestHazelcast.start(TestHazelcast.clusterName(), p[0], p[0]);
    // one event loop: the verticle's; a timer on it fires only while no handler blocks it
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    Map<String, Boolean> parsedOnEventLoop = new ConcurrentHashMap<>();
    CountDownLatch parsing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CrdParser.onParse = m -> {
      parsedOnEventLoop.put(Thread.currentThread().getName(), Context.isOnEventLoopThread());
      parsing.countDown();
      try {
        release.await(30, TimeUnit.SECONDS); // a long CEL compile
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    };
    try {
      NodeStorage storage = NodeStorage.create(vertx, hz, StorageConfig.memory());
      ApiSourceContext ctx = new TestSourceContext(vertx, storage, "n1");
      ApiSourceFactory factory = new ApiSourceFactory() {
        @Override
        public boolean supports(String apiVersion, String kind) {
          return true;
        }

        @Override
        public ApiSource create(JsonObject manifest, ApiSourceContext c) {
          CrdDefinition crd = CrdParser.parse(manifest);
          return Kinds.build(crd, manifest, c, crd.storageKey(), CrdDiscovery.groupVersions(crd),
              ObjectStrategy.NONE, CrdSourceOptions.DEFAULTS).start();
        }
      };
      ApiCrdVerticle v = new ApiCrdVerticle(ctx, factory, new PluginRegistry(),
          () -> ApiCrdEstablishedTest.snapshot(true, Map.of(), false, List.of()), List::of);
      vertx.deployVerticle(v).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      storage.resource(ApiCrdVerticle.PREFIX).create("foos.example.com", storedCrd())
          .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertTrue(parsing.await(30, TimeUnit.SECONDS), "the stored CRD is parsed");
      // the parse is held: the verticle's event loop still runs its handlers (its controller passes, a timer)
      CountDownLatch answered = new CountDownLatch(1);
      vertx.setTimer(1, t -> answered.countDown());
      assertTrue(answered.await(10, TimeUnit.SECONDS), "the event loop answered before the parse ended");
      assertTrue(v.sources().isEmpty(), "not served before the parse ended");
      release.countDown();
      Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> !v.sources().isEmpty());
      assertEquals(Set.of(false), Set.copyOf(parsedOnEventLoop.values()), "parsed on " + parsedOnEventLoop);
      assertFalse(parsedOnEventLoop.isEmpty());
      assertEquals("crd/foos.example.com", v.sources().get(0).name());
    } finally {
      CrdParser.onParse = null;
      release.countDown();
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      hz.shutdown();
    }
  }
}
