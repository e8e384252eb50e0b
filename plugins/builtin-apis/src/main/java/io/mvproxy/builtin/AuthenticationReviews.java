package io.mvproxy.builtin;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.security.Authenticator;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The review objects of {@code authentication.k8s.io} ({@code pkg/registry/authentication/selfsubjectreview/rest.go},
 * {@code tokenreview/storage.go}): SelfSubjectReview returns the caller's identity ({@code kubectl auth whoami}),
 * TokenReview authenticates {@code spec.token}; nothing is stored.
 */
public final class AuthenticationReviews {
  private final BiFunction<String, List<String>, Future<Authenticator.Review>> tokens;

  /** @param tokens the node's token review: token and requested audiences to the verdict (never failing) */
  public AuthenticationReviews(BiFunction<String, List<String>, Future<Authenticator.Review>> tokens) {
    this.tokens = tokens;
  }

  /**
   * @param body       the posted object
   * @param apiVersion {@code authentication.k8s.io/v1} or {@code v1beta1}
   * @param user       the caller
   * @return {@code status.userInfo {username, uid, groups, extra}}
   */
  public JsonObject selfSubjectReview(JsonObject body, String apiVersion, UserInfo user) {
    return AccessReviews.envelope(body, "SelfSubjectReview").put("apiVersion", apiVersion)
        .put("status", new JsonObject().put("userInfo", userInfo(user)));
  }

  /**
   * @param body the posted object
   * @return {@code status {authenticated, user, audiences, error}}: a service account token is checked against the
   *     requested {@code spec.audiences} (default: the API audiences) and its ServiceAccount; {@code audiences} are
   *     those of the token among the requested ones
   * @throws StatusException 400 {@code token is required for TokenReview} without {@code spec.token}
   */
  public Future<JsonObject> tokenReview(JsonObject body) {
    JsonObject spec = AccessReviews.spec(body);
    String token = spec.getString("token", "");
    if (token.isEmpty()) {
      throw StatusException.badRequest("token is required for TokenReview");
    }
    List<String> requested = new ArrayList<>();
    if (spec.getValue("audiences") instanceof JsonArray given) {
      given.forEach(a -> requested.add(String.valueOf(a)));
    }
    return tokens.apply(token, requested).map(review -> {
      JsonObject status = new JsonObject();
      if (review.user() != null) {
        status.put("authenticated", true).put("user", userInfo(review.user()));
        if (!review.audiences().isEmpty()) {
          status.put("audiences", new JsonArray(new ArrayList<>(review.audiences())));
        }
      } else {
        status.put("user", new JsonObject());
        if (review.error() != null) {
          status.put("error", review.error());
        }
      }
      return AccessReviews.envelope(body, "TokenReview").put("apiVersion", "authentication.k8s.io/v1")
          .put("status", status);
    });
  }

  /** {@code authentication/v1 UserInfo}: uid and extra omitted when empty. */
  static JsonObject userInfo(UserInfo u) {
    JsonObject j = new JsonObject().put("username", u.name());
    if (!u.uid().isEmpty()) {
      j.put("uid", u.uid());
    }
    j.put("groups", new JsonArray(new ArrayList<>(u.groups())));
    if (!u.extra().isEmpty()) {
      JsonObject ex = new JsonObject();
      for (Map.Entry<String, List<String>> e : u.extra().entrySet()) {
        ex.put(e.getKey(), new JsonArray(new ArrayList<>(e.getValue())));
      }
      j.put("extra", ex);
    }
    return j;
  }
}
