package io.mvproxy.openapi;

import static io.mvproxy.openapi.OpenApiAssertions.kubectlV2Parsable;
import static io.mvproxy.openapi.OpenApiAssertions.patchHasFieldValidation;
import static io.mvproxy.openapi.OpenApiAssertions.refsResolve;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.GroupVersion;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class OpenApiDocumentsTest {
  private static final GroupVersion STABLE_V1 = new GroupVersion("stable.example.com", "v1");
  private static final GroupVersion REMOTE = new GroupVersion("remote.example.com", "v1");

  static List<CrdSource> allSources() throws Exception {
    List<CrdSource> sources = new ArrayList<>();
    sources.add(new CrdSource(TestData.cronTab()));
    for (var f : TestData.crdFiles().toList()) {
      for (JsonObject crd : TestData.load(f)) {
        sources.add(new CrdSource(crd));
      }
    }
    return sources;
  }

  @Test
  void rootListsLocalAndFleetGroupVersionsWithHashes() {
    OpenApiDocuments docs = OpenApiDocuments.build(List.of(new CrdSource(TestData.cronTab())),
        List.of(REMOTE, new GroupVersion("", "v1")));
    JsonObject root = docs.v3Root().body().toJsonObject();
    JsonObject paths = root.getJsonObject("paths");
    assertEquals(4, paths.size(), paths.encode());
    String url = paths.getJsonObject("apis/stable.example.com/v1").getString("serverRelativeURL");
    assertEquals("/openapi/v3/apis/stable.example.com/v1?hash=" + docs.v3(STABLE_V1).hash(), url);
    assertTrue(paths.getJsonObject("apis/remote.example.com/v1").getString("serverRelativeURL")
        .startsWith("/openapi/v3/apis/remote.example.com/v1?hash="));
    assertNotNull(paths.getJsonObject("api/v1"));
    assertNotNull(docs.v3(new GroupVersion("stable.example.com", "v1beta1")));
    assertNull(docs.v3(REMOTE));
    assertTrue(docs.inFleet(REMOTE));
    assertTrue(docs.inFleet(STABLE_V1));
    assertEquals("application/json", docs.v3Root().contentType());
  }

  @Test
  void groupVersionDocumentMergesAllSourcesAndResolves() throws Exception {
    OpenApiDocuments docs = OpenApiDocuments.build(allSources(), List.of());
    for (GroupVersion gv : docs.localGroupVersions()) {
      JsonObject doc = docs.v3(gv).body().toJsonObject();
      assertEquals("3.0.0", doc.getString("openapi"));
      assertNotNull(doc.getJsonObject("info").getString("title"));
      JsonObject schemas = doc.getJsonObject("components").getJsonObject("schemas");
      refsResolve(doc, schemas, "#/components/schemas/");
      assertTrue(schemas.containsKey("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
    }
    JsonObject stable = docs.v3(STABLE_V1).body().toJsonObject();
    patchHasFieldValidation(stable.getJsonObject("paths"), "stable.example.com", "v1", "CronTab");
    assertNotNull(stable.getJsonObject("components").getJsonObject("schemas")
        .getJsonObject("com.example.stable.v1.CronTab"));
  }

  @Test
  void swaggerMergesAllLocalFragments() throws Exception {
    OpenApiDocuments docs = OpenApiDocuments.build(allSources(), List.of(REMOTE));
    JsonObject v2 = docs.v2Json().body().toJsonObject();
    assertEquals("2.0", v2.getString("swagger"));
    JsonObject defs = v2.getJsonObject("definitions");
    for (String name : List.of("com.example.stable.v1.CronTab", "com.example.stable.v1beta1.CronTab",
        "com.coreos.monitoring.v1.Alertmanager", "io.cert-manager.v1.CertificateRequest",
        "io.k8s.samplecontroller.v1alpha1.Foo")) {
      assertNotNull(defs.getJsonObject(name), name);
    }
    refsResolve(v2, defs, "#/definitions/");
    kubectlV2Parsable("definitions", defs);
    patchHasFieldValidation(v2.getJsonObject("paths"), "stable.example.com", "v1", "CronTab");
    assertTrue(docs.v2Protobuf().body().length() > 1000);
    assertEquals(OpenApiDocuments.V2_PROTOBUF_CONTENT_TYPE, docs.v2Protobuf().contentType());
  }

  @Test
  void documentsAreDeterministicAndChangeWithContent() {
    OpenApiDocuments a = OpenApiDocuments.build(List.of(new CrdSource(TestData.cronTab())), List.of(REMOTE));
    OpenApiDocuments b = OpenApiDocuments.build(List.of(new CrdSource(TestData.cronTab())), List.of(REMOTE));
    assertEquals(a.v3Root().hash(), b.v3Root().hash());
    assertEquals(a.v3(STABLE_V1).etag(), b.v3(STABLE_V1).etag());
    assertEquals(a.v2Protobuf().hash(), b.v2Protobuf().hash());
    JsonObject changed = TestData.cronTab();
    changed.getJsonObject("spec").getJsonArray("versions").getJsonObject(0).getJsonObject("schema")
        .getJsonObject("openAPIV3Schema").getJsonObject("properties").put("extra", new JsonObject().put("type",
            "string"));
    OpenApiDocuments c = OpenApiDocuments.build(List.of(new CrdSource(changed)), List.of(REMOTE));
    assertNotEquals(a.v3(STABLE_V1).hash(), c.v3(STABLE_V1).hash());
    assertNotEquals(a.v3Root().hash(), c.v3Root().hash(), "root URL hash follows the document");
    assertEquals(a.v3(new GroupVersion("stable.example.com", "v1beta1")).hash(),
        c.v3(new GroupVersion("stable.example.com", "v1beta1")).hash());
  }

  @Test
  void emptyDocumentsAreValid() {
    OpenApiDocuments e = OpenApiDocuments.empty();
    assertEquals(new JsonObject().put("paths", new JsonObject()), e.v3Root().body().toJsonObject());
    assertEquals("2.0", e.v2Json().body().toJsonObject().getString("swagger"));
  }
}
