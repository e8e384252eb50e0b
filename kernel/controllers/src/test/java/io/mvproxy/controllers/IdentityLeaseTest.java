package io.mvproxy.controllers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The identity Lease's decisions as data: which Leases the garbage collector deletes (upstream's
 * {@code isLeaseExpired}) and what the lease controller writes (upstream's {@code newLease} with
 * {@code labelAPIServerHeartbeatFunc}).
 */
@Tag("unit")
class IdentityLeaseTest {
  static final Instant NOW = Instant.parse("2026-12-06T03:00:00Z");

  static JsonObject lease(Object renewTime, Object durationSeconds) {
    JsonObject spec = new JsonObject().put("holderIdentity", "node-a");
    if (renewTime != null) {
      spec.put("renewTime", renewTime);
    }
    if (durationSeconds != null) {
      spec.put("leaseDurationSeconds", durationSeconds);
    }
    return new JsonObject().put("metadata", new JsonObject().put("name", "apiserver-x")).put("spec", spec);
  }

  static Stream<Arguments> leases() {
    return Stream.of(
        Arguments.of("renewed 10 s ago, 3600 s", lease("2026-12-06T02:59:50.000000Z", 3600), false),
        Arguments.of("renewed 59 min ago, 3600 s", lease("2026-12-06T02:01:00.123456Z", 3600), false),
        Arguments.of("renewed 2 h ago, 3600 s", lease("2026-12-06T01:00:00.000000Z", 3600), true),
        Arguments.of("renewed 21 s ago, 20 s", lease("2026-12-06T02:59:39.000000Z", 20), true),
        Arguments.of("renewed exactly a duration ago: not before now", lease("2026-12-06T02:59:40Z", 20), false),
        Arguments.of("no renewTime", lease(null, 3600), true),
        Arguments.of("no leaseDurationSeconds", lease("2026-12-06T02:59:50.000000Z", null), true),
        Arguments.of("renewTime not a time", lease("yesterday", 3600), true),
        Arguments.of("no spec", new JsonObject(), true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("leases")
  void expiredAsUpstream(String name, JsonObject lease, boolean expired) {
    assertEquals(expired, IdentityLeaseGc.expired(lease, NOW), name);
  }

  @Test
  void newAndRenewedLeaseCarryTheIdentity() {
    Vertx vertx = Vertx.vertx();
    try {
      IdentityLeaseController c = new IdentityLeaseController(vertx, null, new IdentityLeaseController.Config(
          "kube-system", "apiserver-abc", "node-a", 3600, Duration.ofSeconds(10),
          Map.of("apiserver.kubernetes.io/identity", "kube-apiserver", "kubernetes.io/hostname", "h1"),
          Map.of("kubernetes.io/peer-advertise-address", "127.0.0.1:6443")));
      JsonObject created = c.lease(null);
      assertEquals("coordination.k8s.io/v1", created.getString("apiVersion"));
      assertEquals("Lease", created.getString("kind"));
      assertEquals("apiserver-abc", created.getJsonObject("metadata").getString("name"));
      assertEquals("kube-system", created.getJsonObject("metadata").getString("namespace"));
      assertEquals("kube-apiserver", created.getJsonObject("metadata").getJsonObject("labels")
          .getString("apiserver.kubernetes.io/identity"));
      assertEquals("127.0.0.1:6443", created.getJsonObject("metadata").getJsonObject("annotations")
          .getString("kubernetes.io/peer-advertise-address"));
      JsonObject spec = created.getJsonObject("spec");
      assertEquals("node-a", spec.getString("holderIdentity"));
      assertEquals(3600, spec.getInteger("leaseDurationSeconds"));
      assertEquals(false, IdentityLeaseGc.expired(created, Instant.now()));

      // a stored Lease someone labelled and changed: its other labels and resourceVersion stay, ours are asserted
      JsonObject stored = lease("2026-01-01T00:00:00.000000Z", 5);
      stored.getJsonObject("metadata").put("resourceVersion", "42").put("labels",
          new JsonObject().put("team", "infra").put("kubernetes.io/hostname", "old"));
      JsonObject renewed = c.lease(stored);
      assertEquals("42", renewed.getJsonObject("metadata").getString("resourceVersion"));
      assertEquals("infra", renewed.getJsonObject("metadata").getJsonObject("labels").getString("team"));
      assertEquals("h1", renewed.getJsonObject("metadata").getJsonObject("labels").getString("kubernetes.io/hostname"));
      assertEquals(3600, renewed.getJsonObject("spec").getInteger("leaseDurationSeconds"));
      assertNotEquals("2026-01-01T00:00:00.000000Z", renewed.getJsonObject("spec").getString("renewTime"));
      assertEquals("2026-01-01T00:00:00.000000Z", stored.getJsonObject("spec").getString("renewTime"),
          "the base is not changed");
    } finally {
      vertx.close();
    }
  }
}
