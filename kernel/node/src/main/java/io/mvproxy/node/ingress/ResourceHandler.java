package io.mvproxy.node.ingress;

import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.node.fleet.FleetViewRef;
import io.mvproxy.node.proxy.PeerProxy;
import io.mvproxy.node.routing.Decision;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;

/**
 * Decide, then act: the peer-proxy decision on the current in-memory routing snapshot and what follows from it, for
 * resource requests ({@code /api/<v>/...}, {@code /apis/<g>/<v>/...} with a resource: {@link #handle}) and for
 * non-resource requests about a group-version this node lacks (legacy discovery, OpenAPI:
 * {@link #handleGroupVersion}): serve locally, proxy to a capable peer, or answer 503 / 404 Status (peer-proxy.md
 * section 4).
 */
public final class ResourceHandler implements Handler<RoutingContext> {
  private final FleetViewRef view;
  private final PeerProxy proxy;
  private final boolean peersEnabled;
  private final io.mvproxy.node.metrics.NodeMetrics metrics;

  /**
   * @param view         the node's fleet view
   * @param proxy        the peer proxy, or null when peers are disabled
   * @param peersEnabled gate on and {@code --peer-ca-file} set
   * @param metrics      counts 503 decisions ({@code apiserver_peer_proxy_unavailable_total})
   */
  public ResourceHandler(FleetViewRef view, PeerProxy proxy, boolean peersEnabled,
                         io.mvproxy.node.metrics.NodeMetrics metrics) {
    this.metrics = metrics;
    this.view = view;
    this.proxy = proxy;
    this.peersEnabled = peersEnabled && proxy != null;
  }

  /** Serves a resource request: local source, a peer, or a 503 / 404 Status. */
  @Override
  public void handle(RoutingContext ctx) {
    RequestInfo info = io.mvproxy.api.RequestScope.of(ctx).info();
    UserInfo user = io.mvproxy.api.RequestScope.of(ctx).user();
    boolean proxied = io.mvproxy.api.RequestScope.of(ctx).peerProxied();
    io.mvproxy.node.routing.RoutingSnapshot routing = view.get().routing();
    Decision d = routing.decide(info, proxied, peersEnabled);
    if (d instanceof Decision.Local l) {
      io.mvproxy.api.RequestScope.of(ctx).served("local");
      try {
        l.source().handle(ctx, info, user);
      } catch (StatusException e) {
        StatusResponses.send(ctx, e);
      } catch (RuntimeException e) {
        ctx.fail(e);
      }
    } else if (d instanceof Decision.Proxy p) {
      io.mvproxy.api.RequestScope.of(ctx).served("proxied");
      proxy.forwardResource(ctx, user, info, p.targets());
    } else if (d instanceof Decision.Unavailable u) {
      metrics.routingUnavailable(u.cause().label(), u.cause() != Decision.Unavailable.Cause.FLEET_UNKNOWN
          || routing.awaiting().isEmpty() ? "none" : routing.awaiting().get(0).kind().label());
      unavailable(ctx, u);
    } else {
      // a CustomResourceDefinition created through the API is stored but its source is still being built here
      String why = view.pending(info.gvr());
      if (why != null) {
        metrics.routingUnavailable(Decision.Unavailable.Cause.FLEET_UNKNOWN.label(), "none");
        unavailable(ctx, new Decision.Unavailable(Decision.Unavailable.Cause.FLEET_UNKNOWN, why));
      } else {
        StatusResponses.send(ctx, StatusException.resourceNotFound());
      }
    }
  }

  /**
   * Hands a non-resource request for a group-version this node lacks (legacy discovery, OpenAPI) to a peer, or
   * answers 503 / 404 as {@link io.mvproxy.node.routing.RoutingSnapshot#decideGroupVersion} decides.
   *
   * @param ctx the request
   * @param gv  the group-version it is about
   */
  public void handleGroupVersion(RoutingContext ctx, io.mvproxy.api.GroupVersion gv) {
    io.mvproxy.api.RequestScope scope = io.mvproxy.api.RequestScope.of(ctx);
    Decision d = view.get().routing().decideGroupVersion(gv, scope.peerProxied(), peersEnabled);
    if (d instanceof Decision.Proxy p) {
      scope.served("proxied");
      proxy.forwardGroupVersion(ctx, scope.user(), gv, p.targets());
    } else if (d instanceof Decision.Unavailable u) {
      unavailable(ctx, u);
    } else {
      StatusResponses.send(ctx, StatusException.resourceNotFound());
    }
  }

  /**
   * Answers a 503 decision: Status {@code ServiceUnavailable} with {@code Retry-After}, and for
   * {@link Decision.Unavailable.Cause#NOT_SERVED_HERE} the {@link PeerProxy#NOT_SERVED_HERE} header that tells the
   * proxying node this node did nothing with the request, so it may try the next capable peer.
   *
   * @param ctx the request
   * @param u   the decision
   */
  public static void unavailable(RoutingContext ctx, Decision.Unavailable u) {
    if (u.cause() == Decision.Unavailable.Cause.NOT_SERVED_HERE) {
      ctx.response().putHeader(PeerProxy.NOT_SERVED_HERE, "true");
    }
    StatusResponses.send(ctx, StatusException.unavailable(u.message(), PeerProxy.RETRY_AFTER_SECONDS));
  }
}
