package io.mvproxy.node.ingress;

import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;

/**
 * The HTTP server's limits, as kube-apiserver's secure serving ({@code apiserver/pkg/server/secure_serving.go}):
 * {@value #MAX_HEADER_BYTES} bytes of headers ({@code MaxHeaderBytes: 1 << 20}; the request line gets the same room,
 * Go counts it in that budget), {@value #READ_HEADER_TIMEOUT_S} s to send a request's headers
 * ({@code ReadHeaderTimeout}) and {@value #IDLE_TIMEOUT_S} s idle keep-alive ({@code IdleTimeout}), both per request
 * and enforced by {@link ConnectionTimeouts} (Vert.x's own idle timeout is off: it counts silence inside a response
 * and would close watches), TCP keep-alive on (Go's listener enables it). A request line or
 * header block over the limit is answered {@code 414} / {@code 431} with a Status body and the connection closed (Go
 * answers those in plain text).
 */
public final class ServerLimits {
  /** Largest header block, bytes (1 MiB). */
  public static final int MAX_HEADER_BYTES = 1 << 20;
  /** Largest request line (method, URL, version), bytes (1 MiB). */
  public static final int MAX_INITIAL_LINE_BYTES = 1 << 20;
  /** Seconds a connection may take to send a request's headers. */
  public static final int READ_HEADER_TIMEOUT_S = 32;
  /** Seconds an idle keep-alive connection is kept. */
  public static final int IDLE_TIMEOUT_S = 90;
  /**
   * HTTP/2 per-stream receive window and largest frame read, bytes (256 KiB: kube-apiserver's
   * {@code MaxUploadBufferPerStream} and {@code MaxReadFrameSize}).
   */
  public static final int HTTP2_STREAM_WINDOW_BYTES = 256 * 1024;
  /** HTTP/2 largest header list, bytes (1 MiB, as {@link #MAX_HEADER_BYTES}). */
  public static final int HTTP2_MAX_HEADER_LIST_BYTES = 1 << 20;

  private ServerLimits() {
  }

  /**
   * @param o server options to change
   * @return {@code o} with the header and line limits set, Vert.x's idle timeout off ({@link ConnectionTimeouts}
   *     replaces it), TCP keep-alive on, no cleartext HTTP/2 detection (which would delay the connection
   *     handler, hence the read-header clock, until the first bytes arrive), and {@value #READ_HEADER_TIMEOUT_S} s
   *     for the TLS handshake: Go's server bounds the handshake by the least of its read-header, read and write
   *     timeouts ({@code net/http/server.go} {@code tlsHandshakeTimeout}), which for kube-apiserver is the
   *     read-header timeout; Vert.x's default, 10 s, closed most of 2,000 client connections opened at once on a
   *     loaded 2-core machine ({@code bench/watch-scale --protocol h1 --burst}) while they waited their turn
   */
  public static HttpServerOptions apply(HttpServerOptions o) {
    return o.setMaxHeaderSize(MAX_HEADER_BYTES).setMaxInitialLineLength(MAX_INITIAL_LINE_BYTES)
        .setHttp2ClearTextEnabled(false).setIdleTimeout(0).setTcpKeepAlive(true)
        .setSslHandshakeTimeout(READ_HEADER_TIMEOUT_S)
        .setSslHandshakeTimeoutUnit(java.util.concurrent.TimeUnit.SECONDS);
  }

  /**
   * RST_STREAM frames one h2 connection may send in 30 s before it is closed as a rapid-reset flood
   * (CVE-2023-44487). Vert.x's default, 200, is below the watch churn of a peer's h2 hop: every watch a client of
   * the proxying node ends is one RST on the shared peer connection, and closing it would end every other proxied
   * watch and request on it. 10,000 stays far below a flood (hundreds of thousands per second).
   */
  public static final int HTTP2_RST_FLOOD_PER_WINDOW = 10_000;

