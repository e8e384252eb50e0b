package io.mvproxy.node.ingress;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link HeadResponses} on a real Vert.x server and client, HTTP/1.1 and cleartext HTTP/2 with prior knowledge: a
 * HEAD answer has the GET answer's status and headers, no body, and the length of a body written in one piece (Go's
 * rule); a streamed body gives no length; a handler's own {@code Content-Length} is kept; GET is untouched.
 */
@Tag("unit")
class HeadResponsesTest {
  Vertx vertx;
  HttpServer server;

  /** One row: method, path, expected status, Content-Length (null: none) and body. */
  record Row(HttpMethod method, String path, int status, String length, String body) {
  }

  static final List<Row> ROWS = List.of(
      new Row(HttpMethod.GET, "/whole", 200, "5", "hello"),
      new Row(HttpMethod.HEAD, "/whole", 200, "5", ""),
      new Row(HttpMethod.HEAD, "/status", 404, "17", ""),
      new Row(HttpMethod.HEAD, "/streamed", 200, null, ""),
      new Row(HttpMethod.HEAD, "/explicit", 200, "3", ""),
      new Row(HttpMethod.HEAD, "/empty", 200, null, ""),
      new Row(HttpMethod.HEAD, "/nocontent", 204, null, ""));

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    server = vertx.createHttpServer(new HttpServerOptions().setHttp2ClearTextEnabled(true))
        .requestHandler(raw -> {
          var req = HeadResponses.wrap(raw);
          var resp = req.response();
          switch (req.path()) {
            case "/whole" -> resp.end("hello");
            case "/status" -> resp.setStatusCode(404).putHeader("Content-Type", "application/json")
                .end(io.vertx.core.buffer.Buffer.buffer("{\"kind\":\"Status\"}"));
            case "/streamed" -> {
              resp.setChunked(true);
              resp.write("a");
              resp.end("b");
            }
            case "/explicit" -> resp.putHeader("Content-Length", "3").end("abc");
            case "/nocontent" -> resp.setStatusCode(204).end("x");
            default -> resp.end();
          }
        }).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void headAnswersCarryTheHeadOnly() throws Exception {
    for (HttpVersion version : List.of(HttpVersion.HTTP_1_1, HttpVersion.HTTP_2)) {
      HttpClientAgent client = vertx.createHttpClient(new HttpClientOptions().setProtocolVersion(version)
          .setHttp2ClearTextUpgrade(false));
      for (Row row : ROWS) {
        String seen = client.request(new RequestOptions().setMethod(row.method()).setHost("127.0.0.1")
                .setPort(server.actualPort()).setURI(row.path()))
            .compose(r -> r.send().compose(resp -> resp.body().map(b -> resp.version() + " " + resp.statusCode()
                + " " + resp.getHeader("Content-Length") + " [" + b + "]")))
            .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(version + " " + row.status() + " " + row.length() + " [" + row.body() + "]", seen,
            row.method() + " " + row.path());
      }
      client.close();
    }
  }
}
