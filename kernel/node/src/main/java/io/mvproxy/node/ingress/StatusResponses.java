package io.mvproxy.node.ingress;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.vertx.ext.web.RoutingContext;

/**
 * The ingress chain's access to the node's one Status writer ({@link io.mvproxy.api.StatusWriter}, api-surface.md
 * "Errors") and the router's failure handler.
 */
public final class StatusResponses {
  private StatusResponses() {
  }

  /**
   * Ends the response with the Status of {@code e} ({@code Retry-After} when it carries one); resets the stream
   * when the head was already written; does nothing once the response ended.
   *
   * @param ctx the request
   * @param e   the error
   */
  public static void send(RoutingContext ctx, StatusException e) {
    io.mvproxy.api.StatusWriter.send(ctx, e);
  }

  /**
   * Router failure handler (see {@link RequestFailures#onFailure}).
   *
   * @param ctx the failed request
   */
  public static void onFailure(RoutingContext ctx) {
    RequestFailures.onFailure(ctx);
  }

  /**
   * @param code an HTTP status a handler failed with (e.g. Vert.x's BodyHandler: 413)
   * @return the Status for it, with kube-apiserver's text where it has one
   */
  static StatusException forCode(int code) {
    if (code == 413) {
      return StatusException.tooLarge(IngressVerticle.MAX_BODY_BYTES);
    }
    for (StatusReason r : StatusReason.values()) {
      if (r.code() == code) {
        return new StatusException(r, "request failed with HTTP " + code, null);
      }
    }
    return StatusException.internal(new IllegalStateException("request failed with HTTP " + code));
  }
}
