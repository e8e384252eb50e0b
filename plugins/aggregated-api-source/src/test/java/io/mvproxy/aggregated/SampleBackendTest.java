package io.mvproxy.aggregated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.Freshness;
import io.mvproxy.example.wardle.SampleApiServer;
import io.mvproxy.example.wardle.SampleApiServerOptions;
import io.mvproxy.security.DevPki;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The APIService source in front of the real wardle sample API server (plugins/examples/sample-apiserver) started
 * in-process over HTTPS, trusting the node's front-proxy client certificate.
 */
@ExtendWith(VertxExtension.class)
@Tag("unit")
class SampleBackendTest {
  private static final AggregatedOptions FAST = new AggregatedOptions(15_000, 60_000, 15_000, 8, 64, 1);
  private static final String FLUNDERS = "/apis/wardle.example.com/v1alpha1/namespaces/demo/flunders";

  @TempDir
  static Path pki;
  Vertx vertx;
  TestContext context;
  HttpClient http;

  record Resp(int status, MultiMap headers, Buffer body) {
    JsonObject json() {
      return new JsonObject(body);
    }
  }

  @BeforeAll
  static void certs() throws Exception {
    new DevPki(pki).generate(List.of("backend"), List.of(), Map.of());
  }

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
    context = new TestContext(vertx, pki);
    http = vertx.createHttpClient();
  }

  private HttpServer sample(boolean legacyOnly) throws Exception {
    HttpServer s = SampleApiServer.start(vertx, new SampleApiServerOptions(0, "127.0.0.1",
        pki.resolve("backend.crt").toString(), pki.resolve("backend.key").toString(),
        pki.resolve("front-proxy-ca.crt").toString(), legacyOnly)).await(30, TimeUnit.SECONDS);
    context.services.put("wardle/api:443", "https://127.0.0.1:" + s.actualPort());
    return s;
  }

  private ApiServiceSource source(JsonObject manifest) throws Exception {
    ApiServiceSource s = new ApiServiceSourceFactory(FAST).create(manifest, context);
    s.refresh().otherwiseEmpty().await(30, TimeUnit.SECONDS);
    return s;
  }

  private Resp call(FrontServer front, HttpMethod m, String uri, String body) throws Exception {
    RequestOptions o = new RequestOptions().setMethod(m).setHost("127.0.0.1").setPort(front.port).setURI(uri)
        .putHeader("Content-Type", "application/json");
    // the body is read in the send future's own callback: chained further out (and registered from this thread) it
    // may run after a short answer ended, and body() then never completes (a CI run timed out so)
    return http.request(o).compose(r -> (body == null ? r.send() : r.send(body))
        .compose(x -> x.body().map(b -> new Resp(x.statusCode(), x.headers(), b)))).await(30, TimeUnit.SECONDS);
  }

  @Test
  void discoversAndServesFlundersWithTheCallersIdentity() throws Exception {
    sample(false);
    JsonObject m = Manifests.wardle();
    m.getJsonObject("spec").remove("insecureSkipTLSVerify");
    m.getJsonObject("spec").put("caBundle", Base64.getEncoder().encodeToString(Files.readAllBytes(pki.resolve("ca.crt"))));
    ApiServiceSource s = source(m);
    assertEquals(Freshness.Current, s.freshness(), s.available().message());
    DiscoveryResource r = s.groupVersions().get(0).resources().get(0);
    assertEquals("flunders", r.resource());
    assertEquals("Flunder", r.responseKind().kind());
    assertTrue(r.namespaced());
    assertEquals("Passed", s.available().reason());
    // the backend's OpenAPI documents of the group-version, downloaded after the check (kube-aggregator's controllers)
    JsonObject v3 = s.openApiV3(s.spec().groupVersion());
    assertEquals("Flunder", v3.getJsonObject("components").getJsonObject("schemas")
        .getJsonObject("com.example.wardle.v1alpha1.Flunder").getJsonArray("x-kubernetes-group-version-kind")
        .getJsonObject(0).getString("kind"));
    JsonObject v2 = s.openApiV2(s.spec().groupVersion());
    assertTrue(v2.getJsonObject("paths").containsKey("/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders"),
        v2.getJsonObject("paths").fieldNames().toString());
    assertTrue(v2.getJsonObject("definitions").containsKey("com.example.wardle.v1alpha1.FlunderSpec"));
    java.util.concurrent.atomic.AtomicInteger changes = new java.util.concurrent.atomic.AtomicInteger();
    s.onChange(changes::incrementAndGet);
    s.refresh().await(30, TimeUnit.SECONDS);
    assertEquals(0, changes.get(), "the same documents again (v3 revalidated by its ETag): no change told");

    FrontServer front = new FrontServer(vertx, s);
    Resp created = call(front, HttpMethod.POST, FLUNDERS, "{\"metadata\":{\"name\":\"f1\"}}");
    assertEquals(201, created.status(), created.body().toString());
    JsonObject ann = created.json().getJsonObject("metadata").getJsonObject("annotations");
    assertEquals("alice", ann.getString("wardle.example.com/created-by"), "identity reached the backend");
    assertEquals("dev,system:authenticated", ann.getString("wardle.example.com/created-by-groups"));
    Resp list = call(front, HttpMethod.GET, FLUNDERS, null);
    assertEquals(1, list.json().getJsonArray("items").size());
    Resp missing = call(front, HttpMethod.GET, FLUNDERS + "/nope", null);
    assertEquals(404, missing.status());
    assertEquals("NotFound", missing.json().getString("reason"), "backend Status relayed");
    s.close().await();
  }

  @Test
  void watchThroughTheProxy() throws Exception {
    sample(false);
    ApiServiceSource s = source(Manifests.wardle());
    FrontServer front = new FrontServer(vertx, s);
    LinkedBlockingQueue<String> chunks = new LinkedBlockingQueue<>();
    var resp = Streams.open(vertx, http, front.port, FLUNDERS + "?watch=true", b -> chunks.add(b.toString()));
    assertEquals(200, resp.statusCode());
    call(front, HttpMethod.POST, FLUNDERS, "{\"metadata\":{\"name\":\"w1\"}}");
    String chunk = chunks.poll(30, TimeUnit.SECONDS);
    assertTrue(chunk != null && chunk.contains("\"ADDED\"") && chunk.contains("\"w1\""), String.valueOf(chunk));
    resp.request().reset();
    s.close().await();
  }

  @Test
  void legacyOnlySampleFallsBackToApiResourceList() throws Exception {
    sample(true);
    ApiServiceSource s = source(Manifests.wardle());
    assertEquals(Freshness.Current, s.freshness(), s.available().message());
    assertEquals("flunders", s.groupVersions().get(0).resources().get(0).resource());
    assertTrue(s.groupVersions().get(0).resources().get(0).storageVersionHash() != null);
    s.close().await();
  }

  @Test
  void stoppedSampleLeavesStaleResourcesAnd503() throws Exception {
    HttpServer server = sample(false);
    ApiServiceSource s = source(Manifests.wardle());
    assertEquals(Freshness.Current, s.freshness());
    List<DiscoveryResource> known = s.groupVersions().get(0).resources();
    server.close().await(30, TimeUnit.SECONDS);
    s.refresh().otherwiseEmpty().await(30, TimeUnit.SECONDS);
    assertEquals(Freshness.Stale, s.freshness());
    assertEquals(known, s.groupVersions().get(0).resources());
    assertEquals("False", s.available().status());
    FrontServer front = new FrontServer(vertx, s);
    Resp r = call(front, HttpMethod.GET, FLUNDERS, null);
    assertEquals(503, r.status());
    assertEquals("1", r.headers().get("Retry-After"));
    assertEquals(503, r.json().getInteger("code"));
    s.close().await();
  }
}
