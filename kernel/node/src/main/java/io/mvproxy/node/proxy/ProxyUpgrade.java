package io.mvproxy.node.proxy;

import io.mvproxy.api.Gvr;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.node.fleet.FleetViewRef;
import io.mvproxy.node.metrics.NodeMetrics;
import io.mvproxy.node.routing.PeerTarget;
import io.mvproxy.security.UpgradeTunnel;
import io.vertx.core.net.NetClient;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.logging.Logger;

import static io.mvproxy.node.proxy.PeerProxy.CONNECT_TIMEOUT_MS;
import static io.mvproxy.node.proxy.PeerProxy.HEAD_TIMEOUT_MS;
import static io.mvproxy.node.proxy.PeerProxy.IDEMPOTENT;
import static io.mvproxy.node.proxy.PeerProxy.NOT_SERVED_HERE;
import static io.mvproxy.node.proxy.PeerProxy.PEER_PROXIED;
import static io.mvproxy.node.proxy.PeerProxy.RETRY_AFTER_SECONDS;
import static io.mvproxy.node.proxy.PeerProxy.attemptTimeouts;
import static io.mvproxy.node.proxy.PeerProxy.fail;
import static io.mvproxy.node.proxy.PeerProxy.headers;

/**
 * One upgrade request (WebSocket, SPDY) tunnelled to a capable peer ({@link UpgradeTunnel}): each attempt dials a
 * connection of its own (HTTP/1.1 over the peer TLS options, never the pooled or h2 clients). A peer that cannot
 * be connected to is skipped for the next; one that answers {@link PeerProxy#NOT_SERVED_HERE} too (it did nothing), then
 * the current view's untried capable peers; a failure after the request was sent is {@code 503} (the upgrade is
 * not sent twice). The peer's {@code 101} opens the tunnel, which is closed when either side closes or the peer
 * leaves the fleet view ({@link PeerStreams}); its error answers are relayed.
 */
final class ProxyUpgrade {
  private static final Logger LOG = Logger.getLogger(PeerProxy.class.getName());
  private final Vertx vertx;
  private final NetClient upgrades;
  private final NodeMetrics metrics;
  private final FleetViewRef view;
  private final PeerStreams streams;
  final RoutingContext ctx;
  final UserInfo user;
  final Gvr gvr;
  final List<PeerTarget> targets;
  final java.util.function.Supplier<List<PeerTarget>> refresh;
  final Set<String> tried = new java.util.HashSet<>();
  final Context context;
  final long start = System.nanoTime();
  int index;

  /** One forwarded request through the {@code proxy}'s clients, metrics, fleet view and stream registries. */
  ProxyUpgrade(PeerProxy proxy, RoutingContext ctx, UserInfo user, Gvr gvr, List<PeerTarget> targets,
               java.util.function.Supplier<List<PeerTarget>> refresh, Context context) {
    this.vertx = proxy.vertx;
    this.upgrades = proxy.upgrades;
    this.metrics = proxy.metrics;
    this.view = proxy.view;
    this.streams = proxy.streams;
    this.ctx = ctx;
    this.user = user;
    this.gvr = gvr;
    this.targets = new java.util.ArrayList<>(targets);
    this.refresh = refresh;
    this.context = context;
  }

  void next(Throwable last) {
    if (ctx.response().closed() || ctx.response().ended()) {
      return;
    }
    if (index >= targets.size()) {
      if (gvr != null) {
        metrics.proxyError(ProxyErrorType.ENDPOINT_RESOLUTION, gvr);
      }
      UpgradeTunnel.refuse(ctx, StatusException.unavailable("error trying to reach a peer server for this resource: "
          + (last == null ? "no peer available" : last.getMessage()), RETRY_AFTER_SECONDS));
      return;
    }
    PeerTarget t = targets.get(index++);
    tried.add(t.serverId());
    io.mvproxy.api.RequestScope.of(ctx).annotate(io.mvproxy.node.audit.AuditFilter.PROXIED_TO, t.serverId());
    HttpServerRequest in = ctx.request();
    Buffer body = ctx.body() == null || !ctx.body().available() ? null : ctx.body().buffer();
    UpgradeTunnel.dial(vertx, upgrades, new UpgradeTunnel.Target(t.host(), t.port(), true,
            t.host() + ":" + t.port()), in, in.uri(), headers(in, user, t), body, (int) CONNECT_TIMEOUT_MS,
        HEAD_TIMEOUT_MS).onComplete(ar -> {
          if (ar.failed()) {
            boolean sent = ar.cause() instanceof UpgradeTunnel.DialException d && d.sent();
            LOG.warning("upgrade " + in.method() + " " + in.path() + " to peer " + t.serverId() + " failed: "
                + ar.cause().getMessage());
            if (gvr != null) {
              metrics.proxyError(sent ? ProxyErrorType.CONNECTION_LOST : ProxyErrorType.PROXY_CONNECTION, gvr);
            }
            if (sent) {
              UpgradeTunnel.refuse(ctx, StatusException.unavailable("error proxying to peer " + t.serverId() + ": "
                  + ar.cause().getMessage(), RETRY_AFTER_SECONDS));
            } else {
              next(ar.cause());
            }
            return;
          }
          UpgradeTunnel.Dialed d = ar.result();
          if (d.statusCode() == 503 && d.headers().get(NOT_SERVED_HERE) != null) {
            d.close();
            if (gvr != null) {
              metrics.proxyError(ProxyErrorType.NOT_SERVED, gvr);
            }
            if (index >= targets.size()) {
              refresh.get().stream().filter(p -> !tried.contains(p.serverId())).forEach(targets::add);
            }
            next(new IllegalStateException("peer " + t.serverId() + " does not serve it any more"));
            return;
          }
          if (ctx.response().closed()) {
            d.close();
            return;
          }
          if (gvr != null) {
            metrics.rerouted(gvr, d.statusCode(), Duration.ofNanos(System.nanoTime() - start));
          }
          Runnable untrack = d.statusCode() == 101 ? streams.add(t.serverId(), context, () -> {
            LOG.info("peer " + t.serverId() + " left the fleet: closing the tunnel of " + in.path());
            d.close();
          }) : () -> { };
          UpgradeTunnel.answer(ctx, d, RETRY_AFTER_SECONDS).onComplete(x -> untrack.run());
          if (d.statusCode() == 101 && !view.get().members().containsKey(t.serverId())) {
            d.close();
          }
        });
  }
}
