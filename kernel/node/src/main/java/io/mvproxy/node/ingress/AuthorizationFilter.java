package io.mvproxy.node.ingress;

import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.authz.Attributes;
import io.mvproxy.api.authz.Authorizer;
import io.mvproxy.api.authz.Decision;
import io.mvproxy.authorization.Forbidden;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;

/**
 * Chain step after impersonation and before the routing decision ({@code filters/authorization.go}): the request's
 * attributes (from its {@link RequestInfo}, a list/watch pinned by {@code fieldSelector=metadata.name=X} counted as
 * named) go to the node's authorizer chain; allowed requests continue, anything else is answered 403 Forbidden with
 * kube-apiserver's message and is never proxied. On a peer hop the serving node runs this again for the identity
 * in the front-proxy headers. An allowed request's scope carries the authorizer on
 * ({@link io.mvproxy.api.RequestScope#authorizer()}) for the create a PUT or an apply may make.
 */
public final class AuthorizationFilter implements Handler<RoutingContext> {
  private final Authorizer authorizer;

  /** @param authorizer the node's authorizer chain */
  public AuthorizationFilter(Authorizer authorizer) {
    this.authorizer = authorizer;
  }

  @Override
  public void handle(RoutingContext ctx) {
    RequestInfo info = io.mvproxy.api.RequestScope.of(ctx).info();
    Attributes a = Attributes.of(info, io.mvproxy.api.RequestScope.of(ctx).user(), ctx.request().getParam("fieldSelector"));
    Decision d = authorizer.authorize(a);
    io.mvproxy.api.RequestScope scope = io.mvproxy.api.RequestScope.of(ctx);
    if (scope.auditing()) {
      // filters/authorization.go: decision and reason annotations on the audit event
      scope.annotate("authorization.k8s.io/decision", d.allowed() ? "allow" : "forbid");
      scope.annotate("authorization.k8s.io/reason", d.reason());
    }
    if (d.allowed()) {
      scope.authorizer(authorizer);
      ctx.next();
    } else {
      StatusResponses.send(ctx, Forbidden.of(a, d.reason()));
    }
  }
}
