package io.mvproxy.registry.impl.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** CRD status helpers: conditions as apihelpers, the naming controller's verdicts, storedVersions rules. */
@Tag("unit")
class CrdConditionsTest {
  static JsonObject crd(String group, String plural, String kind, String... shortNames) {
    JsonObject names = new JsonObject().put("plural", plural).put("kind", kind);
    if (shortNames.length > 0) {
      names.put("shortNames", new JsonArray(List.of((Object[]) shortNames)));
    }
    return new JsonObject().put("metadata", new JsonObject().put("name", plural + "." + group))
        .put("spec", new JsonObject().put("group", group).put("names", names).put("versions", new JsonArray()
            .add(new JsonObject().put("name", "v1").put("served", true).put("storage", true))));
  }

  @Test
  void setKeepsTheTransitionTimeWhileTheStatusStays() {
    JsonObject c = crd("example.com", "foos", "Foo");
    CrdConditions.set(c, "Established", "False", "Installing", "a", "2026-01-01T00:00:00Z");
    CrdConditions.set(c, "Established", "False", "Installing", "b", "2026-01-01T00:00:05Z");
    assertEquals("2026-01-01T00:00:00Z", CrdConditions.find(c, "Established").getString("lastTransitionTime"));
    assertEquals("b", CrdConditions.find(c, "Established").getString("message"));
    CrdConditions.set(c, "Established", "True", "InitialNamesAccepted", "c", "2026-01-01T00:00:09Z");
    assertEquals("2026-01-01T00:00:09Z", CrdConditions.find(c, "Established").getString("lastTransitionTime"));
    assertTrue(CrdConditions.isTrue(c, "Established"));
    assertEquals(1, c.getJsonObject("status").getJsonArray("conditions").size());
  }

  @Test
  void namesConflictWithinTheGroupOnly() {
    CrdConditions.Names foo = CrdConditions.names(crd("example.com", "foos", "Foo", "fo"));
    assertEquals("foo", foo.singular());
    assertEquals("FooList", foo.listKind());
    assertArrayEquals(new String[] {"True", "NoConflicts", "no conflicts found"},
        CrdConditions.namesAccepted(foo, List.of(CrdConditions.names(crd("other.com", "foos", "Foo")))));
    assertArrayEquals(new String[] {"False", "PluralConflict", "\"foos\" is already in use"},
        CrdConditions.namesAccepted(foo, List.of(CrdConditions.names(crd("example.com", "bars", "Bar", "foos")))));
    assertArrayEquals(new String[] {"False", "ShortNamesConflict", "\"fo\" is already in use"},
        CrdConditions.namesAccepted(foo, List.of(CrdConditions.names(crd("example.com", "fo", "Bar")))));
    assertArrayEquals(new String[] {"False", "KindConflict", "\"Foo\" is already in use"},
        CrdConditions.namesAccepted(foo, List.of(new CrdConditions.Names("example.com", "bars", "bar", List.of(),
            "Foo", "BarList"))));
  }

  @Test
  void storedVersionsNeedTheStorageVersionAndKnownVersions() {
    JsonObject c = CrdConditions.addStorageVersion(crd("example.com", "foos", "Foo"));
    assertEquals(List.of("v1"), CrdConditions.storedVersions(c));
    assertEquals(List.of(), CrdConditions.storedVersionProblems(c));
    c.getJsonObject("status").put("storedVersions", new JsonArray());
    assertEquals("Invalid value: \"null\": must have at least one stored version",
        CrdConditions.storedVersionProblems(c).get(0).getString("message"));
    c.getJsonObject("status").put("storedVersions", new JsonArray().add("v0"));
    assertEquals(2, CrdConditions.storedVersionProblems(c).size());
  }
}
