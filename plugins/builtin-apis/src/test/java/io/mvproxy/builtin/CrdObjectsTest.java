package io.mvproxy.builtin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The fleet's stored CRD as the union of what each node loaded (mixed versions), and withdrawal. */
@Tag("unit")
class CrdObjectsTest {
  static JsonObject crd(String... versions) {
    JsonArray vs = new JsonArray();
    for (int i = 0; i < versions.length; i++) {
      vs.add(new JsonObject().put("name", versions[i]).put("served", true).put("storage", i == versions.length - 1)
          .put("schema", new JsonObject().put("openAPIV3Schema", new JsonObject().put("type", "object"))));
    }
    return new JsonObject().put("apiVersion", "apiextensions.k8s.io/v1").put("kind", "CustomResourceDefinition")
        .put("metadata", new JsonObject().put("name", "widgets.demo.io")).put("spec", new JsonObject()
            .put("group", "demo.io").put("scope", "Namespaced").put("names", new JsonObject().put("plural", "widgets")
                .put("kind", "Widget")).put("versions", vs));
  }

  static List<String> names(JsonObject o, String field) {
    return o.getJsonObject("spec").getJsonArray("versions").stream()
        .map(v -> String.valueOf(((JsonObject) v).getValue(field))).toList();
  }

  @Test
  void mixedVersionsMergeAndWithdraw() {
    JsonObject a = CrdObjects.merge(null, "node-a", crd("v1"), "2026-01-01T00:00:00Z");
    assertEquals("WidgetList", a.getJsonObject("spec").getJsonObject("names").getString("listKind"));
    assertEquals("widget", a.getJsonObject("spec").getJsonObject("names").getString("singular"));
    assertEquals("None", a.getJsonObject("spec").getJsonObject("conversion").getString("strategy"));
    assertEquals(List.of("v1"), a.getJsonObject("status").getJsonArray("storedVersions").getList());
    assertEquals("True", a.getJsonObject("status").getJsonArray("conditions").getJsonObject(1).getString("status"));
    JsonObject ab = CrdObjects.merge(a, "node-b", crd("v2", "v1"), "2026-01-01T00:01:00Z");
    assertEquals(List.of("v2", "v1"), names(ab, "name"));
    assertEquals(List.of("true", "true"), names(ab, "served"));
    assertEquals(List.of("false", "true"), names(ab, "storage"));
    assertEquals(Map.of("node-a", List.of("v1"), "node-b", List.of("v2", "v1")), CrdObjects.servedBy(ab));
    assertEquals(2L, ab.getJsonObject("metadata").getLong("generation"));
    assertEquals(ab, CrdObjects.merge(ab, "node-b", crd("v2", "v1"), "2026-01-01T00:02:00Z"), "idempotent");
    JsonObject a2 = CrdObjects.merge(ab, "node-a", crd("v1"), "2026-01-01T00:03:00Z");
    assertEquals(List.of("v1", "v2"), names(a2, "name"), "node-a's definition first, node-b's v2 kept");
    JsonObject onlyA = CrdObjects.withdraw(ab, "node-b");
    assertEquals(List.of("v1"), names(onlyA, "name"), "v2 no longer served by any node");
    assertEquals(List.of("v1"), onlyA.getJsonObject("status").getJsonArray("storedVersions").getList());
    assertSame(onlyA, CrdObjects.withdraw(onlyA, "node-c"));
    assertNull(CrdObjects.withdraw(onlyA, "node-a"), "no node serves it: delete");
  }
}
