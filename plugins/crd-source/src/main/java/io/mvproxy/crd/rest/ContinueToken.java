package io.mvproxy.crd.rest;

import io.mvproxy.api.StatusException;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The opaque {@code continue} token of paginated lists (apiserver {@code storage/etcd3/continue.go} keeps the list's
 * resourceVersion and the last key): base64url of {@code {"rv":<list rv>,"start":"<last key>"}}.
 *
 * @param resourceVersion the resourceVersion of the first page
 * @param lastKey         the map key of the last item returned
 */
public record ContinueToken(long resourceVersion, String lastKey) {

  /** @return the token text */
  public String encode() {
    String json = new JsonObject().put("rv", resourceVersion).put("start", lastKey).encode();
    return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * @param token a token from {@link #encode()}
   * @return the decoded token
   * @throws StatusException 400 when it is not one
   */
  public static ContinueToken decode(String token) {
    try {
      JsonObject o = new JsonObject(new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8));
      return new ContinueToken(o.getLong("rv"), o.getString("start"));
    } catch (RuntimeException e) {
      throw StatusException.badRequest("continue key is not valid: " + e.getMessage());
    }
  }
}
