package io.mvproxy.aggregated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.Freshness;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.mvproxy.security.DevPki;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The APIService source against a scriptable HTTPS backend (real servers on 127.0.0.1). */
@ExtendWith(VertxExtension.class)
@Tag("unit")
class ApiServiceSourceTest {
  /** Generous deadlines: CI machines can be very loaded (the first TLS handshake of a JVM takes seconds there). */
  private static final AggregatedOptions OPTIONS = new AggregatedOptions(15_000, 60_000, 15_000, 8, 64, 1);
  /** A short discovery deadline, for the slow-backend test. */
  private static final AggregatedOptions FAST = new AggregatedOptions(1_500, 60_000, 15_000, 8, 64, 1);

  @TempDir
  static Path pki;
  Vertx vertx;
  FakeBackend backend;
  TestContext context;
  HttpClient http;

  @BeforeEach
  void setUp(Vertx vertx) throws Exception {
    this.vertx = vertx;
    if (!Files.exists(pki.resolve("backend.crt"))) {
      new DevPki(pki).generate(List.of("backend"), List.of(), Map.of());
    }
    backend = new FakeBackend(vertx, pki);
    context = new TestContext(vertx, pki);
    context.services.put("wardle/api:443", backend.url());
    http = vertx.createHttpClient();
  }

  @AfterEach
  void tearDown() throws Exception {
    backend.close();
  }

  private ApiServiceSource start(JsonObject manifest) throws Exception {
    return start(manifest, OPTIONS);
  }

  private ApiServiceSource start(JsonObject manifest, AggregatedOptions options) throws Exception {
    ApiServiceSource s = new ApiServiceSourceFactory(options).create(manifest, context);
    s.refresh().otherwiseEmpty().await(30, TimeUnit.SECONDS);
    return s;
  }

  private static ServedGroupVersion only(ApiServiceSource s) {
    assertEquals(1, s.groupVersions().size());
    return s.groupVersions().get(0);
  }

  @Test
  void aggregatedDiscoveryTakesOnlyItsGroupVersionAsTheAggregator() throws Exception {
    ApiServiceSource s = start(Manifests.wardle());
    ServedGroupVersion gv = only(s);
    assertEquals(Freshness.Current, gv.freshness());
    assertEquals(1000, gv.groupPriorityMinimum());
    assertEquals(15, gv.versionPriority());
    assertEquals(1, gv.resources().size());
    DiscoveryResource r = gv.resources().get(0);
    assertEquals("flunders", r.resource());
    assertEquals("status", r.subresources().get(0).subresource());
    assertTrue(s.available().isAvailable());
    assertEquals("Passed", s.available().reason());
    assertEquals("True", s.status().getJsonArray("conditions").getJsonObject(0).getString("status"));

    var first = backend.requests.get(0);
    assertEquals(BackendDiscovery.ACCEPT, first.get("Accept"));
    assertEquals("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
        + "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json",
        first.get("Accept"));
    assertEquals("system:kube-aggregator", first.get("X-Remote-User"));
    assertEquals(List.of("system:masters"), first.getAll("X-Remote-Group"));
    assertNull(first.get("If-None-Match"));
    assertEquals(DevPki.PROXY_CLIENT_CN, backend.clientCns.get(0));

    s.refresh().await(30, TimeUnit.SECONDS);
    var second = backend.requests.stream().filter(h -> "/apis".equals(h.get(FakeBackend.PATH)))
        .reduce((a, b) -> b).orElseThrow();
    assertEquals(FakeBackend.ETAG, second.get("If-None-Match"));
    assertEquals(gv.resources(), only(s).resources(), "304 keeps the resources");
    assertEquals(Freshness.Current, only(s).freshness());
    s.close().await();
  }

  @Test
  void legacyOnlyBackendIsReadFromApiResourceList() throws Exception {
    backend.mode = FakeBackend.Mode.LEGACY_ONLY;
    ApiServiceSource s = start(Manifests.wardle());
    ServedGroupVersion gv = only(s);
    assertEquals(Freshness.Current, gv.freshness());
    DiscoveryResource r = gv.resources().get(0);
    assertEquals("flunders", r.resource());
    assertEquals("flunder", r.singularResource());
    assertTrue(r.namespaced());
    assertEquals(List.of("fl"), r.shortNames());
    assertEquals("Flunder", r.responseKind().kind());
    assertEquals("wardle.example.com", r.responseKind().group());
    assertEquals(2, r.subresources().size());
    assertEquals("status", r.subresources().get(0).subresource());
    assertEquals("scale", r.subresources().get(1).subresource());
    assertEquals("autoscaling", r.subresources().get(1).responseKind().group());
    assertEquals("Scale", r.subresources().get(1).responseKind().kind());
    s.close().await();
  }

