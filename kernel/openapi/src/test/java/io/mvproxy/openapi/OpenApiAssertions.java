package io.mvproxy.openapi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Structural checks of OpenAPI documents shared by the tests. */
final class OpenApiAssertions {
  private OpenApiAssertions() {
  }

  /** Every {@code $ref} under {@code doc} points to an existing entry of {@code defs} (prefix {@code prefix}). */
  static void refsResolve(Object doc, JsonObject defs, String prefix) {
    List<String> refs = new ArrayList<>();
    collect(doc, "$ref", refs);
    assertFalse(refs.isEmpty(), "no $ref at all");
    for (String r : refs) {
      assertTrue(r.startsWith(prefix), "reference " + r + " does not start with " + prefix);
      assertTrue(defs.containsKey(r.substring(prefix.length())), "unresolved reference " + r);
    }
  }

  /**
   * The constraints kubectl 1.27/1.28 put on /openapi/v2 definitions ({@code kube-openapi/pkg/util/proto}
   * {@code NewOpenAPIData}): a {@code $ref} has neither type nor properties, arrays have items, one type at most, no
   * v3-only keywords.
   */
  static void kubectlV2Parsable(String path, Object node) {
    if (node instanceof JsonObject o) {
      if (o.containsKey("$ref")) {
        assertFalse(o.containsKey("type") || o.containsKey("properties"), path + ": $ref with type/properties");
      }
      if ("array".equals(o.getValue("type"))) {
        assertTrue(o.getValue("items") instanceof JsonObject, path + ": array without items");
      }
      assertFalse(o.getValue("type") instanceof JsonArray, path + ": multiple types");
      for (String k : List.of("allOf", "anyOf", "oneOf", "not", "nullable")) {
        assertFalse(o.containsKey(k), path + ": v3-only keyword " + k);
      }
      for (Map.Entry<String, Object> e : o) {
        if (!e.getKey().startsWith("x-kubernetes")) {
          kubectlV2Parsable(path + "/" + e.getKey(), e.getValue());
        }
      }
    } else if (node instanceof JsonArray a) {
      for (int i = 0; i < a.size(); i++) {
        kubectlV2Parsable(path + "/" + i, a.getValue(i));
      }
    }
  }

  /**
   * Every PATCH operation for the GVK carries the GVK as an object and an inline {@code fieldValidation} query
   * parameter (kubectl's {@code supportsQueryParamV3} / v2 {@code SupportsQueryParam}); at least one exists.
   */
  static void patchHasFieldValidation(JsonObject paths, String group, String version, String kind) {
    int found = 0;
    for (Map.Entry<String, Object> e : paths) {
      JsonObject patch = ((JsonObject) e.getValue()).getJsonObject("patch");
      if (patch == null) {
        continue;
      }
      Object gvk = patch.getValue("x-kubernetes-group-version-kind");
      if (!(gvk instanceof JsonObject g)) {
        fail(e.getKey() + ": PATCH gvk is not an object: " + gvk);
        return;
      }
      if (!g.getString("kind").equals(kind) || !g.getString("group").equals(group)
          || !g.getString("version").equals(version)) {
        continue;
      }
      boolean fv = false;
      for (Object p : patch.getJsonArray("parameters")) {
        JsonObject po = (JsonObject) p;
        fv |= "fieldValidation".equals(po.getString("name")) && "query".equals(po.getString("in"));
      }
      assertTrue(fv, e.getKey() + ": PATCH without fieldValidation");
      found++;
    }
    assertTrue(found > 0, "no PATCH operation for " + kind);
  }

  private static void collect(Object node, String key, List<String> into) {
    if (node instanceof JsonObject o) {
      for (Map.Entry<String, Object> e : o) {
        if (key.equals(e.getKey()) && e.getValue() instanceof String s) {
          into.add(s);
        } else {
          collect(e.getValue(), key, into);
        }
      }
    } else if (node instanceof JsonArray a) {
      a.forEach(v -> collect(v, key, into));
    }
  }

  /** @return the {@code x-kubernetes-group-version-kind} array of a schema (asserted to be an array) */
  static JsonArray gvkArray(JsonObject schema) {
    Object g = schema.getValue("x-kubernetes-group-version-kind");
    assertNotNull(g, "schema without x-kubernetes-group-version-kind");
    assertTrue(g instanceof JsonArray, "gvk on a schema must be an array: " + g);
    return (JsonArray) g;
  }
}
