package io.mvproxy.registry.impl.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Go's fmt verbs over unstructured values: {@code %#v} (field errors) and {@code %v} (patch.go's patch map). */
@Tag("unit")
class GoValuesTest {
  static final JsonObject VALUE = new JsonObject("{\"b\":[1,\"x y\",null,1.5],\"a\":{\"n\":true,\"f\":1e6}}");

  @Test
  void sharpV() {
    assertEquals("map[string]interface {}{\"a\":map[string]interface {}{\"f\":1e+06, \"n\":true}, "
        + "\"b\":[]interface {}{1, \"x y\", interface {}(nil), 1.5}}", GoValues.goSyntax(VALUE));
  }

  @Test
  void plainV() {
    assertEquals("map[a:map[f:1e+06 n:true] b:[1 x y <nil> 1.5]]", GoValues.plain(VALUE));
  }
}
