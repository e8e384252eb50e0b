package io.mvproxy.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.registry.impl.model.CrdDefinition;
import io.mvproxy.registry.impl.model.CrdParser;
import io.mvproxy.testkit.TestSourceContext;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The registry's public API: a {@link KindDefinition} as the registry reads it, and {@link Registry#serve}. */
@Tag("unit")
class RegistryTest {
  final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close();
  }

  static KindDefinition.Builder gauges() {
    return KindDefinition.builder("metrics.example.com", "v1", "Gauge", "gauges")
        .schema(new JsonObject("{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":"
            + "{\"value\":{\"type\":\"integer\",\"default\":0}}}}}"));
  }

  @Test
  void definitionIsReadAsAOneVersionCrd() {
    KindDefinition d = gauges().namespaced(false).shortNames("gg").categories("all").statusSubresource()
        .column("Value", "integer", ".spec.value").build();
    CrdDefinition crd = CrdParser.parse(d.toCustomResourceDefinition());
    assertEquals("gauges.metrics.example.com", crd.name());
    assertEquals("gauge", crd.singular());
    assertEquals("GaugeList", crd.listKind());
    assertEquals(List.of("gg"), crd.shortNames());
    assertTrue(!crd.namespaced());
    assertTrue(crd.storageVersion().statusEnabled());
    assertEquals("Value", crd.storageVersion().columns().get(0).name());
  }

  @Test
  void serveChecksTheDefinitionWithTheCrdRules() {
    KindDefinition bad = KindDefinition.builder("nodot", "v1", "Gauge", "Gauges")
        .schema(new JsonObject().put("type", "object")).build();
    StatusException e = assertThrows(StatusException.class,
        () -> Registry.serve(bad, KindStrategy.NONE, new TestSourceContext(vertx, null, "t")));
    assertEquals(422, e.code());
    assertTrue(e.getMessage().contains("spec.group: Invalid value: \"nodot\": should be a domain with at least one dot"),
        e.getMessage());
    assertTrue(e.getMessage().contains("spec.names.plural"), e.getMessage());
    assertThrows(IllegalStateException.class, () -> KindDefinition.builder("a.b", "v1", "A", "as").build());
  }

  @Test
  void servedKindIsListedWithTheStrategysVerbsAndIsNotACrd() {
    KindStrategy readOnly = new KindStrategy() {
      @Override
      public boolean allowsVerb(String verb) {
        return List.of("get", "list", "watch").contains(verb);
      }
    };
    ApiSource s = Registry.serve(gauges().build(), readOnly, new TestSourceContext(vertx, null, "t"));
    assertEquals("kind/gauges.metrics.example.com", s.name());
    assertTrue(s.customResourceDefinition().isEmpty());
    DiscoveryResource r = s.groupVersions().get(0).resources().get(0);
    assertEquals(new GroupVersion("metrics.example.com", "v1"), s.groupVersions().get(0).groupVersion());
    assertEquals("gauges", r.resource());
    assertEquals(List.of("get", "list", "watch"), r.verbs());
    assertTrue(s.openApiV3(new GroupVersion("metrics.example.com", "v1")).encode().contains("Gauge"));
  }
}
