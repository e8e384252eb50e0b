package io.mvproxy.builtin;

import io.mvproxy.api.ApiSourceContext;
import io.mvproxy.api.BuiltinApiProvider;
import io.mvproxy.api.BuiltinApiSet;
import io.mvproxy.authorization.NodeAuthorization;
import io.mvproxy.security.Authenticator;
import io.mvproxy.security.serviceaccount.ServiceAccountTokens;

/**
 * The {@link BuiltinApiProvider} the node finds with {@link java.util.ServiceLoader}: {@link BuiltinApis} over the
 * node's typed services ({@link ApiSourceContext#service(Class)}): {@link NodeAuthorization} (required), and when the
 * node has them, its {@link ServiceAccountTokens} ({@code serviceaccounts/token}) and {@link Authenticator}
 * (TokenReviews; without it, bearer tokens are reviewed through {@link ApiSourceContext#authenticateToken}).
 */
public final class BuiltinApisProvider implements BuiltinApiProvider {
  /** The ServiceLoader constructor. */
  public BuiltinApisProvider() {
  }

  /** @throws IllegalStateException when the node offers no {@link NodeAuthorization} */
  @Override
  public BuiltinApiSet create(ApiSourceContext context) {
    NodeAuthorization authorization = context.service(NodeAuthorization.class).orElseThrow(() ->
        new IllegalStateException("the built-in APIs need the node's " + NodeAuthorization.class.getName()));
    Authenticator authenticator = context.service(Authenticator.class).orElse(null);
    if (authenticator == null) {
      return BuiltinApis.create(context, authorization);
    }
    return BuiltinApis.create(context, authorization, context.service(ServiceAccountTokens.class).orElse(null),
        authenticator::review);
  }
}
