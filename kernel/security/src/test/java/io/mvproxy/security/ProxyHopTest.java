package io.mvproxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.RequestOptions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link ProxyHop#relay} over real HTTP (a next hop, a relaying hop, a client): the next hop's headers replace the
 * relaying hop's headers of the same name instead of being appended to them, keep all their values, and leave the
 * relaying hop's other headers alone; hop-by-hop headers are not copied.
 */
@Tag("unit")
class ProxyHopTest {
  Vertx vertx;
  HttpServer next;
  HttpServer relay;
  HttpClient client;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    next = await(vertx.createHttpServer().requestHandler(req -> {
      req.response().putHeader("Content-Type", "application/json").putHeader("Audit-Id", "id-1")
          .putHeader("Cache-Control", "no-cache, private").putHeader("Keep-Alive", "timeout=5");
      req.response().headers().add("Warning", "299 - \"first\"").add("Warning", "299 - \"second\"");
      req.response().end("{}");
    }).listen(0, "127.0.0.1"));
    client = vertx.createHttpClient();
    relay = await(vertx.createHttpServer().requestHandler(req -> {
      req.response().putHeader("Audit-Id", "id-1").putHeader("Content-Type", "text/plain")
          .putHeader("X-Local", "kept");
      client.request(new RequestOptions().setPort(next.actualPort()).setHost("127.0.0.1").setURI("/"))
          .compose(r -> r.send()).onSuccess(resp -> ProxyHop.relay(resp, req.response()));
    }).listen(0, "127.0.0.1"));
  }

  @AfterEach
  void stop() throws Exception {
    await(vertx.close());
  }

  @Test
  void nextHopHeadersReplaceThisHopsOnes() throws Exception {
    HttpClientResponse[] resp = new HttpClientResponse[1];
    String body = await(client.request(HttpMethod.GET, relay.actualPort(), "127.0.0.1", "/")
        .compose(req -> req.send()).compose(x -> {
          resp[0] = x;
          return x.body();
        })).toString();
    HttpClientResponse r = resp[0];
    assertEquals("{}", body);
    assertEquals(List.of("id-1"), r.headers().getAll("Audit-Id"));
    assertEquals(List.of("application/json"), r.headers().getAll("Content-Type"));
    assertEquals(List.of("no-cache, private"), r.headers().getAll("Cache-Control"));
    assertEquals(List.of("299 - \"first\"", "299 - \"second\""), r.headers().getAll("Warning"));
    assertEquals(List.of("kept"), r.headers().getAll("X-Local"));
    assertEquals(List.of(), r.headers().getAll("Keep-Alive"));
    assertEquals(List.of("2"), r.headers().getAll("Content-Length"));
  }

  @Test
  void everyValueOfARepeatedHeaderIsKept() {
    io.vertx.core.MultiMap from = io.vertx.core.MultiMap.caseInsensitiveMultiMap()
        .add("warning", "299 - \"a\"").add("Warning", "299 - \"b\"").add("Connection", "close");
    io.vertx.core.MultiMap to = io.vertx.core.MultiMap.caseInsensitiveMultiMap()
        .add("Warning", "299 - \"local\"").add("Audit-Id", "x");
    ProxyHop.copyHeaders(from, to);
    assertEquals(List.of("299 - \"a\"", "299 - \"b\""), to.getAll("Warning"));
    assertEquals(List.of("x"), to.getAll("Audit-Id"));
    assertEquals(List.of(), to.getAll("Connection"));
  }

  private static <T> T await(io.vertx.core.Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
  }
}
