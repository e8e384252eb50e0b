package io.mvproxy.registry.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** YAML as Kubernetes reads it: aliases resolved, alias bombs and duplicate keys refused, timestamps as strings. */
@Tag("unit")
class YamlDocumentsTest {
  @Test
  void aliasesAreResolved() {
    List<Object> docs = YamlDocuments.read("a: &a x\nb: [*a]\nc: &m {k: 1}\nd: *m\n---\n---\ne: 2020-01-01T00:00:00Z\n",
        YamlDocuments.Limits.REQUEST);
    assertEquals(2, docs.size());
    JsonObject o = (JsonObject) docs.get(0);
    assertEquals(new JsonArray().add("x"), o.getJsonArray("b"));
    assertEquals(new JsonObject().put("k", 1L), o.getJsonObject("d"));
    assertEquals("2020-01-01T00:00:00Z", ((JsonObject) docs.get(1)).getString("e"));
  }

  @Test
  void bombsDuplicatesAndInfinityAreRefused() {
    StringBuilder b = new StringBuilder("a: &a [x,x,x,x,x,x,x,x]\n");
    for (char c = 'b', p = 'a'; c <= 'h'; p = c, c++) {
      b.append(c).append(": &").append(c).append(" [").append(("*" + p + ",").repeat(8)).append("*").append(p)
          .append("]\n");
    }
    IllegalArgumentException bomb = assertThrows(IllegalArgumentException.class,
        () -> YamlDocuments.read(b.toString(), YamlDocuments.Limits.REQUEST));
    assertTrue(bomb.getMessage().contains("Number of aliases for non-scalar nodes exceeds the specified max=50"),
        bomb.getMessage());
    IllegalArgumentException dup = assertThrows(IllegalArgumentException.class,
        () -> YamlDocuments.read("a: 1\na: 2\n", YamlDocuments.Limits.REQUEST));
    assertTrue(dup.getMessage().contains("duplicate key a"), dup.getMessage());
    assertThrows(IllegalArgumentException.class, () -> YamlDocuments.read("a: .inf\n", YamlDocuments.Limits.REQUEST));
  }
}