  /**
   * The HTTP/2 settings kube-apiserver's {@code secure_serving.go} gives Go's h2 server: {@code maxStreams}
   * concurrent streams, {@value #HTTP2_STREAM_WINDOW_BYTES}-byte stream windows and frames, a
   * {@value #HTTP2_MAX_HEADER_LIST_BYTES}-byte header list, a connection window of the stream window times the
   * streams ({@code MaxUploadBufferPerConnection}), no server push. Vert.x's idle timeout stays off: on HTTP/2 it
   * closes the connection even with watches open; {@link ConnectionTimeouts} applies Go's idle rule instead.
   *
   * @param o          server options to change
   * @param maxStreams {@code --http2-max-streams-per-connection} (0 already mapped to 100)
   * @return {@code o}
   */
  public static HttpServerOptions http2(HttpServerOptions o, int maxStreams) {
    long conn = Math.min(Integer.MAX_VALUE, (long) HTTP2_STREAM_WINDOW_BYTES * maxStreams);
    return o.setInitialSettings(new io.vertx.core.http.Http2Settings().setMaxConcurrentStreams(maxStreams)
            .setInitialWindowSize(HTTP2_STREAM_WINDOW_BYTES).setMaxFrameSize(HTTP2_STREAM_WINDOW_BYTES)
            .setMaxHeaderListSize(HTTP2_MAX_HEADER_LIST_BYTES).setPushEnabled(false))
        .setHttp2ConnectionWindowSize((int) conn).setIdleTimeout(0)
        .setHttp2RstFloodMaxRstFramePerWindow(HTTP2_RST_FLOOD_PER_WINDOW).setHttp2RstFloodWindowDuration(30)
        .setHttp2RstFloodWindowDurationTimeUnit(java.util.concurrent.TimeUnit.SECONDS);
  }

  /**
   * Answers {@code 400} Status for a path with a malformed percent-escape before routing (the router would answer
   * it in plain text).
   *
   * @param req a request
   * @return true when its path decodes; false when it was answered
   */
  public static boolean pathDecodes(HttpServerRequest req) {
    try {
      io.mvproxy.api.PathSegments.decode(req.path() == null ? "/" : req.path());
      return true;
    } catch (io.mvproxy.api.StatusException e) {
      io.mvproxy.api.StatusWriter.send(req.response(), e, false);
      return false;
    }
  }

  /**
   * Answers a request Netty could not decode: 414, 431 or 400, with a Status body. An HTTP/1.1 connection is then
   * closed (its byte stream cannot be trusted); an HTTP/2 stream is answered alone, other streams of its connection
   * go on.
   *
   * @param req a request Netty could not decode (the server's invalid-request handler)
   */
  public static void invalid(HttpServerRequest req) {
    Throwable cause = req.decoderResult().cause();
    io.mvproxy.api.StatusException e;
    if (cause instanceof TooLongHttpLineException) {
      e = io.mvproxy.api.StatusException.withoutReason(414, "Request-URI Too Long: the request line is longer than "
          + MAX_INITIAL_LINE_BYTES + " bytes");
    } else if (cause instanceof TooLongHttpHeaderException || cause instanceof TooLongFrameException) {
      e = io.mvproxy.api.StatusException.withoutReason(431, "Request Header Fields Too Large: the headers are larger"
          + " than " + MAX_HEADER_BYTES + " bytes");
    } else {
      e = io.mvproxy.api.StatusException.badRequest("Bad Request: " + (cause == null ? "malformed request"
          : cause.getMessage()));
    }
    if (req.version() == io.vertx.core.http.HttpVersion.HTTP_2) {
      io.mvproxy.api.StatusWriter.send(req.response(), e, false);
      return;
    }
    req.response().putHeader("Connection", "close");
    io.mvproxy.api.StatusWriter.send(req.response(), e, false).onComplete(ar -> req.connection().close());
  }
}
