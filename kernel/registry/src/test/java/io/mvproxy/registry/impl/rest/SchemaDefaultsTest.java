package io.mvproxy.registry.impl.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.mvproxy.registry.impl.CrdManifests;
import io.mvproxy.registry.impl.model.CrdDefinition;
import io.mvproxy.registry.impl.model.CrdParser;
import io.mvproxy.registry.impl.model.CrdVersion;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Objects read from storage are answered pruned and defaulted with their stored version's schema, on a copy: the
 * stored object (possibly shared, as the watch cache's are) is never changed, whichever entry point prepares it.
 */
@Tag("unit")
class SchemaDefaultsTest {
  private static final CrdDefinition CRD = CrdParser.parse(CrdManifests.read(
      Path.of("src/test/resources/schema-crds/features-crd.yaml")).get(0));
  private static final CrdVersion V1 = CRD.served("v1").orElseThrow();

  private static JsonObject stored() {
    return new JsonObject().put("apiVersion", "fidelity.mvproxy.io/v1").put("kind", "Probe")
        .put("metadata", new JsonObject().put("name", "p1").put("namespace", "default").put("resourceVersion", "7"))
        .put("spec", new JsonObject().put("min", 1).put("unknownField", 1).put("strict", null));
  }

  private static void prunedAndDefaulted(JsonObject o) {
    JsonObject spec = o.getJsonObject("spec");
    assertEquals("Open", spec.getString("mode"), "defaulted");
    assertFalse(spec.containsKey("unknownField"), "pruned");
    assertFalse(spec.containsKey("strict"), "non-nullable null pruned");
    assertEquals(1, spec.getInteger("min"));
  }

  @Test
  void theRequestsCopyIsPreparedAndTheStoredObjectStaysAsItWas() {
    CrdRequest req = new CrdRequest(null, null, null, CRD, V1, ObjectStrategy.NONE);
    JsonObject shared = stored();
    for (JsonObject out : new JsonObject[] {req.stored(shared), req.view(shared)}) {
      assertEquals(stored(), shared, "the stored object is not changed");
      assertNotSame(shared, out);
      assertNotSame(shared.getJsonObject("spec"), out.getJsonObject("spec"), "a deep copy");
      prunedAndDefaulted(out);
      out.getJsonObject("metadata").put("name", "changed");
      assertEquals("p1", shared.getJsonObject("metadata").getString("name"));
    }
  }

  @Test
  void storedCopiesAndStoredInPlaceChangesItsArgument() {
    JsonObject shared = stored();
    JsonObject copy = SchemaDefaults.stored(CRD, V1, shared);
    assertEquals(stored(), shared);
    prunedAndDefaulted(copy);
    JsonObject own = stored();
    assertSame(own, SchemaDefaults.storedInPlace(CRD, V1, own));
    assertEquals(copy, own);
  }
}
