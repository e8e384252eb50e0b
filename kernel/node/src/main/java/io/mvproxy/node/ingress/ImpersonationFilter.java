package io.mvproxy.node.ingress;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.authz.Authorizer;
import io.mvproxy.authorization.Impersonation;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;

/**
 * Chain step after authentication ({@code filters/impersonation.go}): when {@code Impersonate-*} headers are
 * present, each is authorized with verb {@code impersonate} for the caller, the request continues as the new
 * identity (the {@link io.mvproxy.api.RequestScope#user()}) and the headers are removed, so a peer hop carries only the new
 * identity. Denied: 403 Status; groups/uid/extras without a user: 400.
 */
public final class ImpersonationFilter implements Handler<RoutingContext> {
  private final Authorizer authorizer;

  /** @param authorizer the node's authorizer chain */
  public ImpersonationFilter(Authorizer authorizer) {
    this.authorizer = authorizer;
  }

  @Override
  public void handle(RoutingContext ctx) {
    if (!Impersonation.requested(ctx.request().headers())) {
      ctx.next();
      return;
    }
    try {
      UserInfo as = Impersonation.impersonate(io.mvproxy.api.RequestScope.of(ctx).user(), ctx.request().headers(), authorizer);
      io.mvproxy.api.RequestScope.of(ctx).user(as);
    } catch (StatusException e) {
      StatusResponses.send(ctx, e);
      return;
    }
    ctx.next();
  }
}
