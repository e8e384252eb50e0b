package io.mvproxy.aggregated;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.security.ProxyHop;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.RequestOptions;
import io.vertx.ext.web.RequestBody;
import io.vertx.ext.web.RoutingContext;
import java.util.logging.Logger;

/**
 * Forwards one request to an APIService backend like kube-aggregator's {@code pkg/apiserver/handler_proxy.go}: same
 * method, path and query (under the backend's base path); headers copied minus hop-by-hop ones, {@code Authorization}
 * and mvproxy's loop guard; the caller's identity as front-proxy {@code X-Remote-*} headers; {@code X-Forwarded-*}
 * added. The body is {@code ctx.body()} when the ingress read it, else the request is streamed. The response streams
 * back (watch included: chunked, with back-pressure). A backend that cannot be reached gives {@code 503} Status with
 * {@code Retry-After}. Stateless apart from its client.
 */
public final class BackendProxy {
  private static final Logger LOG = Logger.getLogger(BackendProxy.class.getName());
  private final HttpClient client;
  private final int retryAfterSeconds;
  private final long connectTimeoutMs;

  /**
   * @param client            client with the backend TLS options ({@link BackendClients})
   * @param retryAfterSeconds {@code Retry-After} of the 503 answers
   * @param connectTimeoutMs  longest wait for a connection (new or pooled), in milliseconds; then 503
   */
  public BackendProxy(HttpClient client, int retryAfterSeconds, long connectTimeoutMs) {
    this.client = client;
    this.retryAfterSeconds = retryAfterSeconds;
    this.connectTimeoutMs = connectTimeoutMs;
  }

  /**
   * Forwards the request and relays the answer; writes a 503 Status (with {@code Retry-After}) when the backend
   * cannot be connected to or fails before answering. Must be called on the request's Vert.x context.
   *
   * @param ctx      the request
   * @param user     the authenticated caller, sent as {@code X-Remote-*}
   * @param endpoint the backend
   */
  public void forward(RoutingContext ctx, UserInfo user, BackendEndpoint endpoint) {
    HttpServerRequest in = ctx.request();
    RequestBody rb = ctx.body();
    boolean buffered = rb != null && rb.available();
    Buffer body = buffered ? rb.buffer() : null;
    boolean stream = !buffered && !in.isEnded();
    if (stream) {
      in.pause();
    }
    MultiMap headers = headers(in, user, endpoint);
    if (stream && in.getHeader("Content-Length") != null) {
      headers.set("Content-Length", in.getHeader("Content-Length"));
    }
    RequestOptions opts = new RequestOptions().setMethod(in.method()).setHost(endpoint.host())
        .setPort(endpoint.port()).setSsl(endpoint.ssl()).setURI(endpoint.basePath() + in.uri()).setHeaders(headers)
        .setConnectTimeout(connectTimeoutMs);
    client.request(opts).onComplete(ar -> {
      if (ar.failed()) {
        if (stream) {
          in.resume();
        }
        unavailable(ctx, endpoint, ar.cause());
        return;
      }
      HttpClientRequest out = ar.result();
      Future<HttpClientResponse> sent = stream ? out.send(in) : body == null ? out.send() : out.send(body);
      sent.onComplete(rr -> {
        if (rr.failed()) {
          unavailable(ctx, endpoint, rr.cause());
        } else {
          relay(ctx, rr.result());
        }
      });
    });
  }

  private void unavailable(RoutingContext ctx, BackendEndpoint endpoint, Throwable cause) {
    LOG.fine(() -> "backend " + endpoint.url() + " unreachable: " + cause);
    fail(ctx, StatusException.unavailable("error trying to reach service: " + cause.getMessage(), retryAfterSeconds));
  }

  private static void relay(RoutingContext ctx, HttpClientResponse resp) {
    ProxyHop.relay(resp, ctx.response());
  }

  private static MultiMap headers(HttpServerRequest in, UserInfo user, BackendEndpoint endpoint) {
    return ProxyHop.requestHeaders(in, user, endpoint.authority());
  }

  /**
   * Writes a Status error (with {@code Retry-After} when it has one), or resets the response when its head was
   * already sent.
   *
   * @param ctx the request
   * @param e   the error
   */
  public static void fail(RoutingContext ctx, StatusException e) {
    e.respond(ctx);
  }
}
