package io.mvproxy.controllers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** The decisions as data: what an owner read means, what discovery yields. */
@Tag("unit")
class DecisionsTest {
  private static final OwnerReference REF = new OwnerReference("demo.mvproxy.io/v2", "Gadget", "g1", "uid-1", true);

  static Stream<Arguments> ownerReads() {
    JsonObject same = new JsonObject().put("metadata", new JsonObject().put("name", "g1").put("uid", "uid-1"));
    JsonObject other = new JsonObject().put("metadata", new JsonObject().put("name", "g1").put("uid", "uid-2"));
    JsonObject foreground = new JsonObject().put("metadata", new JsonObject().put("name", "g1").put("uid", "uid-1")
        .put("deletionTimestamp", "2026-01-01T00:00:00Z").put("finalizers", new JsonArray().add("foregroundDeletion")));
    JsonObject objectNotFound = new JsonObject().put("kind", "Status").put("reason", "NotFound")
        .put("message", "gadgets.demo.mvproxy.io \"g1\" not found")
        .put("details", new JsonObject().put("name", "g1").put("group", "demo.mvproxy.io").put("kind", "gadgets"));
    JsonObject routeNotFound = new JsonObject().put("kind", "Status").put("reason", "NotFound")
        .put("message", "the server could not find the requested resource").put("details", new JsonObject());
    JsonObject stale = new JsonObject().put("kind", "Status").put("reason", "ServiceUnavailable")
        .put("message", "the peer serving demo.mvproxy.io/v2 left the fleet");
    return Stream.of(
        Arguments.of(new ApiResponse(200, same, null), OwnerState.Solid.class),
        Arguments.of(new ApiResponse(200, other, null), OwnerState.Dangling.class),
        Arguments.of(new ApiResponse(200, foreground, null), OwnerState.Waiting.class),
        Arguments.of(new ApiResponse(404, objectNotFound, null), OwnerState.Dangling.class),
        Arguments.of(new ApiResponse(404, routeNotFound, null), OwnerState.Unknown.class),
        Arguments.of(new ApiResponse(503, stale, null), OwnerState.Unknown.class),
        Arguments.of(new ApiResponse(403, new JsonObject(), null), OwnerState.Unknown.class),
        Arguments.of(new ApiResponse(0, new JsonObject(), "Connection refused"), OwnerState.Unknown.class));
  }

  @ParameterizedTest
  @MethodSource("ownerReads")
  void ownerRead(ApiResponse r, Class<? extends OwnerState> expected) {
    assertInstanceOf(expected, OwnerState.of(r, REF));
  }

  /**
   * Upstream's rule (the gate off): any 404 makes the owner absent, the route's "could not find the requested
   * resource" of a server lacking the owner's resource included; every other answer decides as mvproxy's rule.
   */
  @ParameterizedTest
  @MethodSource("ownerReads")
  void ownerReadByUpstreamsRule(ApiResponse r, Class<? extends OwnerState> expected) {
    Class<? extends OwnerState> want = r.status() == 404 ? OwnerState.Dangling.class : expected;
    assertInstanceOf(want, OwnerState.of(r, REF, true));
  }

  @Test
  void staleVersionsAreFailuresAndPreferredComesFirst() {
    JsonObject apis = new JsonObject().put("kind", "APIGroupDiscoveryList").put("items", new JsonArray()
        .add(group("demo.mvproxy.io", version("v2", "Current", res("widgets", "Widget", true, "list", "delete")),
            version("v1", "Current", res("widgets", "Widget", true, "list", "delete", "deletecollection"),
                res("things", "Thing", false, "list", "delete"))))
        .add(group("sprockets.mvproxy.io", version("v1", "Stale", res("sprockets", "Sprocket", true, "list")))));
    JsonObject core = new JsonObject().put("items", new JsonArray().add(group("",
        version("v1", "Current", res("configmaps", "ConfigMap", true, "list", "delete", "deletecollection"),
            res("namespaces", "Namespace", false, "list", "get")))));
    Discovered d = FleetDiscovery.parse(new ApiResponse(200, core, null), new ApiResponse(200, apis, null));
    assertEquals(List.of("configmaps", "widgets.demo.mvproxy.io"),
        d.preferred(true, "delete").stream().map(ApiResource::groupResource).toList());
    assertEquals("v2", d.preferred(true, "delete").get(1).version());
    assertEquals(List.of("sprockets.mvproxy.io/v1"), List.copyOf(d.failed().keySet()));
    assertEquals("unable to retrieve the complete list of server APIs: sprockets.mvproxy.io/v1: stale GroupVersion "
        + "discovery: sprockets.mvproxy.io/v1", d.failureText());
    assertEquals("/apis/demo.mvproxy.io/v1/namespaces/ns1/widgets/w",
        d.resourceFor("demo.mvproxy.io/v1", "Widget").orElseThrow().objectPath("ns1", "w"));
    assertEquals("/apis/demo.mvproxy.io/v1/things/t",
        d.resourceFor("demo.mvproxy.io/v1", "Thing").orElseThrow().objectPath("ns1", "t"));
    assertEquals("/api/v1/namespaces/ns1/configmaps", d.resourceFor("v1", "ConfigMap").orElseThrow()
        .collectionPath("ns1"));
    assertEquals(true, d.resourceFor("sprockets.mvproxy.io/v1", "Sprocket").isEmpty());
    assertNull(FleetDiscovery.parse(new ApiResponse(200, core, null), new ApiResponse(200, new JsonObject(), null))
        .failureText());
  }

  @Test
  void backoffDoublesUpToItsCap() {
    Backoff b = new Backoff(java.time.Duration.ofMillis(5), java.time.Duration.ofSeconds(60));
    assertEquals(5, b.delayMs(0));
    assertEquals(40, b.delayMs(3));
    assertEquals(60_000, b.delayMs(30));
  }

  private static JsonObject group(String name, JsonObject... versions) {
    JsonArray vs = new JsonArray();
    for (JsonObject v : versions) {
      vs.add(v);
    }
    return new JsonObject().put("metadata", new JsonObject().put("name", name)).put("versions", vs);
  }

  private static JsonObject version(String v, String freshness, JsonObject... resources) {
    JsonArray rs = new JsonArray();
    for (JsonObject r : resources) {
      rs.add(r);
    }
    return new JsonObject().put("version", v).put("freshness", freshness).put("resources", rs);
  }

  private static JsonObject res(String plural, String kind, boolean namespaced, String... verbs) {
    return new JsonObject().put("resource", plural).put("responseKind", new JsonObject().put("kind", kind))
        .put("scope", namespaced ? "Namespaced" : "Cluster").put("verbs", new JsonArray(List.of(verbs)));
  }
}
