package io.mvproxy.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link Warnings} on a real HTTP server, the cases of apiserver's {@code filters/warning_test.go}: a text written
 * once however often added, texts with control characters dropped (a webhook's multi-line warning must not break the
 * response), {@code "} and {@code \} escaped, and the 4 KiB truncation that cuts every text to 256 runes.
 */
@Tag("unit")
class WarningsTest {
  static Vertx vertx;
  static HttpServer server;
  static Consumer<io.vertx.ext.web.RoutingContext> adding;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    Router router = Router.router(vertx);
    router.get("/w").handler(ctx -> {
      adding.accept(ctx);
      ctx.response().end("ok");
    });
    server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1")
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  static List<String> warnings(Consumer<io.vertx.ext.web.RoutingContext> add) throws Exception {
    adding = add;
    HttpResponse<String> r = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + server.actualPort() + "/w")).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode());
    // the JDK client reads header bytes as ISO-8859-1: read them as the UTF-8 Go clients decode
    return r.headers().allValues("Warning").stream().map(h -> new String(h.getBytes(
        java.nio.charset.StandardCharsets.ISO_8859_1), java.nio.charset.StandardCharsets.UTF_8)).toList();
  }

  @Test
  void aTextIsWrittenOnceAndBadTextsAreDropped() throws Exception {
    List<String> got = warnings(ctx -> {
      Warnings.add(ctx, "first");
      Warnings.add(ctx, "");
      Warnings.add(ctx, null);
      Warnings.add(ctx, "line one\nline two");
      Warnings.add(ctx, "tab\there");
      Warnings.add(ctx, "first");
      Warnings.add(ctx, "say \"hi\" to C:\\dir");
      Warnings.add(ctx, "naïve ☃ 𝄞");
      // lone surrogates are U+FFFD before the recorder compares texts, as Go's JSON decoder has made them
      Warnings.add(ctx, "x \ud800 y");
      Warnings.add(ctx, "x \ufffd y");
      Warnings.add(ctx, "x \udc00 y");
    });
    assertEquals(List.of("299 - \"first\"", "299 - \"say \\\"hi\\\" to C:\\\\dir\"", "299 - \"naïve ☃ 𝄞\"",
        "299 - \"x \ufffd y\""), got);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "plain|299 - \"plain\"",
      "a\u007fb|",
      "a\u0085b|",
      "\ud800 lone surrogate|299 - \"\ufffd lone surrogate\"",
  })
  void header(String text, String expected) {
    if (expected == null) {
      assertNull(Warnings.header(text));
    } else {
      assertEquals(expected, Warnings.header(text));
    }
  }

  @Test
  void pastFourKibiRunesEveryTextIsCutTo256() throws Exception {
    String longText = "x".repeat(3000);
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      texts.add(i + "-" + "y".repeat(300));
    }
    List<String> got = warnings(ctx -> {
      Warnings.add(ctx, "short");
      Warnings.add(ctx, longText);
      texts.forEach(t -> Warnings.add(ctx, t));
    });
    // "short" (5), the long text (3000) and three 302-rune texts fit (3911 runes); the fourth does not: the six so far
    // are written again cut to 256 runes (5 + 256 + 4 * 256 = 1285), then texts are added cut until 4096 runes are
    // written (eleven more: 4101), the rest dropped
    List<String> expected = new ArrayList<>();
    expected.add("299 - \"short\"");
    expected.add("299 - \"" + "x".repeat(256) + "\"");
    for (int i = 0; i < 15; i++) {
      expected.add("299 - \"" + texts.get(i).substring(0, 256) + "\"");
    }
    assertEquals(expected, got);
  }

  @Test
  void underTheLimitNothingIsCut() throws Exception {
    String text = "z".repeat(4000);
    assertEquals(List.of("299 - \"" + text + "\""), warnings(ctx -> Warnings.add(ctx, text)));
  }
}
