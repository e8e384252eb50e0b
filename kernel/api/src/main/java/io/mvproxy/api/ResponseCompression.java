package io.mvproxy.api;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.zip.GZIPOutputStream;

/**
 * gzip of large answers, as kube-apiserver's {@code APIResponseCompression} (beta, on by default since 1.16):
 * {@code staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/compression.go} picks the encoding from
 * {@code Accept-Encoding} and {@code writers.go}'s {@code deferredResponseWriter} compresses a body longer than
 * {@link #THRESHOLD_BYTES} at level 1, adding {@code Content-Encoding: gzip} and {@code Vary: Accept-Encoding}.
 * The ingress records the encoding in {@link RequestScope#contentEncoding()} when the gate is on; the writers of
 * objects, lists and discovery documents end their answers through {@link #end}. The peer hop relays a peer's
 * compressed answer as it is (its {@code Content-Length} and {@code Content-Encoding} copied).
 */
public final class ResponseCompression {
  /**
   * kube-apiserver's {@code defaultGzipThresholdBytes}: bodies longer than 128 KiB are compressed, shorter ones are
   * not worth the CPU.
   */
  public static final int THRESHOLD_BYTES = 128 * 1024;
  /** kube-apiserver's {@code gzipContentEncodingLevel}: 1, the least CPU for most of the gain on JSON. */
  public static final int LEVEL = 1;
  /**
   * The NYTimes {@code gziphandler}'s {@code DefaultMinSize} (1,400 bytes, about one packet), which kube-openapi's
   * {@code /openapi/v2} handler is wrapped in: it compresses bodies of at least this many bytes, at gzip's default
   * level ({@link #gzipHandlerAccepts}).
   */
  public static final int OPENAPI_V2_THRESHOLD_BYTES = 1400;

  private ResponseCompression() {
  }

  /**
   * {@code ContentEncodingSupported}: the first comma-separated token of {@code Accept-Encoding} that is exactly
   * {@code gzip} once trimmed (so {@code gzip;q=0} and {@code GZIP} do not count, as upstream).
   *
   * @param acceptEncoding the header, or null
   * @return {@code "gzip"}, or null when the client did not offer it
   */
  public static String supported(String acceptEncoding) {
    if (acceptEncoding == null || acceptEncoding.isEmpty()) {
      return null;
    }
    for (String token : acceptEncoding.split(",", -1)) {
      if (token.trim().equals("gzip")) {
        return "gzip";
      }
    }
    return null;
  }

  /**
   * Ends the response with {@code body}, gzip-compressed at {@link #LEVEL} when the request's scope names gzip and
   * the body is longer than {@link #THRESHOLD_BYTES}.
   *
   * @param ctx  the request (its {@link RequestScope#contentEncoding()})
   * @param body the whole answer, uncompressed
   * @return the response's end
   */
  public static Future<Void> end(RoutingContext ctx, Buffer body) {
    HttpServerResponse r = ctx.response();
    if (body.length() <= THRESHOLD_BYTES || !"gzip".equals(RequestScope.of(ctx).contentEncoding())
        || r.headers().contains("Content-Encoding")) {
      return r.end(body);
    }
    r.putHeader("Content-Encoding", "gzip");
    r.headers().add("Vary", "Accept-Encoding");
    return r.end(gzip(body, LEVEL));
  }

  /**
   * The NYTimes {@code gziphandler}'s {@code acceptsGzip} (kube-openapi wraps {@code /openapi/v2} in it, whatever
   * {@code APIResponseCompression} says): {@code Accept-Encoding} split at commas, each coding lower-cased with its
   * {@code q} (1 when absent, clamped to 0..1; a coding whose {@code q} does not parse, or an empty one, is
   * skipped; a later mention of a coding wins); gzip when its {@code q} is above 0.
   *
   * @param acceptEncoding the header, or null
   * @return true when {@code gziphandler} would compress for it
   */
  public static boolean gzipHandlerAccepts(String acceptEncoding) {
    if (acceptEncoding == null) {
      return false;
    }
    java.util.Map<String, Double> codings = new java.util.HashMap<>();
    for (String ss : acceptEncoding.split(",", -1)) {
      String coding = "";
      double q = 1.0;
      boolean bad = false;
      String[] parts = ss.split(";", -1);
      for (int n = 0; n < parts.length; n++) {
        String part = parts[n].trim();
        q = 1.0;  // as upstream: each part starts from the default
        if (n == 0) {
          coding = part.toLowerCase(java.util.Locale.ROOT);
        } else if (part.startsWith("q=")) {
          try {
            q = Math.max(0.0, Math.min(1.0, Double.parseDouble(part.substring(2))));
            bad = false;
          } catch (NumberFormatException e) {
            q = 0.0;
            bad = true;
          }
        }
      }
      if (!bad && !coding.isEmpty()) {
        codings.put(coding, q);
      }
    }
    return codings.getOrDefault("gzip", 0.0) > 0.0;
  }

  /**
   * @param body  bytes
   * @param level the deflate level
   * @return their gzip member (RFC 1952)
   */
  public static Buffer gzip(Buffer body, int level) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, body.length() / 4));
    try (GZIPOutputStream gz = new GZIPOutputStream(out, 64 * 1024) {
      {
        def.setLevel(level);
      }
    }) {
      gz.write(body.getBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);  // a ByteArrayOutputStream does not fail
    }
    return Buffer.buffer(out.toByteArray());
  }
}
