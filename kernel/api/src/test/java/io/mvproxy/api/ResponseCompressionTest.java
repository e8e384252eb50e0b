package io.mvproxy.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link ResponseCompression} as kube-apiserver's {@code responsewriters} (compression.go's token rule, writers.go's
 * 128 KiB threshold), over real HTTP with the JDK's client, which never decompresses on its own: what is asserted is
 * the bytes on the wire.
 */
@Tag("unit")
class ResponseCompressionTest {
  static Vertx vertx;
  static HttpServer server;
  // HTTP/1.1: the JDK client would ask a plain server for h2c, which Vert.x test servers accept by default and
  // which raced under load (the client read a body as HTTP/2 frames)
  static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  static final byte[] LARGE = json(ResponseCompression.THRESHOLD_BYTES + 1);
  static final byte[] AT_THRESHOLD = json(ResponseCompression.THRESHOLD_BYTES);

  /** @return a JSON list of exactly {@code n} bytes */
  static byte[] json(int n) {
    StringBuilder b = new StringBuilder("{\"items\":[");
    while (b.length() < n - 2) {
      b.append("{\"a\":1},");
    }
    b.setLength(Math.min(b.length(), n - 2));
    b.setCharAt(b.length() - 1, ' ');
    while (b.length() < n - 2) {
      b.append(' ');
    }
    return b.append("]}").toString().getBytes(StandardCharsets.UTF_8);
  }

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    Router router = Router.router(vertx);
    router.route().handler(ctx -> {
      RequestScope.of(ctx).contentEncoding(ResponseCompression.supported(ctx.request().getHeader("Accept-Encoding")));
      ctx.next();
    });
    router.get("/large").handler(ctx -> ResponseCompression.end(ctx, Buffer.buffer(LARGE)));
    router.get("/threshold").handler(ctx -> ResponseCompression.end(ctx, Buffer.buffer(AT_THRESHOLD)));
    router.get("/encoded").handler(ctx -> {
      ctx.response().putHeader("Content-Encoding", "identity");
      ResponseCompression.end(ctx, Buffer.buffer(LARGE));
    });
    router.get("/status").handler(ctx -> StatusWriter.send(ctx, new StatusException(StatusReason.BadRequest,
        "m".repeat(ResponseCompression.THRESHOLD_BYTES), null)));
    server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1").await(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  static HttpResponse<byte[]> get(String path, String acceptEncoding) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.actualPort() + path));
    if (acceptEncoding != null) {
      b.header("Accept-Encoding", acceptEncoding);
    }
    return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  @ParameterizedTest(name = "Accept-Encoding {0}: {1}")
  @CsvSource(delimiter = '|', nullValues = "null", value = {
      "gzip|gzip",
      "gzip, deflate, br|gzip",
      "deflate,  gzip |gzip",
      "br|null",
      "gzip;q=1.0|null",     // upstream compares the trimmed token, parameters included
      "GZIP|null",
      "x-gzip|null",
      "''|null",
  })
  void acceptEncodingTokens(String header, String want) {
    assertEquals(want, ResponseCompression.supported(header));
  }

  /** The NYTimes gziphandler's rules, which kube-openapi's {@code /openapi/v2} follows: case-insensitive, q above 0. */
  @ParameterizedTest(name = "gziphandler, Accept-Encoding {0}: {1}")
  @CsvSource(delimiter = '|', nullValues = "null", value = {
      "gzip|true",
      "GZIP|true",
      "gzip;q=0.5|true",
      "br, Gzip ; q=0.1|true",
      "gzip;q=0|false",
      "gzip;q=x|false",        // a q that does not parse: the coding is skipped
      "gzip, gzip;q=0|false",  // the later mention wins
      "gzip;q=0;foo|true",     // each part starts again from q=1, as upstream
      "x-gzip|false",
      "''|false",
      "null|false",
  })
  void gzipHandlerRules(String header, boolean want) {
    assertEquals(want, ResponseCompression.gzipHandlerAccepts(header));
  }

  @Test
  void aLargeAnswerIsGzippedForAClientOfferingGzip() throws Exception {
    assertEquals(ResponseCompression.THRESHOLD_BYTES + 1, LARGE.length);
    HttpResponse<byte[]> r = get("/large", "gzip, deflate");
    assertEquals("gzip", r.headers().firstValue("Content-Encoding").orElse(null));
    assertEquals("Accept-Encoding", r.headers().firstValue("Vary").orElse(null));
    assertEquals(String.valueOf(r.body().length), r.headers().firstValue("Content-Length").orElse(null));
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(r.body()))) {
      assertArrayEquals(LARGE, in.readAllBytes());
    }
  }

  /** kube-apiserver writes errors through the same serializer (ErrorNegotiated): a large Status is gzipped too. */
  @Test
  void aLargeStatusIsGzippedToo() throws Exception {
    HttpResponse<byte[]> r = get("/status", "gzip");
    assertEquals(400, r.statusCode());
    assertEquals("gzip", r.headers().firstValue("Content-Encoding").orElse(null));
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(r.body()))) {
      io.vertx.core.json.JsonObject status = new io.vertx.core.json.JsonObject(Buffer.buffer(in.readAllBytes()));
      assertEquals("BadRequest", status.getString("reason"));
    }
    assertEquals(400, get("/status", null).statusCode());
    assertNull(get("/status", null).headers().firstValue("Content-Encoding").orElse(null));
  }

  @Test
  void answersUpToTheThresholdWithoutGzipOrWithEncodingSetAreSentAsTheyAre() throws Exception {
    HttpResponse<byte[]> small = get("/threshold", "gzip");
    assertNull(small.headers().firstValue("Content-Encoding").orElse(null), "128 KiB exactly is not over it");
    assertNull(small.headers().firstValue("Vary").orElse(null));
    assertArrayEquals(AT_THRESHOLD, small.body());
    HttpResponse<byte[]> plain = get("/large", null);
    assertNull(plain.headers().firstValue("Content-Encoding").orElse(null));
    assertArrayEquals(LARGE, plain.body());
    assertArrayEquals(LARGE, get("/large", "br").body());
    HttpResponse<byte[]> encoded = get("/encoded", "gzip");
    assertEquals("identity", encoded.headers().firstValue("Content-Encoding").orElse(null));
    assertArrayEquals(LARGE, encoded.body());
  }
}
