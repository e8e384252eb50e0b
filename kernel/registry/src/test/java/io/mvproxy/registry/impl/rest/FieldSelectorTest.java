package io.mvproxy.registry.impl.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.StatusException;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class FieldSelectorTest {
  static final JsonObject EVENT = new JsonObject("{\"metadata\":{\"name\":\"e1\",\"namespace\":\"default\"},"
      + "\"involvedObject\":{\"kind\":\"ConfigMap\",\"name\":\"c1\",\"uid\":\"u-1\"},\"source\":{\"component\":"
      + "\"kubelet\"},\"type\":\"Warning\",\"count\":3}");
  static final Map<String, String> EVENT_FIELDS = Map.of("involvedObject.kind", "involvedObject.kind",
      "involvedObject.name", "involvedObject.name", "involvedObject.uid", "involvedObject.uid",
      "source", "source.component", "type", "type", "involvedObject.fieldPath", "involvedObject.fieldPath");

  @Test
  void customResourcesSelectByNameAndNamespaceOnly() {
    assertTrue(FieldSelector.parse("metadata.name=e1,metadata.namespace==default").matches(EVENT));
    assertFalse(FieldSelector.parse("metadata.name!=e1").matches(EVENT));
    StatusException e = assertThrows(StatusException.class, () -> FieldSelector.parse("spec.x=1"));
    assertEquals(400, e.code());
    assertEquals("\"spec.x\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"",
        e.getMessage());
  }

  @Test
  void builtInKindsSelectByTheirFields() {
    assertTrue(FieldSelector.parse("involvedObject.kind=ConfigMap,involvedObject.uid=u-1,involvedObject.name=c1,"
        + "metadata.namespace=default", EVENT_FIELDS).matches(EVENT));
    assertFalse(FieldSelector.parse("involvedObject.name=c2", EVENT_FIELDS).matches(EVENT));
    assertTrue(FieldSelector.parse("source=kubelet,type!=Normal", EVENT_FIELDS).matches(EVENT));
    assertTrue(FieldSelector.parse("involvedObject.fieldPath=", EVENT_FIELDS).matches(EVENT), "absent is empty");
    StatusException e = assertThrows(StatusException.class, () -> FieldSelector.parse("count=3", EVENT_FIELDS));
    assertEquals("field label not supported: count", e.getMessage());
    assertEquals(400, e.code());
  }
}
