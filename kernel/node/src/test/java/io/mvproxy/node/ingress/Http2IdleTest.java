package io.mvproxy.node.ingress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientConnection;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpConnectOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpVersion;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Go's HTTP/2 idle rule and graceful GOAWAY ({@link ConnectionTimeouts}) on a real Vert.x HTTP/2 server (cleartext
 * h2 with prior knowledge, so no TLS is needed; the rule does not depend on how h2 was negotiated) and a real h2
 * client: an h2 connection without streams gets a GOAWAY and is closed after the idle timeout; a stream silent for
 * twice the idle timeout (a watch) keeps it open; {@link ConnectionTimeouts#goAway} lets an open stream finish and
 * the connection close after it. The server's settings are {@link ServerLimits#http2}'s.
 */
@Tag("unit")
class Http2IdleTest {
  static final long IDLE_MS = 700;
  Vertx vertx;
  HttpServer server;
  HttpClientAgent client;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    ConnectionTimeouts timeouts = new ConnectionTimeouts(30_000, IDLE_MS);
    HttpServerOptions o = ServerLimits.http2(ServerLimits.apply(new HttpServerOptions()), 100)
        .setHttp2ClearTextEnabled(true);
    assertEquals(100, o.getInitialSettings().getMaxConcurrentStreams());
    assertEquals(256 * 1024, o.getInitialSettings().getInitialWindowSize());
    assertEquals(1 << 20, o.getInitialSettings().getMaxHeaderListSize());
    assertEquals(0, o.getIdleTimeout());
    server = vertx.createHttpServer(o)
        .connectionHandler(timeouts::connected)
        .requestHandler(req -> {
          switch (req.path()) {
            case "/silent" -> {
              req.response().setChunked(true).writeHead();
              vertx.setTimer(IDLE_MS * 2, t -> req.response().end("late"));
            }
            case "/goaway" -> {
              ConnectionTimeouts.goAway(req.connection());
              req.response().end("bye");
            }
            default -> req.response().end("ok");
          }
        }).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    client = vertx.createHttpClient(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2)
        .setHttp2ClearTextUpgrade(false));
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  HttpClientConnection connect() throws Exception {
    return client.connect(new HttpConnectOptions().setHost("127.0.0.1").setPort(server.actualPort()))
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  static String get(HttpClientConnection c, String path) throws Exception {
    return c.request(HttpMethod.GET, path).compose(r -> r.send().compose(resp -> resp.body()))
        .map(b -> b.toString()).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void idleConnectionGetsGoawayAndIsClosed() throws Exception {
    HttpClientConnection c = connect();
    CompletableFuture<Long> goaway = new CompletableFuture<>();
    CompletableFuture<Long> closed = new CompletableFuture<>();
    c.goAwayHandler(g -> goaway.complete(System.nanoTime()));
    c.closeHandler(v -> closed.complete(System.nanoTime()));
    long t0 = System.nanoTime();
    assertEquals("ok", get(c, "/"));
    long goawayMs = (goaway.get(10, TimeUnit.SECONDS) - t0) / 1_000_000;
    assertTrue(goawayMs >= IDLE_MS, "GOAWAY " + goawayMs + " ms after the request, idle timeout " + IDLE_MS);
    long closedMs = (closed.get(10, TimeUnit.SECONDS) - t0) / 1_000_000;
    assertTrue(closedMs >= goawayMs && closedMs < IDLE_MS + ConnectionTimeouts.GOAWAY_CLOSE_MS + 5_000,
        "closed " + closedMs + " ms after the request");
  }

  @Test
  void silentStreamKeepsTheConnection() throws Exception {
    HttpClientConnection c = connect();
    CompletableFuture<Void> goaway = new CompletableFuture<>();
    c.goAwayHandler(g -> goaway.complete(null));
    assertEquals("late", get(c, "/silent"));
    assertFalse(goaway.isDone(), "GOAWAY while a stream was open");
    assertEquals("ok", get(c, "/"));
  }

  @Test
  void goAwayLetsOpenStreamsFinishThenCloses() throws Exception {
    HttpClientConnection c = connect();
    CompletableFuture<Void> goaway = new CompletableFuture<>();
    CompletableFuture<Void> closed = new CompletableFuture<>();
    c.goAwayHandler(g -> goaway.complete(null));
    c.closeHandler(v -> closed.complete(null));
    var silent = c.request(HttpMethod.GET, "/silent").compose(r -> r.send().compose(resp -> resp.body()));
    assertEquals("bye", get(c, "/goaway"));
    goaway.get(10, TimeUnit.SECONDS);
    assertFalse(closed.isDone(), "closed with a stream open");
    assertEquals("late", silent.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS).toString());
    closed.get(10, TimeUnit.SECONDS);
  }
}
