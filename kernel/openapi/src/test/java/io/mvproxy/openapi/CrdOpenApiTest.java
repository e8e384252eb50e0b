package io.mvproxy.openapi;

import static io.mvproxy.openapi.OpenApiAssertions.gvkArray;
import static io.mvproxy.openapi.OpenApiAssertions.kubectlV2Parsable;
import static io.mvproxy.openapi.OpenApiAssertions.patchHasFieldValidation;
import static io.mvproxy.openapi.OpenApiAssertions.refsResolve;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

@Tag("unit")
class CrdOpenApiTest {

  static Stream<Path> crdFiles() throws Exception {
    return TestData.crdFiles();
  }

  @ParameterizedTest
  @MethodSource("crdFiles")
  void v3FragmentOfEveryServedVersionIsComplete(Path file) throws Exception {
    List<JsonObject> crds = TestData.load(file);
    assertFalse(crds.isEmpty(), file + " holds no CRD");
    for (JsonObject crd : crds) {
      CrdOpenApi api = new CrdOpenApi(crd);
      JsonObject spec = crd.getJsonObject("spec");
      String group = spec.getString("group");
      String kind = spec.getJsonObject("names").getString("kind");
      assertFalse(api.servedVersions().isEmpty());
      for (String v : api.servedVersions()) {
        JsonObject f = api.v3(v);
        JsonObject schemas = f.getJsonObject("components").getJsonObject("schemas");
        String name = CrdOpenApi.definitionName(group, v, kind);
        JsonObject obj = schemas.getJsonObject(name);
        assertNotNull(obj, "missing " + name);
        JsonArray gvk = gvkArray(obj);
        assertEquals(new JsonObject().put("group", group).put("version", v).put("kind", kind), gvk.getJsonObject(0));
        JsonObject props = obj.getJsonObject("properties");
        assertEquals("#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", props
            .getJsonObject("metadata").getJsonArray("allOf").getJsonObject(0).getString("$ref"));
        assertEquals("string", props.getJsonObject("apiVersion").getString("type"));
        assertEquals("string", props.getJsonObject("kind").getString("type"));
        assertNotNull(schemas.getJsonObject(CrdOpenApi.definitionName(group, v, kind + "List")));
        refsResolve(f, schemas, "#/components/schemas/");
        patchHasFieldValidation(f.getJsonObject("paths"), group, v, kind);
        String plural = spec.getJsonObject("names").getString("plural");
        String base = "/apis/" + group + "/" + v + "/namespaces/{namespace}/" + plural;
        JsonObject item = f.getJsonObject("paths").getJsonObject(base + "/{name}");
        for (String m : List.of("get", "put", "patch", "delete")) {
          assertNotNull(item.getJsonObject(m), m + " " + base);
        }
        JsonObject coll = f.getJsonObject("paths").getJsonObject(base);
        for (String m : List.of("get", "post", "delete")) {
          assertNotNull(coll.getJsonObject(m), m + " " + base);
        }
        assertEquals("deletecollection", coll.getJsonObject("delete").getString("x-kubernetes-action"));
        assertNotNull(f.getJsonObject("paths").getJsonObject("/apis/" + group + "/" + v + "/watch/namespaces/"
            + "{namespace}/" + plural));
        assertNotNull(f.getJsonObject("paths").getJsonObject(base + "/{name}/status"), "status subresource");
      }
    }
  }

  @ParameterizedTest
  @MethodSource("crdFiles")
  void v2FragmentIsKubectlParsable(Path file) throws Exception {
    for (JsonObject crd : TestData.load(file)) {
      CrdOpenApi api = new CrdOpenApi(crd);
      String group = crd.getJsonObject("spec").getString("group");
      String kind = crd.getJsonObject("spec").getJsonObject("names").getString("kind");
      for (String v : api.servedVersions()) {
        JsonObject f = api.v2(v);
        JsonObject defs = f.getJsonObject("definitions");
        JsonObject obj = defs.getJsonObject(CrdOpenApi.definitionName(group, v, kind));
        assertNotNull(obj);
        gvkArray(obj);
        refsResolve(f, defs, "#/definitions/");
        kubectlV2Parsable("definitions", defs);
        patchHasFieldValidation(f.getJsonObject("paths"), group, v, kind);
        JsonObject post = f.getJsonObject("paths").getJsonObject("/apis/" + group + "/" + v + "/namespaces/"
            + "{namespace}/" + crd.getJsonObject("spec").getJsonObject("names").getString("plural"))
            .getJsonObject("post");
        assertEquals("body", post.getJsonArray("parameters").getJsonObject(0).getString("in"));
      }
    }
  }

