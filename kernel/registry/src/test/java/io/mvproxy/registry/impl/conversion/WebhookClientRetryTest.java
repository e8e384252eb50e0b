package io.mvproxy.registry.impl.conversion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.registry.impl.admission.WebhookClient;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PfxOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@link WebhookClient}'s one resend, against a real HTTPS server on 127.0.0.1: a connection the server closes before
 * answering (as a pooled keep-alive connection of a webhook that stopped) is retried once on a new connection, as Go's
 * transport does; a server that closes every connection fails the call after that one resend.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("unit")
class WebhookClientRetryTest {
  Vertx vertx;
  HttpServer server;
  String caBundle;
  WebhookClient http;
  /** Requests to close without an answer before answering again. */
  final AtomicInteger toDrop = new AtomicInteger();
  final AtomicInteger requests = new AtomicInteger();

  @BeforeAll
  void start() throws Exception {
    vertx = Vertx.vertx();
    Path store = WebhookConverterTest.selfSigned("retry");
    caBundle = Base64.getEncoder().encodeToString(Files.readAllBytes(store.resolveSibling("retry.pem")));
    server = vertx.createHttpServer(new HttpServerOptions().setSsl(true).setKeyCertOptions(new PfxOptions()
            .setPath(store.toString()).setPassword("changeit")))
        .requestHandler(req -> req.body().onSuccess(b -> {
          requests.incrementAndGet();
          if (toDrop.getAndDecrement() > 0) {
            req.connection().close();
          } else {
            req.response().putHeader("Content-Type", "application/json").end("{\"ok\":true}");
          }
        }))
        .listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    http = new WebhookClient(vertx, (ns, name, port) -> Optional.empty());
  }

  @AfterAll
  void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private JsonObject config() {
    return new JsonObject().put("url", "https://127.0.0.1:" + server.actualPort() + "/w").put("caBundle", caBundle);
  }

  @Test
  void aConnectionClosedBeforeTheAnswerIsResentOnce() throws Exception {
    requests.set(0);
    toDrop.set(1);
    String body = http.post(config(), 10, new JsonObject()).toCompletionStage().toCompletableFuture()
        .get(20, TimeUnit.SECONDS).toString();
    assertEquals("{\"ok\":true}", body);
    assertEquals(2, requests.get(), "the dropped request and its resend");
  }

  @Test
  void aServerClosingEveryConnectionFailsAfterThePoolsWorthOfResends() throws Exception {
    requests.set(0);
    toDrop.set(100);
    ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
        () -> http.post(config(), 10, new JsonObject()).toCompletionStage().toCompletableFuture()
            .get(20, TimeUnit.SECONDS));
    assertInstanceOf(WebhookClient.CallException.class, e.getCause());
    assertTrue(e.getCause().getMessage().startsWith("Post \"https://127.0.0.1:" + server.actualPort() + "/w?timeout=10s\": "),
        e.getCause().getMessage());
    assertEquals(1 + WebhookClient.CLOSED_RETRIES, requests.get(), "one request and a resend per pooled "
        + "connection, no more");
    toDrop.set(0);
  }
}