  @Test
  void downBackendIsStaleAnd503() throws Exception {
    int closed = closedPort();
    context.services.put("wardle/api:443", "https://127.0.0.1:" + closed);
    ApiServiceSource s = start(Manifests.wardle());
    assertEquals(Freshness.Stale, only(s).freshness());
    assertFalse(s.available().isAvailable());
    assertEquals("FailedDiscoveryCheck", s.available().reason());
    assertTrue(s.available().message().startsWith("failing or missing response from https://127.0.0.1:" + closed + "/apis"),
        s.available().message());
    Resp resp = get("/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", s);
    assertEquals(503, resp.statusCode());
    assertEquals("1", resp.getHeader("Retry-After"));
    JsonObject status = new JsonObject(resp.body());
    assertEquals("ServiceUnavailable", status.getString("reason"));
    assertTrue(status.getString("message").startsWith("error trying to reach service"), status.encode());
    s.close().await();
  }

  @Test
  void slowBackendTimesOutToStaleKeepingLastKnownResources() throws Exception {
    ApiServiceSource s = start(Manifests.wardle(), FAST);
    for (int i = 0; i < 5 && s.freshness() != Freshness.Current; i++) {
      s.refresh().otherwiseEmpty().await(30, TimeUnit.SECONDS); // a loaded machine may miss the short deadline once
    }
    List<DiscoveryResource> known = only(s).resources();
    assertEquals(1, known.size());
    AtomicInteger changes = new AtomicInteger();
    CompletableFuture<Boolean> onContext = new CompletableFuture<>();
    s.onChange(() -> {
      changes.incrementAndGet();
      onContext.complete(Vertx.currentContext() != null);
    });
    backend.mode = FakeBackend.Mode.SLOW;
    long t0 = System.nanoTime();
    assertTrue(s.refresh().transform(ar -> io.vertx.core.Future.succeededFuture(ar.failed()))
        .await(30, TimeUnit.SECONDS), "refresh fails");
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(ms < 10_000, "deadline honoured: " + ms + " ms");
    assertEquals(Freshness.Stale, only(s).freshness());
    assertEquals(known, only(s).resources());
    assertEquals("FailedDiscoveryCheck", s.available().reason());
    assertTrue(s.available().message().contains("timed out"), s.available().message());
    assertTrue(onContext.join(), "listener runs on a Vert.x context");
    assertEquals(1, changes.get());

    backend.mode = FakeBackend.Mode.AGGREGATED;
    for (int i = 0; i < 5 && s.freshness() != Freshness.Current; i++) {
      s.refresh().otherwiseEmpty().await(30, TimeUnit.SECONDS);
    }
    assertEquals(Freshness.Current, only(s).freshness());
    assertEquals(2, changes.get());
    s.close().await();
  }

  /** A backend streaming an endless discovery answer fails the check at the bound (Stale, FailedDiscoveryCheck). */
  @Test
  void endlessDiscoveryAnswerIsCutAtTheBound() throws Exception {
    ApiServiceSource s = start(Manifests.wardle());
    backend.mode = FakeBackend.Mode.ENDLESS;
    try {
      assertTrue(s.refresh().transform(ar -> io.vertx.core.Future.succeededFuture(ar.failed()))
          .await(60, TimeUnit.SECONDS), "refresh fails");
      assertEquals(Freshness.Stale, only(s).freshness());
      assertEquals("FailedDiscoveryCheck", s.available().reason());
      assertTrue(s.available().message().contains("response body larger than 33554432 bytes"),
          s.available().message());
    } finally {
      backend.mode = FakeBackend.Mode.AGGREGATED;
      s.close().await();
    }
  }

  @Test
  void unresolvableServiceLoadsStaleAndAnswers503() throws Exception {
    context.services.clear();
    ApiServiceSource s = start(Manifests.wardle());
    assertEquals(Freshness.Stale, only(s).freshness());
    assertEquals("ServiceNotFound", s.available().reason());
    assertTrue(s.available().message().contains("service/api in \"wardle\" is not present"), s.available().message());
    assertTrue(s.available().message().contains("wardle/api:443"));
    Resp resp = get("/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", s);
    assertEquals(503, resp.statusCode());
    assertEquals("1", resp.getHeader("Retry-After"));
    assertTrue(new JsonObject(resp.body()).getString("message").contains("wardle/api:443"));
    s.close().await();
  }

  @Test
  void forwardsWithIdentityHeadersBufferedBody() throws Exception {
    forwardsWithIdentity(true);
  }

  @Test
  void forwardsWithIdentityHeadersStreamedBody() throws Exception {
    forwardsWithIdentity(false);
  }