  @Test
  void preserveUnknownFieldsRootIsBareObjectInV2AndKeptInV3() throws Exception {
    JsonObject crd = TestData.load(TestData.crdDir().resolve("knative-kafka-consumergroups.yaml")).get(0);
    CrdOpenApi api = new CrdOpenApi(crd);
    String name = "dev.knative.eventing.kafka.internal.v1alpha1.ConsumerGroup";
    JsonObject v2 = api.v2("v1alpha1").getJsonObject("definitions").getJsonObject(name);
    assertEquals("object", v2.getString("type"));
    assertNull(v2.getValue("properties"), "kubectl would reject unknown fields");
    JsonObject v3 = api.v3("v1alpha1").getJsonObject("components").getJsonObject("schemas").getJsonObject(name);
    assertEquals(Boolean.TRUE, v3.getValue("x-kubernetes-preserve-unknown-fields"));
    assertNotNull(v3.getJsonObject("properties").getJsonObject("metadata"));
    // scale subresource published with the autoscaling/v1 Scale schema
    JsonObject scale = api.v3("v1alpha1").getJsonObject("paths").getJsonObject(
        "/apis/internal.kafka.eventing.knative.dev/v1alpha1/namespaces/{namespace}/consumergroups/{name}/scale");
    assertEquals("#/components/schemas/io.k8s.api.autoscaling.v1.Scale", scale.getJsonObject("get")
        .getJsonObject("responses").getJsonObject("200").getJsonObject("content")
        .getJsonObject("application/json").getJsonObject("schema").getString("$ref"));
  }

  @Test
  void intOrStringNullableAndEmbeddedFollowKubernetes() {
    CrdOpenApi api = new CrdOpenApi(TestData.cronTab());
    JsonObject v3 = api.v3("v1").getJsonObject("components").getJsonObject("schemas")
        .getJsonObject("com.example.stable.v1.CronTab");
    JsonObject spec3 = v3.getJsonObject("properties").getJsonObject("spec").getJsonObject("properties");
    assertEquals(new JsonArray().add(new JsonObject().put("type", "integer")).add(new JsonObject().put("type",
        "string")), spec3.getJsonObject("port").getJsonArray("anyOf"));
    assertEquals(true, spec3.getJsonObject("note").getBoolean("nullable"));
    JsonObject template3 = spec3.getJsonObject("template");
    assertTrue(template3.getJsonObject("properties").containsKey("apiVersion"), "embedded resource gets TypeMeta");
    assertTrue(template3.getJsonArray("required").contains("kind"));

    JsonObject v2 = api.v2("v1").getJsonObject("definitions").getJsonObject("com.example.stable.v1.CronTab");
    JsonObject spec2 = v2.getJsonObject("properties").getJsonObject("spec");
    JsonObject p2 = spec2.getJsonObject("properties");
    assertNull(p2.getJsonObject("port").getValue("anyOf"));
    assertEquals(true, p2.getJsonObject("port").getValue("x-kubernetes-int-or-string"));
    assertNull(p2.getJsonObject("note").getValue("type"), "nullable becomes untyped in v2");
    assertEquals(new JsonArray().add("cronSpec"), spec2.getJsonArray("required"), "nullable not required in v2");
    assertNull(p2.getJsonObject("tags").getValue("type"), "array without items becomes untyped in v2");
    assertNull(p2.getJsonObject("template").getValue("properties"), "preserve-unknown embedded stays bare in v2");
    kubectlV2Parsable("CronTab", v2);
  }

  @Test
  void clusterScopedPathsHaveNoNamespace() {
    JsonObject crd = TestData.cronTab();
    crd.getJsonObject("spec").put("scope", "Cluster");
    JsonObject paths = new CrdOpenApi(crd).v3("v1").getJsonObject("paths");
    assertNotNull(paths.getJsonObject("/apis/stable.example.com/v1/crontabs/{name}").getJsonObject("patch"));
    assertEquals("patchStableExampleComV1CronTab", paths.getJsonObject("/apis/stable.example.com/v1/crontabs/{name}")
        .getJsonObject("patch").getString("operationId"));
    paths.fieldNames().forEach(p -> assertFalse(p.contains("{namespace}"), p));
  }

  @Test
  void namesAndErrors() {
    assertEquals("com.example.stable.v1.CronTab", CrdOpenApi.definitionName("stable.example.com", "v1", "CronTab"));
    CrdOpenApi api = new CrdOpenApi(TestData.cronTab());
    assertEquals(List.of("v1", "v1beta1"), api.servedVersions());
    assertThrows(IllegalArgumentException.class, () -> api.v3("v2"));
    assertThrows(IllegalArgumentException.class, () -> new CrdOpenApi(new JsonObject()));
    JsonObject patch = api.v3("v1").getJsonObject("paths")
        .getJsonObject("/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}").getJsonObject("patch");
    assertEquals("patchStableExampleComV1NamespacedCronTab", patch.getString("operationId"));
    assertEquals(new JsonArray().add("stableExampleCom_v1"), patch.getJsonArray("tags"));
    assertTrue(patch.getJsonObject("requestBody").getJsonObject("content").containsKey("application/apply-patch+yaml"));
  }

  @Test
  void prometheusOperatorCrdIsFast() throws Exception {
    JsonObject crd = TestData.load(TestData.crdDir().resolve("prometheus-operator-alertmanagers.yaml")).get(0);
    CrdOpenApi api = new CrdOpenApi(crd);
    api.v3("v1");
    long t0 = System.nanoTime();
    int size = api.v3("v1").encode().length() + api.v2("v1").encode().length();
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(size > 100_000, "schema kept: " + size);
    assertTrue(ms < 2000, "took " + ms + " ms");
  }
}
