package io.mvproxy.openapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.GroupVersion;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
@Tag("unit")
class OpenApiHandlerTest {
  private static final GroupVersion REMOTE = new GroupVersion("remote.example.com", "v1");

  private OpenApiDocuments docs;
  private final AtomicReference<GroupVersion> proxied = new AtomicReference<>();
  private WebClient client;

  @BeforeEach
  void start(Vertx vertx, VertxTestContext ctx) {
    docs = OpenApiDocuments.build(List.of(new CrdSource(TestData.cronTab())), List.of(REMOTE));
    OpenApiHandler handler = new OpenApiHandler(() -> docs, (rc, gv) -> {
      proxied.set(gv);
      rc.response().setStatusCode(299).end("proxied");
    });
    Router router = Router.router(vertx);
    router.route().handler(rc -> {  // the ingress's step (APIResponseCompression on): /openapi/v3 stays plain
      io.mvproxy.api.RequestScope.of(rc).contentEncoding(
          io.mvproxy.api.ResponseCompression.supported(rc.request().getHeader("Accept-Encoding")));
      rc.next();
    });
    router.route("/openapi/*").handler(handler);
    vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1").onComplete(ctx.succeeding(server -> {
      client = WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1")
          .setDefaultPort(server.actualPort()).setFollowRedirects(false));
      ctx.completeNow();
    }));
  }

  private Future<HttpResponse<Buffer>> get(String uri, String header, String value) {
    var req = client.request(HttpMethod.GET, uri);
    if (header != null) {
      req.putHeader(header, value);
    }
    return req.send();
  }

  @Test
  void rootAndGroupVersionWithEtags(VertxTestContext ctx) {
    get("/openapi/v3?timeout=32s", "Accept", "application/json, */*").compose(root -> {
      assertEquals(200, root.statusCode());
      assertEquals("application/json", root.getHeader("Content-Type"));
      String url = root.bodyAsJsonObject().getJsonObject("paths").getJsonObject("apis/stable.example.com/v1")
          .getString("serverRelativeURL");
      return get(url + "&timeout=32s", "Accept", "application/json");
    }).compose(gv -> {
      assertEquals(200, gv.statusCode());
      String etag = gv.getHeader("ETag");
      assertEquals(docs.v3(new GroupVersion("stable.example.com", "v1")).etag(), etag);
      assertEquals("3.0.0", gv.bodyAsJsonObject().getString("openapi"));
      // the current hash: cacheable for good (handler3), a 304 to a matching If-None-Match
      assertEquals("public, immutable", gv.getHeader("Cache-Control"));
      assertEquals("Accept", gv.getHeader("Vary"));
      assertTrue(gv.getHeader("Expires").endsWith(" GMT"), gv.getHeader("Expires"));
      return get("/openapi/v3/apis/stable.example.com/v1?hash=stale", "If-None-Match", etag).compose(moved -> {
        // another hash: 301 to the current one
        assertEquals(301, moved.statusCode());
        assertEquals("/openapi/v3/apis/stable.example.com/v1?hash=" + etag.replace("\"", ""), moved.getHeader("Location"));
        return get(moved.getHeader("Location"), "If-None-Match", etag);
      });
    }).compose(notModified -> {
      assertEquals(304, notModified.statusCode());
      assertNull(notModified.body());
      return get("/openapi/v3/", "If-None-Match", "\"other\"");
    }).onComplete(ctx.succeeding(root -> ctx.verify(() -> {
      assertEquals(200, root.statusCode());
      assertEquals(docs.v3Root().etag(), root.getHeader("ETag"));
      ctx.completeNow();
    })));
  }

  /**
   * kube-openapi wraps {@code /openapi/v2} in the NYTimes gzip handler, whatever {@code APIResponseCompression} says
   * (case-insensitive codings, any q above 0, {@code Vary: Accept-Encoding} on every answer); the v3 documents are
   * served as they are.
   */
  @Test
  void openApiV2IsGzippedForClientsOfferingGzipV3Never(VertxTestContext ctx) {
    get("/openapi/v2", "Accept-Encoding", "GZIP;q=0.5").compose(v2 -> {
      assertEquals(200, v2.statusCode());
      assertEquals("gzip", v2.getHeader("Content-Encoding"));
      assertTrue(v2.headers().getAll("Vary").contains("Accept-Encoding"), v2.headers().getAll("Vary").toString());
      try (java.util.zip.GZIPInputStream in = new java.util.zip.GZIPInputStream(
          new java.io.ByteArrayInputStream(v2.body().getBytes()))) {
        assertEquals(docs.v2Json().body(), Buffer.buffer(in.readAllBytes()));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      return get("/openapi/v2", null, null);
    }).compose(plain -> {
      assertNull(plain.getHeader("Content-Encoding"));
      assertTrue(plain.headers().getAll("Vary").contains("Accept-Encoding"));
      assertEquals(docs.v2Json().body(), plain.body());
      return get("/openapi/v3/apis/stable.example.com/v1", "Accept-Encoding", "gzip");
    }).onComplete(ctx.succeeding(v3 -> ctx.verify(() -> {
      assertEquals(200, v3.statusCode());
      assertNull(v3.getHeader("Content-Encoding"));
      assertEquals("3.0.0", v3.bodyAsJsonObject().getString("openapi"));
      ctx.completeNow();
    })));
  }

  @Test
  void fleetGroupVersionGoesToFallbackUnknownIs404(VertxTestContext ctx) {
    get("/openapi/v3/apis/remote.example.com/v1?hash=abc", null, null).compose(r -> {
      assertEquals(299, r.statusCode());
      assertEquals(REMOTE, proxied.get());
      return get("/openapi/v3/apis/nowhere.example.com/v1", null, null);
    }).compose(r -> {
      assertEquals(404, r.statusCode());
      JsonObject status = r.bodyAsJsonObject();
      assertEquals("Status", status.getString("kind"));
      assertEquals("NotFound", status.getString("reason"));
      assertEquals(404, status.getInteger("code"));
      return get("/openapi/v3/apis/stable.example.com/v1/extra", null, null);
    }).compose(r -> {
      assertEquals(404, r.statusCode());
      return get("/openapi/v3/api/v1", null, null);
    }).compose(r -> {
      assertEquals(404, r.statusCode(), "no core group anywhere in this fleet");
      return get("/openapi/v4", null, null);
    }).compose(r -> {
      assertEquals(404, r.statusCode());
      return client.request(HttpMethod.POST, "/openapi/v2").send();
    }).onComplete(ctx.succeeding(r -> ctx.verify(() -> {
      assertEquals(405, r.statusCode());
      assertEquals("MethodNotAllowed", r.bodyAsJsonObject().getString("reason"));
      ctx.completeNow();
    })));
  }

  /**
   * An APIService's group-version served here without a document (its backend's are not fetched) is 404, also to a
   * peer (breakit: the peer got 503 Not-Served-Here, retried it every few seconds with a warning, and listed the
   * group-version in its own root, answering 503 for it; kube-aggregator leaves such a group-version out).
   */
  @Test
  void aggregatedGroupVersionWithoutDocumentIs404EvenToAPeer(Vertx vertx, VertxTestContext ctx) {
    GroupVersion wardle = new GroupVersion("wardle.example.com", "v1alpha1");
    io.mvproxy.api.ApiSource aggregated = new io.mvproxy.api.ApiSource() {
      @Override
      public String name() {
        return "apiservice/v1alpha1.wardle.example.com";
      }

      @Override
      public List<io.mvproxy.api.discovery.ServedGroupVersion> groupVersions() {
        return List.of(new io.mvproxy.api.discovery.ServedGroupVersion(wardle, 1000, 15, List.of(),
            io.mvproxy.api.discovery.Freshness.Current));
      }

      @Override
      public void handle(io.vertx.ext.web.RoutingContext rc, io.mvproxy.api.RequestInfo info,
                         io.mvproxy.api.UserInfo user) {
        rc.response().end();
      }

      @Override
      public boolean servesWholeGroupVersion() {
        return true;
      }
    };
    OpenApiDocuments withApiService = OpenApiDocuments.build(List.of(aggregated), List.of(wardle));
    assertTrue(withApiService.undocumented(wardle));
    assertFalse(withApiService.v3Root().body().toJsonObject().getJsonObject("paths")
        .containsKey("apis/wardle.example.com/v1alpha1"));
    OpenApiHandler peerHop = new OpenApiHandler(() -> withApiService, rc -> true, (rc, gv) -> {
      proxied.set(gv);
      rc.response().setStatusCode(503).end("not served here");
    });
    Router router = Router.router(vertx);
    router.route("/openapi/*").handler(peerHop);
    vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1").compose(server ->
        WebClient.create(vertx).get(server.actualPort(), "127.0.0.1", "/openapi/v3/apis/wardle.example.com/v1alpha1")
            .send()).onComplete(ctx.succeeding(r -> ctx.verify(() -> {
              assertEquals(404, r.statusCode(), r.bodyAsString());
              assertEquals("NotFound", r.bodyAsJsonObject().getString("reason"));
              assertNull(proxied.get());
              ctx.completeNow();
            })));
  }

  @Test
  void swaggerProtobufOrJsonByAccept(VertxTestContext ctx) {
    get("/openapi/v2?timeout=32s", "Accept", OpenApiDocuments.V2_PROTOBUF).compose(pb -> {
      assertEquals(200, pb.statusCode());
      assertEquals(OpenApiDocuments.V2_PROTOBUF_CONTENT_TYPE, pb.getHeader("Content-Type"));
      assertArrayEquals(docs.v2Protobuf().body().getBytes(), pb.body().getBytes());
      assertEquals("Accept", pb.getHeader("Vary"));
      return get("/openapi/v2", "Accept", "application/json");
    }).compose(json -> {
      assertEquals(200, json.statusCode());
      assertTrue(json.getHeader("Content-Type").startsWith("application/json"));
      assertEquals("2.0", json.bodyAsJsonObject().getString("swagger"));
      return get("/openapi/v2", "If-None-Match", json.getHeader("ETag"));
    }).compose(nm -> {
      assertEquals(304, nm.statusCode());
      return client.request(HttpMethod.HEAD, "/openapi/v2").send();
    }).onComplete(ctx.succeeding(head -> ctx.verify(() -> {
      assertEquals(200, head.statusCode());
      assertEquals(String.valueOf(docs.v2Json().body().length()), head.getHeader("Content-Length"));
      ctx.completeNow();
    })));
  }

  @Test
  void helpers() {
    assertTrue(OpenApiHandler.wantsProtobuf("application/com.github.proto-openapi.spec.v2@v1.0+protobuf"));
    assertTrue(OpenApiHandler.wantsProtobuf(
        "application/com.github.proto-openapi.spec.v2.v1.0+protobuf;q=0.9, application/json"));
    assertFalse(OpenApiHandler.wantsProtobuf("application/json, application/com.github.proto-openapi.spec.v2@v1.0"
        + "+protobuf"));
    assertFalse(OpenApiHandler.wantsProtobuf(null));
    assertTrue(OpenApiHandler.etagMatches("W/\"a\", \"b\"", "\"a\""));
    assertTrue(OpenApiHandler.etagMatches("*", "\"a\""));
    assertFalse(OpenApiHandler.etagMatches("\"b\"", "\"a\""));
    assertEquals(new GroupVersion("", "v1"), OpenApiHandler.parseGroupVersion("api/v1"));
    assertEquals(new GroupVersion("a.b", "v2"), OpenApiHandler.parseGroupVersion("apis/a.b/v2"));
    assertNull(OpenApiHandler.parseGroupVersion("apis/a.b"));
    assertNull(OpenApiHandler.parseGroupVersion("apis//v1"));
  }
}
