package io.mvproxy.aggregated;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.security.ProxyHop;
import io.mvproxy.security.UpgradeTunnel;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.net.NetClient;
import java.util.Set;
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
 * {@code Retry-After}.
 *
 * <p>A request whose pooled connection dies after it was sent and before the response head (the backend closed an
 * idle keep-alive connection as the request went out) is sent once more on another connection when it is
 * replayable, as Go's {@code net/http} transport does ({@code Request.isReplayable}): method {@code GET},
 * {@code HEAD}, {@code OPTIONS} or {@code TRACE}, or an {@code Idempotency-Key} / {@code X-Idempotency-Key} header,
 * and a body read by the ingress (or none). Others get the 503.
 *
 * <p>Upgrade requests ({@link UpgradeTunnel#isUpgradeRequest}: WebSocket, SPDY; {@code exec}, {@code attach},
 * {@code portforward}, WebSocket watches) go through {@link UpgradeTunnel} on a connection of their own, as
 * kube-aggregator's proxy handler hands them to {@code UpgradeAwareHandler} with the front-proxy headers set on the
 * request: dial failures and a backend silent for {@link #UPGRADE_HEAD_TIMEOUT_MS} give 503. Stateless apart from
 * its clients.
 */
public final class BackendProxy {
  private static final Logger LOG = Logger.getLogger(BackendProxy.class.getName());
  /** Methods whose requests are sent again after a dead pooled connection (Go's {@code isReplayable}). */
  public static final Set<HttpMethod> REPLAYABLE = Set.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS,
      HttpMethod.TRACE);
  /** How long a backend may take to answer an upgrade request's head, ms. */
  public static final long UPGRADE_HEAD_TIMEOUT_MS = 30_000;
  private final io.vertx.core.Vertx vertx;
  private final HttpClient client;
  private final NetClient upgrades;
  private final int retryAfterSeconds;
  private final long connectTimeoutMs;

  /**
   * @param vertx             the source's Vert.x (timers)
   * @param client            client with the backend TLS options ({@link BackendClients})
   * @param upgrades          client dialling the dedicated connection of each upgrade request (the same TLS options,
   *                          {@link UpgradeTunnel#clientOptions})
   * @param retryAfterSeconds {@code Retry-After} of the 503 answers
   * @param connectTimeoutMs  longest wait for a connection (new or pooled), in milliseconds; then 503
   */
  public BackendProxy(io.vertx.core.Vertx vertx, HttpClient client, NetClient upgrades, int retryAfterSeconds,
                      long connectTimeoutMs) {
    this.vertx = vertx;
    this.client = client;
    this.upgrades = upgrades;
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
    if (UpgradeTunnel.isUpgradeRequest(ctx.request())) {
      upgrade(ctx, user, endpoint);
    } else {
      forward(ctx, user, endpoint, false);
    }
  }

  private void forward(RoutingContext ctx, UserInfo user, BackendEndpoint endpoint, boolean retried) {
    HttpServerRequest in = ctx.request();
    RequestBody rb = ctx.body();
    boolean buffered = rb != null && rb.available();
    Buffer body = buffered ? rb.buffer() : null;
    boolean stream = !buffered && !in.isEnded() && !bodyless(in);
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
        if (rr.failed() && !retried && !stream && replayable(in) && !ctx.response().closed()
            && !ctx.response().headWritten()) {
          LOG.fine(() -> "backend " + endpoint.url() + " connection lost before answering " + in.method() + " "
              + in.path() + " (" + rr.cause() + "): sending it again");
          forward(ctx, user, endpoint, true);
        } else if (rr.failed()) {
          unavailable(ctx, endpoint, rr.cause());
        } else {
          relay(ctx, rr.result());
        }
      });
    });
  }

  /**
   * @param in a request
   * @return true when it may be sent again after its connection died (Go's {@code Request.isReplayable})
   */
  static boolean replayable(HttpServerRequest in) {
    return REPLAYABLE.contains(in.method()) || in.getHeader("Idempotency-Key") != null
        || in.getHeader("X-Idempotency-Key") != null;
  }

  /**
   * @param in a request
   * @return true when its framing says it has no body: an HTTP/1.x request without {@code Content-Length} (or 0)
   *     and {@code Transfer-Encoding} (RFC 9112 6.3); HTTP/2 requests are asked whether they ended
   */
  static boolean bodyless(HttpServerRequest in) {
    if (in.version() == io.vertx.core.http.HttpVersion.HTTP_2) {
      return in.isEnded();
    }
    String len = in.getHeader("Content-Length");
    return (len == null || len.equals("0")) && in.getHeader("Transfer-Encoding") == null;
  }

  /** Tunnels an upgrade request to the backend on a connection of its own ({@link UpgradeTunnel}). */
  private void upgrade(RoutingContext ctx, UserInfo user, BackendEndpoint endpoint) {
    HttpServerRequest in = ctx.request();
    RequestBody rb = ctx.body();
    Buffer body = rb != null && rb.available() ? rb.buffer() : null;
    UpgradeTunnel.dial(vertx, upgrades, new UpgradeTunnel.Target(endpoint.host(), endpoint.port(), endpoint.ssl(),
            endpoint.authority()), in, endpoint.basePath() + in.uri(), headers(in, user, endpoint), body,
        (int) connectTimeoutMs, UPGRADE_HEAD_TIMEOUT_MS).onComplete(ar -> {
          if (ar.failed()) {
            LOG.fine(() -> "backend " + endpoint.url() + " upgrade failed: " + ar.cause());
            UpgradeTunnel.refuse(ctx, StatusException.unavailable("error trying to reach service: "
                + ar.cause().getMessage(), retryAfterSeconds));
          } else if (ctx.response().closed()) {
            ar.result().close();
          } else {
            UpgradeTunnel.answer(ctx, ar.result(), retryAfterSeconds);
          }
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
