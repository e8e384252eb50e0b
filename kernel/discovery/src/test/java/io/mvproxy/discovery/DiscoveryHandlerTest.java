package io.mvproxy.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.GroupVersion;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Two real HTTP servers (node A and node B) on 127.0.0.1 serving discovery through the handler. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("unit")
class DiscoveryHandlerTest {
  private static final String V133 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
      + "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
  private static final String V127 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
      + "application/json";
  private static final String NOPEER = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;"
      + "profile=nopeer";

  private Vertx vertx;
  private WebClient client;
  private int portA;
  private int portB;
  private final AtomicReference<DiscoveryDocuments> docsA = new AtomicReference<>();
  private final Map<String, GroupVersion> fallbacks = new ConcurrentHashMap<>();

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private int start(AtomicReference<DiscoveryDocuments> docs) throws Exception {
    Router router = Router.router(vertx);
    DiscoveryHandler h = new DiscoveryHandler(docs::get, (ctx, gv) -> {
      fallbacks.put(ctx.request().path(), gv);
      ctx.response().setStatusCode(200).putHeader("X-Fallback", gv.toString()).end("peer");
    });
    router.route().handler(h);
    router.route().handler(ctx -> ctx.response().setStatusCode(418).end("next"));
    HttpServer server = await(vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1"));
    return server.actualPort();
  }

  @BeforeAll
  void startServers() throws Exception {
    vertx = Vertx.vertx();
    client = WebClient.create(vertx);
    docsA.set(DiscoveryDocumentsTest.nodeA(Comparator.naturalOrder()));
    portA = start(docsA);
    portB = start(new AtomicReference<>(DiscoveryDocumentsTest.nodeB(Comparator.reverseOrder())));
  }

  @AfterAll
  void stop() throws Exception {
    if (vertx != null) {
      await(vertx.close());
    }
  }

  private HttpResponse<Buffer> get(int port, String path, String accept, String inm) throws Exception {
    return send(HttpMethod.GET, port, path, accept, inm);
  }

  private HttpResponse<Buffer> send(HttpMethod m, int port, String path, String accept, String inm)
      throws Exception {
    HttpRequest<Buffer> req = client.request(m, port, "127.0.0.1", path);
    if (accept != null) {
      req.putHeader("Accept", accept);
    }
    if (inm != null) {
      req.putHeader("If-None-Match", inm);
    }
    return await(req.send());
  }

  private static List<String> groups(HttpResponse<Buffer> r) {
    return r.bodyAsJsonObject().getJsonArray("items").stream()
        .map(o -> ((JsonObject) o).getJsonObject("metadata").getString("name", "")).toList();
  }

  @Test
  void aggregatedV2ForNewKubectlWithCachingHeaders() throws Exception {
    HttpResponse<Buffer> r = get(portA, "/apis?timeout=32s", V133, null);
    assertEquals(200, r.statusCode());
    assertEquals("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
        r.getHeader("Content-Type"));
    assertEquals(Etags.of(r.body()), r.getHeader("ETag"));
    assertEquals("Accept", r.getHeader("Vary"));
    assertEquals("public", r.getHeader("Cache-Control"));
    assertEquals(List.of("stable.example.com", "widgets.example.io", "metrics.k8s.io"), groups(r));
    HttpResponse<Buffer> core = get(portA, "/api", V133, null);
    assertEquals(List.of(""), groups(core));
    assertEquals("apidiscovery.k8s.io/v2", core.bodyAsJsonObject().getString("apiVersion"));
  }

  @Test
  void aggregatedV2beta1ForOldKubectl() throws Exception {
    for (String path : List.of("/api", "/apis")) {
      HttpResponse<Buffer> r = get(portA, path, V127, null);
      assertEquals(200, r.statusCode());
      assertEquals("application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
          r.getHeader("Content-Type"));
      assertEquals("apidiscovery.k8s.io/v2beta1", r.bodyAsJsonObject().getString("apiVersion"));
    }
  }

  @Test
  void conditionalRequests() throws Exception {
    HttpResponse<Buffer> first = get(portA, "/apis", V133, null);
    String etag = first.getHeader("ETag");
    HttpResponse<Buffer> again = get(portA, "/apis", V133, etag);
    assertEquals(304, again.statusCode());
    assertNull(again.body());
    assertEquals(etag, again.getHeader("ETag"));
    HttpResponse<Buffer> beta = get(portA, "/apis", V127, etag);
    assertEquals(200, beta.statusCode(), "a v2 ETag never validates v2beta1");
    assertFalse(etag.equals(beta.getHeader("ETag")));
    assertEquals(first.body(), get(portA, "/apis", V133, "\"stale\"").body(), "same bytes on every request");
  }

  @Test
  void nopeerServesTheLocalView() throws Exception {
    HttpResponse<Buffer> r = get(portA, "/apis", NOPEER, null);
    assertEquals(200, r.statusCode());
    assertEquals(DiscoveryFormat.V2.contentType(), r.getHeader("Content-Type"));
    assertEquals(List.of("stable.example.com", "widgets.example.io"), groups(r));
  }

  @Test
  void mergedDocumentsAreByteIdenticalOnBothNodes() throws Exception {
    for (String accept : List.of(V133, V127)) {
      for (String path : List.of("/api", "/apis")) {
        HttpResponse<Buffer> a = get(portA, path, accept, null);
        HttpResponse<Buffer> b = get(portB, path, accept, null);
        assertEquals(a.body(), b.body(), path + " " + accept);
        assertEquals(a.getHeader("ETag"), b.getHeader("ETag"));
      }
    }
    assertEquals(get(portA, "/apis", null, null).body(), get(portB, "/apis", null, null).body());
  }

  @Test
  void legacyDocuments() throws Exception {
    HttpResponse<Buffer> api = get(portA, "/api", null, null);
    assertEquals(200, api.statusCode());
    assertEquals("application/json", api.getHeader("Content-Type"));
    assertNull(api.getHeader("ETag"));
    assertEquals("APIVersions", api.bodyAsJsonObject().getString("kind"));
    assertEquals("10.0.0.1:6443", api.bodyAsJsonObject().getJsonArray("serverAddressByClientCIDRs")
        .getJsonObject(0).getString("serverAddress"));
    HttpResponse<Buffer> apis = get(portA, "/apis", "application/json, */*", null);
    assertEquals("application/json", apis.getHeader("Content-Type"));
    assertEquals("APIGroupList", apis.bodyAsJsonObject().getString("kind"));
    assertEquals(3, apis.bodyAsJsonObject().getJsonArray("groups").size());
    HttpResponse<Buffer> group = get(portA, "/apis/stable.example.com", "application/json, */*", null);
    assertEquals("APIGroup", group.bodyAsJsonObject().getString("kind"));
    HttpResponse<Buffer> gv = get(portA, "/apis/stable.example.com/v1?timeout=32s", "application/json, */*", null);
    assertEquals(200, gv.statusCode());
    assertEquals("application/json", gv.getHeader("Content-Type"));
    JsonObject rl = gv.bodyAsJsonObject();
    assertEquals("APIResourceList", rl.getString("kind"));
    assertEquals(List.of("clusterfoos", "crontabs", "crontabs/status", "crontabs/scale"),
        rl.getJsonArray("resources").stream().map(o -> ((JsonObject) o).getString("name")).toList());
    HttpResponse<Buffer> v1 = get(portA, "/api/v1", V133, null);
    assertEquals("v1", v1.bodyAsJsonObject().getString("groupVersion"));
    assertEquals(200, get(portA, "/apis/", null, null).statusCode());
  }

  @Test
  void peerOnlyGroupVersionsGoToTheFallback() throws Exception {
    HttpResponse<Buffer> r = get(portA, "/apis/metrics.k8s.io/v1beta1", "application/json, */*", null);
    assertEquals("metrics.k8s.io/v1beta1", r.getHeader("X-Fallback"));
    HttpResponse<Buffer> w = get(portA, "/apis/widgets.example.io/v2", null, null);
    assertEquals("peer", w.bodyAsString());
    assertEquals(new GroupVersion("widgets.example.io", "v2"), fallbacks.get("/apis/widgets.example.io/v2"));
    HttpResponse<Buffer> g = get(portA, "/apis/metrics.k8s.io", null, null);
    assertEquals("metrics.k8s.io/v1beta1", g.getHeader("X-Fallback"));
    assertEquals(new GroupVersion("metrics.k8s.io", "v1beta1"), fallbacks.get("/apis/metrics.k8s.io"));
  }

  @Test
  void errorsAreStatusJson() throws Exception {
    for (String path : List.of("/apis/nope.example.com", "/apis/stable.example.com/v9", "/api/v2")) {
      HttpResponse<Buffer> r = get(portA, path, null, null);
      assertEquals(404, r.statusCode(), path);
      assertEquals("application/json", r.getHeader("Content-Type"));
      JsonObject s = r.bodyAsJsonObject();
      assertEquals("Status", s.getString("kind"));
      assertEquals("NotFound", s.getString("reason"));
      assertEquals(404, s.getInteger("code"));
    }
    HttpResponse<Buffer> yaml = get(portA, "/apis", "application/yaml", null);
    assertEquals(406, yaml.statusCode());
    assertEquals("application/json", yaml.getHeader("Content-Type"));
    assertEquals("NotAcceptable", yaml.bodyAsJsonObject().getString("reason"));
    HttpResponse<Buffer> post = send(HttpMethod.POST, portA, "/apis", null, null);
    assertEquals(405, post.statusCode());
    assertEquals("MethodNotAllowed", post.bodyAsJsonObject().getString("reason"));
  }

  @Test
  void otherPathsArePassedOn() throws Exception {
    HttpResponse<Buffer> r = get(portA, "/apis/stable.example.com/v1/crontabs", null, null);
    assertEquals(418, r.statusCode());
    assertEquals(418, get(portA, "/healthz", null, null).statusCode());
    assertTrue(DiscoveryHandler.isDiscoveryPath("/apis/g/v/"));
    assertFalse(DiscoveryHandler.isDiscoveryPath("/api/v1/namespaces"));
    assertFalse(DiscoveryHandler.isDiscoveryPath("/"));
  }

  @Test
  void snapshotSwapIsSeenByTheNextRequest() throws Exception {
    DiscoveryDocuments before = docsA.get();
    try {
      docsA.set(DiscoveryDocuments.empty("node-a", "10.0.0.1:6443"));
      assertEquals(List.of(), groups(get(portA, "/apis", V133, null)));
    } finally {
      docsA.set(before);
    }
  }
}
