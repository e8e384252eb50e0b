package io.mvproxy.crd;

import io.mvproxy.registry.impl.CrdManifests;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.StatusException;
import io.mvproxy.registry.impl.rest.Ages;
import io.mvproxy.registry.impl.rest.LabelSelector;
import io.mvproxy.registry.impl.rest.MediaView;
import io.mvproxy.registry.impl.rest.PatchApplier;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Small pure pieces: ages, selectors, Accept negotiation, merge patch, multi-document YAML. */
@Tag("unit")
class UnitsTest {
  @Test
  void agesAsKubectlPrintsThem() {
    assertEquals("0s", Ages.human(Duration.ofMillis(-500)));
    assertEquals("<invalid>", Ages.human(Duration.ofSeconds(-5)));
    assertEquals("45s", Ages.human(Duration.ofSeconds(45)));
    assertEquals("119s", Ages.human(Duration.ofSeconds(119)));
    assertEquals("5m", Ages.human(Duration.ofMinutes(5)));
    assertEquals("5m10s", Ages.human(Duration.ofSeconds(310)));
    assertEquals("42m", Ages.human(Duration.ofMinutes(42)));
    assertEquals("3h", Ages.human(Duration.ofHours(3)));
    assertEquals("3h5m", Ages.human(Duration.ofMinutes(185)));
    assertEquals("20h", Ages.human(Duration.ofHours(20)));
    assertEquals("2d", Ages.human(Duration.ofDays(2)));
    assertEquals("2d5h", Ages.human(Duration.ofHours(53)));
    assertEquals("30d", Ages.human(Duration.ofDays(30)));
    assertEquals("3y", Ages.human(Duration.ofDays(365 * 3)));
    assertEquals("<unknown>", Ages.since("garbage", java.time.Instant.now()));
  }

  @Test
  void labelSelectors() {
    JsonObject o = new JsonObject().put("metadata", new JsonObject().put("labels",
        new JsonObject().put("app", "web").put("tier", "front")));
    assertTrue(LabelSelector.parse("app=web,tier in (front, back)").matches(o));
    assertTrue(LabelSelector.parse("app,!missing,env notin (prod)").matches(o));
    assertFalse(LabelSelector.parse("app!=web").matches(o));
    assertTrue(LabelSelector.parse("").isEmpty());
    assertThrows(StatusException.class, () -> LabelSelector.parse("a=b=c"));
  }

  @Test
  void acceptNegotiation() {
    assertTrue(MediaView.of("application/json;as=Table;v=v1;g=meta.k8s.io,application/json").table());
    assertEquals("v1beta1", MediaView.of("application/json;as=Table;v=v1beta1;g=meta.k8s.io").version());
    assertFalse(MediaView.of("application/json").table());
    assertFalse(MediaView.of(null).table());
    assertFalse(MediaView.of("application/json;as=Table;v=v2;g=meta.k8s.io,application/json").table());
    assertTrue(MediaView.of("application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,"
        + "application/json;as=Table;v=v1;g=meta.k8s.io").table());
  }

  @Test
  void mergePatchRfc7386() {
    JsonObject t = new JsonObject("{\"a\":\"b\",\"c\":{\"d\":\"e\",\"f\":\"g\"},\"l\":[1,2]}");
    JsonObject p = new JsonObject("{\"a\":\"z\",\"c\":{\"f\":null},\"l\":[3],\"n\":{\"x\":1}}");
    assertEquals(new JsonObject("{\"a\":\"z\",\"c\":{\"d\":\"e\"},\"l\":[3],\"n\":{\"x\":1}}"),
        PatchApplier.merge(t, p));
    assertThrows(StatusException.class, () -> PatchApplier.type("application/strategic-merge-patch+json"));
    assertEquals(PatchApplier.Type.MERGE, PatchApplier.type("application/merge-patch+json; charset=utf-8"));
  }

  @Test
  void multiDocumentYaml() {
    List<JsonObject> docs = CrdManifests.parse("---\n# comment\na: 1\n---\n---\nb: [x, y]\n");
    assertEquals(2, docs.size());
    assertEquals(1, docs.get(0).getInteger("a"));
    assertEquals("y", docs.get(1).getJsonArray("b").getString(1));
    assertThrows(IllegalArgumentException.class, () -> CrdManifests.parse("- a\n- b\n"));
    assertThrows(IllegalArgumentException.class, () -> CrdManifests.parse("a: [\n"));
  }
}
