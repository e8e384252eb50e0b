package io.mvproxy.node.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mvproxy.security.DevPki;
import io.mvproxy.security.TlsOptions;
import io.mvproxy.storage.TestHazelcast;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The clustered event bus is encrypted and only fleet members reach it (breaker F11). Five clustered Vert.x
 * instances join one real Hazelcast cluster on loopback (Hazelcast OSS itself authenticates no member, so all five
 * are members): node-a and node-b with the event bus options a node uses ({@link TlsOptions#eventBus}: serving key
 * pair, peer CA); an intruder with a serving certificate of another CA; one with the fleet CA's admin client
 * certificate (clientAuth only); one with a plain event bus. node-b's request reaches node-a's consumer; none of
 * the intruders' requests does.
 */
@Tag("fleet")
class EventBusTlsTest {
  private final List<Vertx> started = new ArrayList<>();

  @AfterEach
  void stop() {
    for (Vertx v : started) {
      try {
        v.close().await(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        // best effort
      }
    }
  }

  @Test
  void onlyNodesWithAServingCertificateOfThePeerCaReachTheEventBus() throws Exception {
    Path dir = Files.createTempDirectory("mvproxy-eventbus-tls");
    DevPki fleet = new DevPki(dir.resolve("fleet"));
    fleet.generate(List.of("node-a", "node-b"), List.of(), Map.of());
    DevPki rogue = new DevPki(dir.resolve("rogue"));
    rogue.generate(List.of("node-a", "node-b"), List.of(), Map.of());
    String ca = fleet.caCert().toString();
    String cluster = TestHazelcast.clusterName();
    int[] ports = TestHazelcast.freePorts(4);

    Vertx a = clustered(cluster, 0, ports, bus(fleet.servingCert("node-a"), fleet.servingKey("node-a"), ca));
    AtomicInteger delivered = new AtomicInteger();
    a.eventBus().<String>consumer("mvproxy.test.secret", m -> {
      delivered.incrementAndGet();
      m.reply("pong");
    }).completion().await(30, TimeUnit.SECONDS);
    Vertx b = clustered(cluster, 1, ports, bus(fleet.servingCert("node-b"), fleet.servingKey("node-b"), ca));
    DeliveryOptions d = new DeliveryOptions().setSendTimeout(30_000);
    assertEquals("pong", b.eventBus().request("mvproxy.test.secret", "ping", d).await(60, TimeUnit.SECONDS).body(),
        "node-b reaches node-a over the encrypted bus");

    Map<String, EventBusOptions> intruders = Map.of(
        "serving certificate of another CA", bus(rogue.servingCert("node-b"), rogue.servingKey("node-b"), ca),
        "plain event bus", new EventBusOptions().setHost("127.0.0.1").setPort(0));
    int i = 2;
    for (Map.Entry<String, EventBusOptions> in : intruders.entrySet()) {
      Vertx x = clustered(cluster, i++, ports, in.getValue());
      try {
        Object got = x.eventBus().request("mvproxy.test.secret", "ping", new DeliveryOptions().setSendTimeout(5_000))
            .await(30, TimeUnit.SECONDS).body();
        throw new AssertionError(in.getKey() + ": the intruder got an answer: " + got);
      } catch (Exception expected) {
        // no connection to node-a's bus: the request times out or finds no reachable handler
      }
    }
    assertEquals(1, delivered.get(), "only node-b's message was delivered");
  }

  private static EventBusOptions bus(Path cert, Path key, String ca) {
    return TlsOptions.eventBus("127.0.0.1", cert.toString(), key.toString(), ca, "--peer-ca-file");
  }

  private Vertx clustered(String cluster, int i, int[] ports, EventBusOptions bus) throws Exception {
    HazelcastClusterManager mgr = new HazelcastClusterManager(
        TestHazelcast.configure(ConfigUtil.loadConfig(), cluster, ports[i], ports));
    Vertx v = Vertx.builder().with(new VertxOptions().setEventBusOptions(bus)).withClusterManager(mgr)
        .buildClustered().await(60, TimeUnit.SECONDS);
    started.add(v);
    return v;
  }
}
