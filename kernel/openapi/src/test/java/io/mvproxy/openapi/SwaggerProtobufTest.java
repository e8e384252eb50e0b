package io.mvproxy.openapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.GroupVersion;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The gnostic {@code openapi.v2.Document} encoding, read back with a wire-format reader (kubectl: KubectlCreateTest). */
@ExtendWith(VertxExtension.class)
@Tag("unit")
class SwaggerProtobufTest {

  @Test
  void documentFieldsFollowOpenApiV2Proto() {
    JsonObject swagger = OpenApiDocuments.build(List.of(new CrdSource(TestData.cronTab())), List.of()).v2Json()
        .body().toJsonObject();
    byte[] pb = SwaggerProtobuf.encode(swagger);
    assertEquals("2.0", ProtoReader.all(pb, 1).get(0).string());
    byte[] info = ProtoReader.all(pb, 2).get(0).bytes();
    assertEquals("Kubernetes", ProtoReader.all(info, 1).get(0).string());
    // definitions (9): NamedSchema (1) {name (1), value (2)}
    byte[] defs = ProtoReader.all(pb, 9).get(0).bytes();
    Set<String> names = ProtoReader.all(defs, 1).stream().map(f -> ProtoReader.all(f.bytes(), 1).get(0).string())
        .collect(Collectors.toSet());
    assertEquals(swagger.getJsonObject("definitions").fieldNames(), names);
    // paths (8): NamedPathItem (2); the item path's PathItem.patch (8) has the gvk extension (13) and fieldValidation
    byte[] paths = ProtoReader.all(pb, 8).get(0).bytes();
    boolean found = false;
    for (ProtoReader.Field named : ProtoReader.all(paths, 2)) {
      String path = ProtoReader.all(named.bytes(), 1).get(0).string();
      if (!path.equals("/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}")) {
        continue;
      }
      byte[] item = ProtoReader.all(named.bytes(), 2).get(0).bytes();
      byte[] patch = ProtoReader.all(item, 8).get(0).bytes();
      String ext = ProtoReader.all(patch, 13).stream().map(f -> new String(f.bytes())).collect(Collectors.joining());
      assertTrue(ext.contains("x-kubernetes-group-version-kind") && ext.contains("\"kind\":\"CronTab\""), ext);
      // ParametersItem(8).parameter(1).non_body_parameter(2).query_parameter_sub_schema(3).name(4)
      boolean fv = false;
      for (ProtoReader.Field p : ProtoReader.all(patch, 8)) {
        byte[] param = ProtoReader.all(p.bytes(), 1).get(0).bytes();
        List<ProtoReader.Field> nonBody = ProtoReader.all(param, 2);
        if (!nonBody.isEmpty() && !ProtoReader.all(nonBody.get(0).bytes(), 3).isEmpty()) {
          byte[] q = ProtoReader.all(nonBody.get(0).bytes(), 3).get(0).bytes();
          fv |= ProtoReader.all(q, 4).get(0).string().equals("fieldValidation");
        }
      }
      assertTrue(fv, "fieldValidation query parameter in the protobuf PATCH operation");
      found = true;
    }
    assertTrue(found);
  }

  @Test
  void largeCrdsEncodeAndParse() throws Exception {
    OpenApiDocuments docs = OpenApiDocuments.build(OpenApiDocumentsTest.allSources(), List.of());
    byte[] pb = docs.v2Protobuf().body().getBytes();
    assertTrue(pb.length > 100_000);
    byte[] defs = ProtoReader.all(pb, 9).get(0).bytes();
    assertEquals(docs.v2Json().body().toJsonObject().getJsonObject("definitions").size(),
        ProtoReader.all(defs, 1).size());
  }

  @Test
  void buildAsyncRunsOffTheEventLoop(Vertx vertx, VertxTestContext ctx) {
    OpenApiDocuments.buildAsync(vertx, List.of(new CrdSource(TestData.cronTab())),
        List.of(new GroupVersion("x.io", "v1"))).onComplete(ctx.succeeding(docs -> ctx.verify(() -> {
          assertTrue(docs.inFleet(new GroupVersion("x.io", "v1")));
          assertTrue(docs.v3(new GroupVersion("stable.example.com", "v1")) != null);
          ctx.completeNow();
        })));
  }
}
