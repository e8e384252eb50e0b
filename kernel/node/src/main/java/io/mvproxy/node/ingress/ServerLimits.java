package io.mvproxy.node.ingress;

import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;

/**
 * The HTTP server's limits, as kube-apiserver's secure serving ({@code apiserver/pkg/server/secure_serving.go}):
 * {@value #MAX_HEADER_BYTES} bytes of headers ({@code MaxHeaderBytes: 1 << 20}; the request line gets the same room,
 * Go counts it in that budget), {@value #READ_HEADER_TIMEOUT_S} s to send a request's headers
 * ({@code ReadHeaderTimeout}, see {@link ReadHeaderTimeout}), {@value #IDLE_TIMEOUT_S} s idle keep-alive ({@code IdleTimeout}). A request line or
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

  private ServerLimits() {
  }

  /**
   * @param o server options to change
   * @return {@code o} with the header, line and idle limits set (and no cleartext HTTP/2 detection, which would
   *     delay the connection handler, hence the read-header clock, until the first bytes arrive)
   */
  public static HttpServerOptions apply(HttpServerOptions o) {
    return o.setMaxHeaderSize(MAX_HEADER_BYTES).setMaxInitialLineLength(MAX_INITIAL_LINE_BYTES)
        .setHttp2ClearTextEnabled(false)
        .setIdleTimeout(IDLE_TIMEOUT_S).setIdleTimeoutUnit(java.util.concurrent.TimeUnit.SECONDS);
  }

  /** Answers a request Netty could not decode: 414, 431 or 400, with a Status body; the connection is closed. */
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
      req.response().setStatusCode(e.code()).putHeader("Content-Type", "application/json")
          .end(e.toStatus().toBuffer());
      return false;
    }
  }

  /** @param req a request Netty could not decode (the server's invalid-request handler) */
  public static void invalid(HttpServerRequest req) {
    Throwable cause = req.decoderResult().cause();
    int code;
    String message;
    if (cause instanceof TooLongHttpLineException) {
      code = 414;
      message = "Request-URI Too Long: the request line is longer than " + MAX_INITIAL_LINE_BYTES + " bytes";
    } else if (cause instanceof TooLongHttpHeaderException || cause instanceof TooLongFrameException) {
      code = 431;
      message = "Request Header Fields Too Large: the headers are larger than " + MAX_HEADER_BYTES + " bytes";
    } else {
      code = 400;
      message = "Bad Request: " + (cause == null ? "malformed request" : cause.getMessage());
    }
    JsonObject status = new JsonObject().put("kind", "Status").put("apiVersion", "v1")
        .put("metadata", new JsonObject()).put("status", "Failure").put("message", message);
    if (code == 400) {
      status.put("reason", "BadRequest");
    }
    status.put("code", code);
    req.response().setStatusCode(code).putHeader("Content-Type", "application/json").putHeader("Connection", "close")
        .end(status.toBuffer()).onComplete(ar -> req.connection().close());
  }
}
