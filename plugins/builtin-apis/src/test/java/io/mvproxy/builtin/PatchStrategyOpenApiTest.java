package io.mvproxy.builtin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.mvproxy.openapi.CrdOpenApi;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The built-ins' OpenAPI advertises strategic merge patch as kube-apiserver's does. */
@Tag("unit")
class PatchStrategyOpenApiTest {
  static JsonObject fragment(String key, boolean v2) {
    CrdOpenApi oa = new CrdOpenApi(BuiltinKinds.manifest(key));
    return PatchStrategyOpenApi.advertise(v2 ? oa.v2("v1") : oa.v3("v1"), key, v2);
  }

  @Test
  void patchOperationsListStrategicMergePatchInKubesOrder() {
    JsonObject v2 = fragment("namespaces", true);
    JsonObject op = v2.getJsonObject("paths").getJsonObject("/api/v1/namespaces/{name}").getJsonObject("patch");
    assertEquals(new JsonArray().add("application/apply-patch+yaml").add("application/json-patch+json")
        .add("application/merge-patch+json").add(PatchStrategyOpenApi.STRATEGIC), op.getJsonArray("consumes"));
    JsonObject v3 = fragment("configmaps", false);
    JsonObject content = v3.getJsonObject("paths").getJsonObject("/api/v1/namespaces/{namespace}/configmaps/{name}")
        .getJsonObject("patch").getJsonObject("requestBody").getJsonObject("content");
    assertEquals("[application/apply-patch+yaml, application/json-patch+json, application/merge-patch+json, "
        + PatchStrategyOpenApi.STRATEGIC + "]", content.fieldNames().toString());
    assertEquals(content.getJsonObject("application/merge-patch+json"), content.getJsonObject(PatchStrategyOpenApi.STRATEGIC));
  }

  @Test
  void taggedListsCarryTheirPatchStrategyAndMergeKey() {
    for (boolean v2 : new boolean[] {true, false}) {
      JsonObject ns = schema(fragment("namespaces", v2), v2, "io.k8s.api.core.v1.Namespace");
      JsonObject conditions = ns.getJsonObject("properties").getJsonObject("status").getJsonObject("properties")
          .getJsonObject("conditions");
      assertEquals("merge", conditions.getString("x-kubernetes-patch-strategy"));
      assertEquals("type", conditions.getString("x-kubernetes-patch-merge-key"));
      JsonObject sa = schema(fragment("serviceaccounts", v2), v2, "io.k8s.api.core.v1.ServiceAccount");
      JsonObject secrets = sa.getJsonObject("properties").getJsonObject("secrets");
      assertEquals("name", secrets.getString("x-kubernetes-patch-merge-key"));
      JsonObject imagePullSecrets = sa.getJsonObject("properties").getJsonObject("imagePullSecrets");
      assertFalse(imagePullSecrets.containsKey("x-kubernetes-patch-strategy"), "untagged: replaced whole");
    }
    assertNull(PatchStrategyOpenApi.advertise(null, "namespaces", true));
  }

  static JsonObject schema(JsonObject fragment, boolean v2, String name) {
    JsonObject defs = v2 ? fragment.getJsonObject("definitions") : fragment.getJsonObject("components")
        .getJsonObject("schemas");
    JsonObject s = defs.getJsonObject(name);
    if (s == null) {
      throw new AssertionError(name + " not in " + defs.fieldNames());
    }
    return s;
  }
}
