package io.mvproxy.openapi;

import static io.mvproxy.openapi.OpenApiAssertions.refsResolve;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.GroupVersion;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Peer-merged OpenAPI (F16): "old" node A serves widgets in demo.example.com/v1; "new" node B serves widgets (another
 * schema) and gadgets in the same group-version, plus sprockets in a group-version A lacks. A's documents, merged
 * with B's reduced ones, cover gadgets and sprockets while A's own widget schema stays authoritative.
 */
@Tag("unit")
class PeerFragmentsTest {
  private static final GroupVersion DEMO = new GroupVersion("demo.example.com", "v1");
  private static final GroupVersion EXTRA = new GroupVersion("extra.example.com", "v1");
  private static final GroupVersion CODE = new GroupVersion("code.example.com", "v1");

  static JsonObject crd(String group, String plural, String kind, String property) {
    return new JsonObject().put("apiVersion", "apiextensions.k8s.io/v1").put("kind", "CustomResourceDefinition")
        .put("metadata", new JsonObject().put("name", plural + "." + group))
        .put("spec", new JsonObject().put("group", group).put("scope", "Namespaced")
            .put("names", new JsonObject().put("plural", plural).put("kind", kind))
            .put("versions", new JsonArray().add(new JsonObject().put("name", "v1").put("served", true)
                .put("storage", true).put("schema", new JsonObject().put("openAPIV3Schema", new JsonObject()
                    .put("type", "object").put("properties", new JsonObject().put(property,
                        new JsonObject().put("type", "string"))))))));
  }

  private static OpenApiDocuments nodeB() {
    return OpenApiDocuments.build(List.of(new CrdSource(crd("demo.example.com", "widgets", "Widget", "newField")),
        new CrdSource(crd("demo.example.com", "gadgets", "Gadget", "gadgetField")),
        new CrdSource(crd("extra.example.com", "sprockets", "Sprocket", "teeth"))), List.of());
  }

  private static JsonObject json(ServedDocument d) {
    return d.body().toJsonObject();
  }

