package io.mvproxy.api;

import io.vertx.core.Future;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.DecodeException;
import io.vertx.ext.web.RoutingContext;

/**
 * The node's one writer of Kubernetes {@code Status} error answers (apiserver
 * {@code endpoints/handlers/responsewriters/errors.go} {@code ErrorNegotiated}), used by the kernel (ingress chain,
 * discovery, OpenAPI, authentication, server limits) and by API sources through {@link StatusException#respond}:
 * HTTP status = the Status {@code code}, {@code Content-Type: application/json}, {@code Retry-After} when the error
 * carries one, the body indented when the request says {@code ?pretty=true} ({@link PrettyJson}). A response whose
 * head was already sent (a failure in the middle of a streamed answer) is reset instead; an ended or closed one is
 * left alone.
 */
public final class StatusWriter {
  private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(StatusWriter.class.getName());
  private StatusWriter() {
  }

  /**
   * Answers {@code ctx} with the Status of {@code e}.
   *
   * @param ctx the request
   * @param e   the error
   */
  public static void send(RoutingContext ctx, StatusException e) {
    boolean pretty;
    try {
      pretty = BoolParam.of(ctx.request().getParam("pretty"));
    } catch (IllegalArgumentException malformedQuery) {
      pretty = false;
    }
    RequestScope scope = RequestScope.of(ctx);
    if (scope.auditing() && !ctx.response().ended() && !ctx.response().headWritten()) {
      io.vertx.core.json.JsonObject status = e.toStatus();
      scope.auditStatus(status);
      scope.auditResponseObject(status);
    }
    io.vertx.core.http.HttpServerResponse r = ctx.response();
    if (r.ended() || r.closed() || r.headWritten()) {
      send(r, e, pretty);
      return;
    }
    if (e.retryAfterSeconds() > 0) {
      r.putHeader("Retry-After", Integer.toString(e.retryAfterSeconds()));
    }
    // as kube-apiserver's ErrorNegotiated (SerializeObject): a Status over 128 KiB is gzipped for a client offering it
    r.setStatusCode(e.code()).putHeader("Content-Type", "application/json");
    ResponseCompression.end(ctx, pretty ? PrettyJson.encode(e.toStatus()) : e.toStatus().toBuffer());
  }

  /**
   * Answers with the Status of {@code t} ({@link #toStatus}).
   *
   * @param ctx the request
   * @param t   the failure
   */
  public static void fail(RoutingContext ctx, Throwable t) {
    StatusException e = toStatus(t);
    logUnexpected(ctx, t, e);
    send(ctx, e);
  }

  /**
   * Logs an unexpected failure once per request (SEVERE, with the method, path, {@code Audit-Id} and stack): one
   * that is not a {@link StatusException} and is answered {@code 5xx} (a plugin hook that throws, a class a plugin
   * may not use), so a {@code 500 InternalError} always has its cause in the node's log, as the ingress's own
   * failure step does for failures it catches. Status failures are answers, not logged.
   *
   * @param ctx      the request
   * @param t        the failure
   * @param answered the Status it is answered with ({@link #toStatus})
   */
  public static void logUnexpected(RoutingContext ctx, Throwable t, StatusException answered) {
    if (t instanceof StatusException || answered.code() < 500) {
      return;
    }
    RequestScope scope = RequestScope.of(ctx);
    if (!scope.failureLogged()) {
      scope.failureLogged(true);
      LOG.log(java.util.logging.Level.SEVERE, "request " + ctx.request().method() + " " + ctx.request().path()
          + " (Audit-Id " + scope.auditId() + ") failed", t);
    }
  }

  /**
   * Answers a response with the Status of {@code e}, for callers outside a router (the server's invalid-request
   * handler, path checks before routing).
   *
   * @param r      the response
   * @param e      the error
   * @param pretty true to indent the body
   * @return completes when the answer was written (at once when there was nothing to write)
   */
  public static Future<Void> send(HttpServerResponse r, StatusException e, boolean pretty) {
    if (r.ended() || r.closed()) {
      return Future.succeededFuture();
    }
    if (r.headWritten()) {
      r.reset();
      return Future.succeededFuture();
    }
    if (e.retryAfterSeconds() > 0) {
      r.putHeader("Retry-After", Integer.toString(e.retryAfterSeconds()));
    }
    return r.setStatusCode(e.code()).putHeader("Content-Type", "application/json")
        .end(pretty ? PrettyJson.encode(e.toStatus()) : e.toStatus().toBuffer());
  }

  /**
   * @param t a failure
   * @return {@code t} itself when it is a {@link StatusException}; {@code 400 BadRequest} for JSON that does not
   *     decode; {@code 500 InternalError} ({@link StatusException#internal}) for anything else
   */
  public static StatusException toStatus(Throwable t) {
    if (t instanceof StatusException se) {
      return se;
    }
    if (t instanceof DecodeException) {
      return StatusException.badRequest("the object provided is not valid JSON: " + t.getMessage());
    }
    return StatusException.internal(t);
  }
}
