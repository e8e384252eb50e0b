package io.mvproxy.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link StatusWriter#fail} on a real HTTP server: an unexpected failure (breakit: a plugin hook's
 * {@code NoClassDefFoundError}, answered 500 with nothing in the node's log) is answered {@code 500 InternalError}
 * and logged once with its stack; a Status failure is answered with its own code and not logged.
 */
@Tag("unit")
class StatusWriterTest {
  @Test
  void unexpectedFailuresAreLoggedOnceAndStatusFailuresNot() throws Exception {
    List<LogRecord> logged = new CopyOnWriteArrayList<>();
    Handler capture = new Handler() {
      @Override
      public void publish(LogRecord r) {
        logged.add(r);
      }

      @Override
      public void flush() {
      }

      @Override
      public void close() {
      }
    };
    Logger log = Logger.getLogger(StatusWriter.class.getName());
    log.addHandler(capture);
    Vertx vertx = Vertx.vertx();
    try {
      Router router = Router.router(vertx);
      router.get("/boom").handler(ctx -> {
        RequestScope.of(ctx).auditId("id-1");
        Throwable t = new NoClassDefFoundError("io/mvproxy/registry/impl/YamlDocuments$Limits");
        StatusWriter.fail(ctx, t);
        StatusWriter.logUnexpected(ctx, t, StatusWriter.toStatus(t)); // a second report of the same request
      });
      router.get("/gone").handler(ctx -> StatusWriter.fail(ctx,
          new StatusException(StatusReason.NotFound, "not here", null)));
      HttpServer server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1")
          .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      HttpResponse<String> boom = client.send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + server.actualPort() + "/boom")).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(500, boom.statusCode());
      assertTrue(boom.body().contains("Internal error occurred: io/mvproxy/registry/impl/YamlDocuments$Limits"),
          boom.body());
      HttpResponse<String> gone = client.send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + server.actualPort() + "/gone")).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(404, gone.statusCode());
      assertEquals(1, logged.size(), logged.toString());
      assertEquals("request GET /boom (Audit-Id id-1) failed", logged.get(0).getMessage());
      assertTrue(logged.get(0).getThrown() instanceof NoClassDefFoundError);
    } finally {
      log.removeHandler(capture);
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }
}