  @Test
  void selectKeepsOnlyTheNamedResourcesAndTheSchemasTheyReference() {
    JsonObject b = json(nodeB().v3(DEMO));
    JsonObject part = PeerFragments.select(b, Map.of(DEMO, Set.of("gadgets")), false);
    JsonObject paths = part.getJsonObject("paths");
    assertTrue(paths.containsKey("/apis/demo.example.com/v1/namespaces/{namespace}/gadgets/{name}"), paths.encode());
    assertTrue(paths.containsKey("/apis/demo.example.com/v1/watch/gadgets"), paths.encode());
    assertTrue(paths.fieldNames().stream().noneMatch(p -> p.contains("widgets")), paths.encode());
    JsonObject schemas = part.getJsonObject("components").getJsonObject("schemas");
    assertNotNull(schemas.getJsonObject("com.example.demo.v1.Gadget"));
    assertNotNull(schemas.getJsonObject("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
    assertNull(schemas.getJsonObject("com.example.demo.v1.Widget"));
    refsResolve(part, schemas, "#/components/schemas/");
    JsonObject v2 = PeerFragments.select(json(nodeB().v2Json()), Map.of(DEMO, Set.of("gadgets")), true);
    assertNotNull(v2.getJsonObject("definitions").getJsonObject("com.example.demo.v1.Gadget"));
    assertNull(v2.getJsonObject("definitions").getJsonObject("com.example.demo.v1.Widget"));
    refsResolve(v2, v2.getJsonObject("definitions"), "#/definitions/");
    assertEquals(new PeerFragments.PathResource(new GroupVersion("", "v1"), "namespaces"),
        PeerFragments.PathResource.parse("/api/v1/namespaces/{name}/status"));
    assertEquals(new PeerFragments.PathResource(new GroupVersion("", "v1"), "configmaps"),
        PeerFragments.PathResource.parse("/api/v1/watch/namespaces/{namespace}/configmaps/{name}"));
    assertNull(PeerFragments.PathResource.parse("/apis/demo.example.com/v1/"));
  }

  @Test
  void mergedDocumentsCoverPeersResourcesAndKeepLocalSchemasAuthoritative() {
    OpenApiDocuments b = nodeB();
    Map<GroupVersion, Set<String>> lacking = Map.of(DEMO, Set.of("gadgets"), EXTRA, Set.of("sprockets"));
    PeerFragments peers = new PeerFragments(
        Map.of(DEMO, List.of(PeerFragments.select(json(b.v3(DEMO)), lacking, false)),
            EXTRA, List.of(PeerFragments.select(json(b.v3(EXTRA)), lacking, false))),
        List.of(PeerFragments.select(json(b.v2Json()), lacking, true)), Set.of());
    OpenApiDocuments a = OpenApiDocuments.build(
        List.of(new CrdSource(crd("demo.example.com", "widgets", "Widget", "oldField"))), List.of(DEMO, EXTRA),
        peers);
    JsonObject demo = json(a.v3(DEMO));
    JsonObject schemas = demo.getJsonObject("components").getJsonObject("schemas");
    assertTrue(demo.getJsonObject("paths").containsKey("/apis/demo.example.com/v1/namespaces/{namespace}/gadgets"));
    assertTrue(demo.getJsonObject("paths").containsKey("/apis/demo.example.com/v1/namespaces/{namespace}/widgets"));
    assertNotNull(schemas.getJsonObject("com.example.demo.v1.Gadget"));
    JsonObject widget = schemas.getJsonObject("com.example.demo.v1.Widget").getJsonObject("properties");
    assertTrue(widget.containsKey("oldField") && !widget.containsKey("newField"), "local widget schema wins");
    refsResolve(demo, schemas, "#/components/schemas/");
    assertNotNull(a.v3(EXTRA), "a group-version only peers serve is documented from their documents");
    JsonObject defs = json(a.v2Json()).getJsonObject("definitions");
    assertNotNull(defs.getJsonObject("com.example.demo.v1.Gadget"));
    assertNotNull(defs.getJsonObject("com.example.extra.v1.Sprocket"));
    assertTrue(defs.getJsonObject("com.example.demo.v1.Widget").getJsonObject("properties").containsKey("oldField"));
    // the root URL's hash is the merged document's; the local view (what a peer gets) has no peer fragments
    String url = json(a.v3Root()).getJsonObject("paths").getJsonObject("apis/demo.example.com/v1")
        .getString("serverRelativeURL");
    assertEquals("/openapi/v3/apis/demo.example.com/v1?hash=" + a.v3(DEMO).hash(), url);
    assertFalse(json(a.local().v3(DEMO)).getJsonObject("paths").encode().contains("gadgets"));
    assertNull(a.local().v3(EXTRA));
    assertFalse(a.local().v2Json().body().toString().contains("Gadget"));
    // the peers left: their part is taken out at once, the local document stays
    OpenApiDocuments trimmed = a.withoutPeers(List.of(DEMO, EXTRA));
    assertSame(a.local().v3(DEMO), trimmed.v3(DEMO));
    assertNull(trimmed.v3(EXTRA));
    assertTrue(trimmed.inFleet(EXTRA), "still in the fleet: the handler's fallback answers 503");
    assertTrue(json(trimmed.v3Root()).getJsonObject("paths").containsKey("apis/extra.example.com/v1"));
    assertSame(trimmed, trimmed.withoutPeers(List.of(DEMO)));
  }

  @Test
  void rootDoesNotAdvertiseGroupVersionsWithoutADocument() {
    CrdSource documented = new CrdSource(crd("demo.example.com", "widgets", "Widget", "f"));
    CrdSource clocks = new CrdSource(crd("code.example.com", "clocks", "Clock", "f"));
    io.mvproxy.api.ApiSource undocumented = new io.mvproxy.api.ApiSource() { // a code plugin without fragments
      @Override
      public String name() {
        return "test/code";
      }

      @Override
      public List<io.mvproxy.api.discovery.ServedGroupVersion> groupVersions() {
        return clocks.groupVersions();
      }

      @Override
      public void handle(io.vertx.ext.web.RoutingContext ctx, io.mvproxy.api.RequestInfo info,
                         io.mvproxy.api.UserInfo user) {
        ctx.response().setStatusCode(501).end();
      }
    };
    OpenApiDocuments docs = OpenApiDocuments.build(List.of(documented, undocumented), List.of(EXTRA, DEMO, CODE),
        new PeerFragments(Map.of(), List.of(), Set.of(EXTRA)));
    JsonObject paths = json(docs.v3Root()).getJsonObject("paths");
    assertEquals(Set.of("apis/demo.example.com/v1"), paths.fieldNames(), paths.encode());
    assertTrue(docs.inFleet(CODE) && docs.inFleet(EXTRA));
  }
}
