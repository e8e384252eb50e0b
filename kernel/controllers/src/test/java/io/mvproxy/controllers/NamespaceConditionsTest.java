package io.mvproxy.controllers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class NamespaceConditionsTest {
  private static JsonObject byType(JsonArray a, String type) {
    for (Object o : a) {
      if (type.equals(((JsonObject) o).getString("type"))) {
        return (JsonObject) o;
      }
    }
    throw new AssertionError(type + " missing from " + a);
  }

  @Test
  void allFineWhenNothingFailed() {
    JsonArray c = new NamespaceConditions().conditions(null, Instant.parse("2026-01-01T00:00:00Z"));
    assertEquals(5, c.size());
    assertEquals(NamespaceConditions.TYPES, c.stream().map(o -> ((JsonObject) o).getString("type")).toList());
    JsonObject content = byType(c, "NamespaceDeletionContentFailure");
    assertEquals("False", content.getString("status"));
    assertEquals("ContentDeleted", content.getString("reason"));
    assertEquals("All content successfully deleted, may be waiting on finalization", content.getString("message"));
    assertEquals("2026-01-01T00:00:00Z", content.getString("lastTransitionTime"));
  }

  @Test
  void failuresAsUpstreamWordsThem() {
    NamespaceConditions n = new NamespaceConditions();
    Discovered d = new Discovered(java.util.List.of(), Map.of("sprockets.mvproxy.io/v1",
        "stale GroupVersion discovery: sprockets.mvproxy.io/v1"));
    n.discoveryFailed(1, d.failureText());
    n.contentFailed("b failed");
    n.contentFailed("a failed");
    n.remaining("widgets.demo.mvproxy.io", 2, Map.of("example.com/hold", 2));
    n.remaining("configmaps", 1, Map.of());
    JsonArray c = n.conditions(null, Instant.now());
    assertEquals("Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: "
        + "sprockets.mvproxy.io/v1: stale GroupVersion discovery: sprockets.mvproxy.io/v1",
        byType(c, "NamespaceDeletionDiscoveryFailure").getString("message"));
    assertEquals("DiscoveryFailed", byType(c, "NamespaceDeletionDiscoveryFailure").getString("reason"));
    assertEquals("Failed to delete all resource types, 2 remaining: [a failed, b failed]",
        byType(c, "NamespaceDeletionContentFailure").getString("message"));
    assertEquals("Some resources are remaining: configmaps has 1 resource instances, widgets.demo.mvproxy.io has 2 "
        + "resource instances", byType(c, "NamespaceContentRemaining").getString("message"));
    assertEquals("Some finalizers are remaining: example.com/hold in 2 resource instances",
        byType(c, "NamespaceFinalizersRemaining").getString("message"));
    assertEquals("SomeFinalizerRemain", byType(c, "NamespaceFinalizersRemaining").getString("reason"));
    assertEquals("False", byType(c, "NamespaceDeletionGroupVersionParsingFailure").getString("status"));
  }

  @Test
  void transitionTimeKeptWhileStatusStays() {
    NamespaceConditions failing = new NamespaceConditions();
    failing.contentFailed("x");
    JsonArray first = failing.conditions(null, Instant.parse("2026-01-01T00:00:00Z"));
    NamespaceConditions again = new NamespaceConditions();
    again.contentFailed("y");
    JsonArray second = again.conditions(first, Instant.parse("2026-01-01T00:05:00Z"));
    assertEquals("2026-01-01T00:00:00Z", byType(second, "NamespaceDeletionContentFailure").getString("lastTransitionTime"));
    JsonArray fine = new NamespaceConditions().conditions(second, Instant.parse("2026-01-01T00:09:00Z"));
    assertEquals("2026-01-01T00:09:00Z", byType(fine, "NamespaceDeletionContentFailure").getString("lastTransitionTime"));
    assertEquals("2026-01-01T00:00:00Z", byType(fine, "NamespaceContentRemaining").getString("lastTransitionTime"));
  }
}
