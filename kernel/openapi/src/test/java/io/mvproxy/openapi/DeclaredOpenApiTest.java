package io.mvproxy.openapi;

import static io.mvproxy.openapi.OpenApiAssertions.refsResolve;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.Freshness;
import io.mvproxy.api.discovery.ResponseKind;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** F17: a code plugin's group-version (clocks: get and list, cluster-scoped) gets a document from its declaration. */
@Tag("unit")
class DeclaredOpenApiTest {
  static final GroupVersion TIME = new GroupVersion("time.example.com", "v1");

  static ApiSource codeSource(GroupVersion gv, boolean whole) {
    ServedGroupVersion sgv = new ServedGroupVersion(gv, 1000, 100, List.of(new DiscoveryResource("clocks", "clock",
        new ResponseKind(gv.group(), gv.version(), "Clock"), false, List.of("get", "list"), List.of("clk"), List.of(),
        List.of(), null)), Freshness.Current);
    return new ApiSource() {
      @Override
      public String name() {
        return "code/" + gv;
      }

      @Override
      public List<ServedGroupVersion> groupVersions() {
        return List.of(sgv);
      }

      @Override
      public void handle(RoutingContext ctx, RequestInfo info, UserInfo user) {
        ctx.response().setStatusCode(501).end();
      }

      @Override
      public boolean servesWholeGroupVersion() {
        return whole;
      }
    };
  }

  @Test
  void codePluginGroupVersionIsDocumentedWithItsDeclaredVerbsOnly() {
    GroupVersion aggregated = new GroupVersion("wardle.example.com", "v1alpha1");
    OpenApiDocuments docs = OpenApiDocuments.build(List.of(codeSource(TIME, false), codeSource(aggregated, true)),
        List.of());
    JsonObject doc = docs.v3(TIME).body().toJsonObject();
    JsonObject paths = doc.getJsonObject("paths");
    assertEquals(List.of("get"), ops(paths.getJsonObject("/apis/time.example.com/v1/clocks")));
    assertEquals(List.of("get"), ops(paths.getJsonObject("/apis/time.example.com/v1/clocks/{name}")));
    assertFalse(paths.containsKey("/apis/time.example.com/v1/watch/clocks"), "watch is not declared");
    JsonObject schemas = doc.getJsonObject("components").getJsonObject("schemas");
    JsonObject clock = schemas.getJsonObject("com.example.time.v1.Clock");
    assertNotNull(clock, schemas.fieldNames().toString());
    assertTrue(clock.getBoolean("x-kubernetes-preserve-unknown-fields", false), clock.encode());
    refsResolve(doc, schemas, "#/components/schemas/");
    JsonObject v2 = docs.v2Json().body().toJsonObject();
    assertNotNull(v2.getJsonObject("definitions").getJsonObject("com.example.time.v1.Clock"));
    refsResolve(v2, v2.getJsonObject("definitions"), "#/definitions/");
    JsonObject root = docs.v3Root().body().toJsonObject().getJsonObject("paths");
    assertTrue(root.containsKey("apis/time.example.com/v1"));
    assertFalse(root.containsKey("apis/wardle.example.com/v1alpha1"), "an aggregated API without documents is "
        + "not advertised");
  }

  private static List<String> ops(JsonObject item) {
    return item.fieldNames().stream().filter(k -> !k.equals("parameters")).sorted().toList();
  }
}
