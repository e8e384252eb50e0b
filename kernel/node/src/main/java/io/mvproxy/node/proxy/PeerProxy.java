package io.mvproxy.node.proxy;

import io.mvproxy.api.Gvr;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.node.metrics.NodeMetrics;
import io.mvproxy.node.routing.PeerTarget;
import io.mvproxy.security.ProxyHop;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.RequestOptions;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.List;
import java.util.logging.Logger;

/**
 * Forwards a request to a capable peer over mutual TLS (peer-proxy.md sections 1.10-1.13 and 3): the original
 * method, path and query; headers cloned minus hop-by-hop ones and credentials; {@code X-Kubernetes-Peer-Proxied:
 * true} SET; the caller's identity as front-proxy {@code X-Remote-*} headers; {@code X-Forwarded-*} added. The
 * request body (read by the ingress, at most 3 MiB as in Kubernetes) is resent as is; the response (watch
 * included) streams. A peer that cannot be connected to (refused, TLS failure, before
 * any byte is sent) is skipped for the next; when none connects: 503 Status with {@code Retry-After}.
 */
public final class PeerProxy {
  /** Header marking a proxied hop (KEP-4020). */
  public static final String PEER_PROXIED = "X-Kubernetes-Peer-Proxied";
  /** Seconds a client should wait before retrying when no peer is reachable. */
  public static final int RETRY_AFTER_SECONDS = 1;
  private static final Logger LOG = Logger.getLogger(PeerProxy.class.getName());

  private final HttpClient client;
  private final NodeMetrics metrics;

  /**
   * @param client  HTTP client with the peer TLS options (trust {@code --peer-ca-file}, key = proxy client cert)
   * @param metrics where proxied requests and errors are counted
   */
  public PeerProxy(HttpClient client, NodeMetrics metrics) {
    this.client = client;
    this.metrics = metrics;
  }

  /**
   * Forwards the request; its body, if any, has been read into {@code ctx.body()} by the ingress.
   *
   * @param ctx     the request
   * @param user    the authenticated caller, sent as X-Remote-* headers
   * @param gvr     the routing key (for metrics); null for non-resource requests (discovery, OpenAPI)
   * @param targets capable peers in the order to try
   */
  public void forward(RoutingContext ctx, UserInfo user, Gvr gvr, List<PeerTarget> targets) {
    if ("websocket".equalsIgnoreCase(ctx.request().getHeader("Upgrade"))) {
      // WebSocket watches are not tunnelled between peers: clients such as fabric8 fall back to an HTTP watch on 503
      fail(ctx, StatusException.unavailable("WebSocket upgrades are not proxied to peers; use an HTTP watch",
          RETRY_AFTER_SECONDS));
      return;
    }
    long start = System.nanoTime();
    attempt(ctx, user, gvr, targets, 0, null, start);
  }

  private void attempt(RoutingContext ctx, UserInfo user, Gvr gvr, List<PeerTarget> targets, int i,
                       Throwable last, long start) {
    HttpServerRequest in = ctx.request();
    if (i >= targets.size()) {
      if (gvr != null) {
        metrics.proxyError("endpoint_resolution", gvr);
      }
      String why = last == null ? "no peer available" : last.getMessage();
      fail(ctx, StatusException.unavailable("error trying to reach a peer server for this resource: " + why,
          RETRY_AFTER_SECONDS));
      return;
    }
    PeerTarget t = targets.get(i);
    RequestOptions opts = new RequestOptions().setHost(t.host()).setPort(t.port()).setMethod(in.method())
        .setURI(in.uri()).setSsl(true).setHeaders(headers(in, user, t));
    client.request(opts).onComplete(ar -> {
      if (ar.failed()) {
        LOG.warning("peer " + t.serverId() + " at " + t.host() + ":" + t.port() + " unreachable: " + ar.cause());
        if (gvr != null) {
          metrics.proxyError("proxy_connection", gvr);
        }
        attempt(ctx, user, gvr, targets, i + 1, ar.cause(), start);
        return;
      }
      HttpClientRequest out = ar.result();
      Buffer body = ctx.body() == null ? null : ctx.body().buffer();
      Future<HttpClientResponse> sent = body == null ? out.send() : out.send(body);
      sent.onComplete(rr -> {
        if (rr.failed()) {
          fail(ctx, StatusException.unavailable("error proxying to peer " + t.serverId() + ": "
              + rr.cause().getMessage(), RETRY_AFTER_SECONDS));
          return;
        }
        relay(ctx, rr.result(), gvr, start);
      });
    });
  }

  private void relay(RoutingContext ctx, HttpClientResponse resp, Gvr gvr, long start) {
    if (gvr != null) {
      metrics.rerouted(gvr, resp.statusCode(), Duration.ofNanos(System.nanoTime() - start));
    }
    ProxyHop.relay(resp, ctx.response());
  }

  private static MultiMap headers(HttpServerRequest in, UserInfo user, PeerTarget t) {
    MultiMap h = ProxyHop.requestHeaders(in, user, t.host() + ":" + t.port());
    h.set(PEER_PROXIED, "true");
    return h;
  }

  private static void fail(RoutingContext ctx, StatusException e) {
    e.respond(ctx);
  }
}