  private void forwardsWithIdentity(boolean buffered) throws Exception {
    ApiServiceSource s = start(Manifests.wardle());
    FrontServer front = new FrontServer(vertx, s);
    RequestOptions o = new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(front.port)
        .setURI("/apis/wardle.example.com/v1alpha1/namespaces/ns1/flunders?dryRun=All")
        .putHeader("Authorization", "Bearer secret").putHeader("X-Remote-User", "mallory")
        .putHeader("X-Remote-Group", "system:masters").putHeader("Content-Type", "application/json");
    if (buffered) {
      o.putHeader("X-Test-Buffer", "1");
    }
    Resp resp = send(o, "{\"metadata\":{\"name\":\"f1\"}}");
    assertEquals(201, resp.statusCode());
    JsonObject echo = new JsonObject(resp.body());
    JsonObject h = echo.getJsonObject("headers");
    assertEquals("POST", echo.getString("method"));
    assertEquals("/apis/wardle.example.com/v1alpha1/namespaces/ns1/flunders?dryRun=All", echo.getString("uri"));
    assertEquals("{\"metadata\":{\"name\":\"f1\"}}", echo.getString("body"));
    assertEquals("[\"alice\"]", h.getJsonArray("x-remote-user").encode());
    assertEquals("[\"uid-1\"]", h.getJsonArray("x-remote-uid").encode());
    assertEquals("[\"dev\",\"system:authenticated\"]", h.getJsonArray("x-remote-group").encode());
    assertEquals("[\"blue\"]", h.getJsonArray("x-remote-extra-scopes.example.com%2fteam").encode());
    assertFalse(h.containsKey("authorization"), "Authorization is not forwarded");
    assertEquals("127.0.0.1", h.getJsonArray("x-forwarded-for").getString(0));
    assertEquals("/apis/wardle.example.com/v1alpha1/namespaces/ns1/flunders?dryRun=All",
        h.getJsonArray("x-forwarded-uri").getString(0));
    assertEquals("127.0.0.1:" + backend.port, h.getJsonArray("host").getString(0));
    assertEquals(DevPki.PROXY_CLIENT_CN, echo.getString("cn"), "proxy client certificate presented");
    s.close().await();
  }

  @Test
  void watchStreamsBeforeTheBackendEnds() throws Exception {
    ApiServiceSource s = start(Manifests.wardle());
    FrontServer front = new FrontServer(vertx, s);
    CompletableFuture<String> firstChunk = new CompletableFuture<>();
    HttpClientResponse resp = Streams.open(vertx, http, front.port,
        "/apis/wardle.example.com/v1alpha1/namespaces/ns1/flunders?watch=true", b -> firstChunk.complete(b.toString()));
    assertEquals(200, resp.statusCode());
    assertEquals("chunked", resp.getHeader("Transfer-Encoding"));
    assertTrue(firstChunk.get(30, TimeUnit.SECONDS).startsWith("{\"type\":\"ADDED\""));
    resp.request().reset();
    s.close().await();
  }

  @Test
  void caBundleVerifiesTheBackend() throws Exception {
    JsonObject m = Manifests.wardle();
    m.getJsonObject("spec").remove("insecureSkipTLSVerify");
    m.getJsonObject("spec").put("caBundle", Base64.getEncoder().encodeToString(Files.readAllBytes(pki.resolve("ca.crt"))));
    ApiServiceSource good = start(m);
    assertEquals(Freshness.Current, only(good).freshness());
    good.close().await();

    m.getJsonObject("spec").put("caBundle",
        Base64.getEncoder().encodeToString(Files.readAllBytes(pki.resolve("front-proxy-ca.crt"))));
    ApiServiceSource wrongCa = start(m);
    assertEquals(Freshness.Stale, only(wrongCa).freshness());
    assertEquals("FailedDiscoveryCheck", wrongCa.available().reason());
    Resp resp = get("/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", wrongCa);
    assertEquals(503, resp.statusCode());
    wrongCa.close().await();

  }

  @Test
  void closeStopsTheSource() throws Exception {
    ApiServiceSource s = start(Manifests.wardle());
    s.close().await(30, TimeUnit.SECONDS);
    assertEquals("apiservice/v1alpha1.wardle.example.com", s.name());
    assertTrue(s.refresh().transform(ar -> io.vertx.core.Future.succeededFuture(ar.failed()))
        .await(30, TimeUnit.SECONDS), "a closed source does not refresh");
    assertEquals(Freshness.Current, only(s).freshness());
  }

  /** @return a loopback port that was just bound and closed: connecting to it is refused (port 1 may be filtered) */
  private static int closedPort() throws java.io.IOException {
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /** A complete answer, read on the event loop. */
  record Resp(int statusCode, io.vertx.core.MultiMap headers, Buffer body) {
    String getHeader(String name) {
      return headers.get(name);
    }
  }

  private Resp get(String uri, ApiServiceSource s) throws Exception {
    FrontServer front = new FrontServer(vertx, s);
    return send(new RequestOptions().setMethod(HttpMethod.GET).setHost("127.0.0.1").setPort(front.port).setURI(uri),
        null);
  }

  private Resp send(RequestOptions o, String body) throws Exception {
    // the body is read in the send future's own callback: chained further out (and registered from this thread) it
    // may run after a short answer ended, and body() then never completes
    return http.request(o).compose(r -> (body == null ? r.send() : r.send(body))
        .compose(x -> x.body().map(b -> new Resp(x.statusCode(), x.headers(), b)))).await(60, TimeUnit.SECONDS);
  }
}
