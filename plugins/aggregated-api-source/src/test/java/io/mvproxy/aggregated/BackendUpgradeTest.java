package io.mvproxy.aggregated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.security.DevPki;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.junit5.VertxExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Upgrades and retries through the aggregated-API proxy against a real HTTPS backend (mutual TLS, 127.0.0.1): a
 * WebSocket {@code exec}-style subresource tunnelled with the caller's identity and sub-protocol, the backend's
 * error answer relayed, a non-upgrading 200 refused as kube-aggregator does, and an idempotent request sent again
 * after its pooled connection died while a POST is not.
 */
@ExtendWith(VertxExtension.class)
@Tag("unit")
class BackendUpgradeTest {
  private static final AggregatedOptions OPTIONS = new AggregatedOptions(15_000, 60_000, 15_000, 8, 64, 1);
  private static final String BASE = "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/f1";

  @TempDir
  static Path pki;
  Vertx vertx;
  FakeBackend backend;
  ApiServiceSource source;
  FrontServer front;
  /** Held by the test: Vert.x closes a client that becomes unreachable, which would cut a handshake in progress. */
  WebSocketClient client;

  @BeforeEach
  void setUp(Vertx vertx) throws Exception {
    this.vertx = vertx;
    if (!Files.exists(pki.resolve("backend.crt"))) {
      new DevPki(pki).generate(List.of("backend"), List.of(), Map.of());
    }
    backend = new FakeBackend(vertx, pki);
    TestContext context = new TestContext(vertx, pki);
    context.services.put("wardle/api:443", backend.url());
    source = new ApiServiceSourceFactory(OPTIONS).create(Manifests.wardle(), context);
    source.refresh().otherwiseEmpty().await(30, TimeUnit.SECONDS);
    front = new FrontServer(vertx, source);
    client = vertx.createWebSocketClient();
  }

  @AfterEach
  void tearDown() throws Exception {
    source.close().await(10, TimeUnit.SECONDS);
    backend.close();
  }

  private WebSocketConnectOptions ws(String uri) {
    return new WebSocketConnectOptions().setHost("127.0.0.1").setPort(front.port).setURI(uri)
        .addSubProtocol("v5.channel.k8s.io");
  }

  @Test
  void webSocketExecIsTunnelledToTheBackendWithTheCallersIdentity() throws Exception {
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    // the handlers are set on the connection's context as it opens: no message arrives before them
    WebSocket socket = client.connect(ws(BASE + "/exec?command=sh&stdin=true")).onSuccess(w -> {
      w.textMessageHandler(got::add);
      w.binaryMessageHandler(b -> got.add("binary:" + b.toString()));
    }).await(30, TimeUnit.SECONDS);
    assertEquals("v5.channel.k8s.io", socket.subProtocol(), "the backend's Sec-WebSocket-Protocol is relayed");
    assertEquals("hello alice v5.channel.k8s.io " + BASE + "/exec?command=sh&stdin=true",
        got.poll(30, TimeUnit.SECONDS));
    socket.writeTextMessage("ls");
    assertEquals("echo:ls", got.poll(30, TimeUnit.SECONDS));
    // a payload larger than a TLS record and the pump's buffers, both ways
    String big = "x".repeat(200_000);
    socket.writeBinaryMessage(Buffer.buffer(big));
    assertEquals("binary:" + big, got.poll(30, TimeUnit.SECONDS));
    // the upgrade request (a refresh's discovery and OpenAPI downloads may come after it)
    var h = backend.requests.stream().filter(x -> x.get("Upgrade") != null).reduce((a, b) -> b).orElseThrow();
    assertEquals(List.of("dev", "system:authenticated"), h.getAll("X-Remote-Group"));
    assertEquals(DevPki.PROXY_CLIENT_CN, backend.clientCns.get(backend.clientCns.size() - 1));
    assertEquals("websocket", h.get("Upgrade").toLowerCase());
    socket.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void theBackendClosingTheTunnelClosesTheCallersConnection() throws Exception {
    java.util.concurrent.CompletableFuture<Void> closed = new java.util.concurrent.CompletableFuture<>();
    client.connect(ws(BASE + "/attach")).onSuccess(w -> w.closeHandler(v -> closed.complete(null)))
        .await(30, TimeUnit.SECONDS);
    backend.close(); // closes the backend's connections: the tunnel goes with them
    closed.get(30, TimeUnit.SECONDS);
  }

  @Test
  void errorAnswersAreRelayedAndNonUpgradesRefused() throws Exception {
    UpgradeRejectedException f = (UpgradeRejectedException) client.connect(ws(BASE + "/forbidden"))
        .<Throwable>map(x -> null).recover(io.vertx.core.Future::succeededFuture).await(30, TimeUnit.SECONDS);
    assertEquals(403, f.getStatus());
    assertTrue(f.getBody().toString().contains("exec is forbidden here"), f.getBody().toString());
    UpgradeRejectedException plain = (UpgradeRejectedException) client.connect(ws(BASE + "/plain"))
        .<Throwable>map(x -> null).recover(io.vertx.core.Future::succeededFuture).await(30, TimeUnit.SECONDS);
    assertEquals(503, plain.getStatus());
    assertTrue(plain.getBody().toString().contains("invalid upgrade response: status code 200"),
        plain.getBody().toString());
  }

  @Test
  void anIdempotentRequestIsSentAgainAfterItsConnectionDied() throws Exception {
    HttpClient http = vertx.createHttpClient();
    var get = http.request(new RequestOptions().setHost("127.0.0.1").setPort(front.port).setURI(BASE + "/flaky"))
        .compose(r -> r.send().compose(x -> x.body().map(b -> x.statusCode() + " " + b)))
        .await(30, TimeUnit.SECONDS);
    assertTrue(get.startsWith("200 "), get);
    assertEquals(2, backend.flaky.get(), "sent twice: once on the dying connection, once again");

    backend.flaky.set(0);
    var post = http.request(new RequestOptions().setHost("127.0.0.1").setPort(front.port).setURI(BASE + "/flaky")
            .setMethod(HttpMethod.POST).putHeader("X-Test-Buffer", "1"))
        .compose(r -> r.send("{}").compose(x -> x.body().map(b -> x.statusCode() + " " + b)))
        .await(30, TimeUnit.SECONDS);
    assertTrue(post.startsWith("503 "), post);
    assertEquals(1, backend.flaky.get(), "a POST is never sent twice");
  }
}
