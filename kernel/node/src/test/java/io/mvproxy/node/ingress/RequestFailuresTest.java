package io.mvproxy.node.ingress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The ingress's failure steps on a real HTTP server: an exception thrown by a handler, one thrown later in a
 * future's callback or a timer (which Vert.x only reports to its exception handler), and a handler that never
 * answers are all answered with a Status (500 InternalError, 504 Timeout) carrying the request's {@code Audit-Id}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("unit")
class RequestFailuresTest {
  Vertx vertx;
  HttpServer server;
  HttpServer longServer;
  final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  void start() throws Exception {
    vertx = Vertx.vertx();
    RequestFailures.install(vertx);
    Router router = Router.router(vertx);
    router.route().failureHandler(StatusResponses::onFailure);
    router.route().handler(new AuditIds());
    router.route().handler(new RequestDeadline(Duration.ofMillis(500)));
    router.get("/sync").handler(ctx -> {
      throw new IllegalStateException("sync boom");
    });
    router.get("/future").handler(ctx -> Future.succeededFuture("x").onSuccess(v -> {
      throw new IllegalStateException("async boom");
    }));
    router.get("/timer").handler(ctx -> ctx.vertx().setTimer(5, t -> {
      throw new IllegalStateException("timer boom");
    }));
    router.get("/never").handler(ctx -> { });
    server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1")
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    // a 5-minute --request-timeout: only a client's ?timeout can end /never within the client's 10 s
    Router longRouter = Router.router(vertx);
    longRouter.route().failureHandler(StatusResponses::onFailure);
    longRouter.route().handler(ctx -> {
      io.mvproxy.api.RequestScope.of(ctx).info(io.mvproxy.api.RequestInfo.parse(ctx.request().method().name(),
          ctx.request().path(), ctx.request().getParam("watch")));
      ctx.next();
    });
    longRouter.route().handler(new RequestDeadline(Duration.ofMinutes(5)));
    longRouter.get("/never").handler(ctx -> { });
    longRouter.route().handler(ctx -> ctx.response().end("ok"));
    longServer = vertx.createHttpServer().requestHandler(longRouter).listen(0, "127.0.0.1")
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @AfterAll
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  HttpResponse<String> get(String path, String auditId) throws Exception {
    return get(server, path, auditId);
  }

  HttpResponse<String> get(HttpServer to, String path, String auditId) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + to.actualPort() + path))
        .timeout(Duration.ofSeconds(10));
    if (auditId != null) {
      b.header(AuditIds.HEADER, auditId);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void everyFailureIsAStatusWithTheAuditId() throws Exception {
    for (String p : new String[] {"/sync", "/future", "/timer"}) {
      HttpResponse<String> r = get(p, null);
      assertEquals(500, r.statusCode(), p + " " + r.body());
      JsonObject s = new JsonObject(r.body());
      assertEquals("InternalError", s.getString("reason"));
      assertTrue(s.getString("message").startsWith("Internal error occurred: "), r.body());
      assertNotNull(r.headers().firstValue(AuditIds.HEADER).orElse(null), p);
    }
    HttpResponse<String> kept = get("/future", "client-chosen-id-1");
    assertEquals("client-chosen-id-1", kept.headers().firstValue(AuditIds.HEADER).orElseThrow());
    HttpResponse<String> never = get("/never", null);
    assertEquals(504, never.statusCode(), never.body());
    assertEquals(RequestDeadline.MESSAGE, new JsonObject(never.body()).getString("message"));
    assertEquals("Timeout", new JsonObject(never.body()).getString("reason"));
  }

  /**
   * The {@code timeout} query parameter as {@code WithRequestDeadline}: a Go duration shortens
   * {@code --request-timeout}; one that does not parse is 400 with upstream's text (Go's {@code time.ParseDuration}
   * error); {@code 0} and negative values keep the server's deadline; long-running requests never look at it.
   */
  @Test
  void timeoutParameterAsWithRequestDeadline() throws Exception {
    String prefix = RequestDeadline.INVALID_TIMEOUT + " - ";
    java.util.Map<String, String> bad = java.util.Map.of(
        "bogus", prefix + "time: invalid duration \"bogus\"",
        "1", prefix + "time: missing unit in duration \"1\"",
        "5x", prefix + "time: unknown unit \"x\" in duration \"5x\"",
        "1.5.s", prefix + "time: missing unit in duration \"1.5.s\"",
        "%C2%B5", prefix + "time: invalid duration \"\\xc2\\xb5\"",
        "-", prefix + "time: invalid duration \"-\"");
    for (java.util.Map.Entry<String, String> e : bad.entrySet()) {
      HttpResponse<String> r = get(longServer, "/api/v1/namespaces?timeout=" + e.getKey(), null);
      assertEquals(400, r.statusCode(), e.getKey() + " " + r.body());
      JsonObject s = new JsonObject(r.body());
      assertEquals("BadRequest", s.getString("reason"));
      assertEquals(e.getValue(), s.getString("message"), e.getKey());
    }
    HttpResponse<String> shortened = get(longServer, "/never?timeout=100ms", null);
    assertEquals(504, shortened.statusCode(), shortened.body());
    assertEquals(RequestDeadline.MESSAGE, new JsonObject(shortened.body()).getString("message"));
    for (String ok : new String[] {"0", "-1s", "1h30m", "%2B2.5s", "10%C2%B5s", "300ms"}) {
      HttpResponse<String> r = get(longServer, "/api/v1/namespaces?timeout=" + ok, null);
      assertEquals(200, r.statusCode(), ok + " " + r.body());
    }
    HttpResponse<String> watch = get(longServer, "/api/v1/namespaces?watch=true&timeout=bogus", null);
    assertEquals(200, watch.statusCode(), "a watch is long-running: its timeout is not read " + watch.body());
  }
}
