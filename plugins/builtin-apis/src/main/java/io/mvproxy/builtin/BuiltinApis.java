package io.mvproxy.builtin;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.ApiSourceContext;
import java.util.ArrayList;
import java.util.List;

/**
 * The built-in API set every node serves, created once per node (not hot-loaded): the review APIs of
 * {@link ReviewsApiSource}.
 */
public final class BuiltinApis {
  private BuiltinApis() {
  }

  /**
   * @param ctx the node's services (its {@code accessControl()} must be set)
   * @return the sources, in a fixed order
   * @throws IllegalStateException when the node offers no authorization
   */
  public static List<ApiSource> create(ApiSourceContext ctx) {
    if (ctx.accessControl() == null) {
      throw new IllegalStateException("the built-in APIs need the node's authorization");
    }
    List<ApiSource> out = new ArrayList<>();
    out.add(new ReviewsApiSource(new AccessReviews(ctx.accessControl()),
        new AuthenticationReviews(ctx::authenticateToken)));
    return List.copyOf(out);
  }
}
