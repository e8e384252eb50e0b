package io.mvproxy.node.ingress;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.vertx.ext.web.RoutingContext;

/** Writes Kubernetes {@code Status} error responses (api-surface.md "Errors"). */
public final class StatusResponses {
  private StatusResponses() {
  }

  /**
   * Ends the response with the Status of {@code e} ({@code Retry-After} when it carries one); resets the stream
   * when the head was already written.
   *
   * @param ctx the request
   * @param e   the error
   */
  public static void send(RoutingContext ctx, StatusException e) {
    e.respond(ctx);
  }

  /**
   * Router failure handler: StatusExceptions as themselves, HTTP-status failures as their reason, everything
   * else as 500 InternalError.
   *
   * @param ctx the failed request
   */
  public static void onFailure(RoutingContext ctx) {
    Throwable t = ctx.failure();
    if (t instanceof StatusException se) {
      send(ctx, se);
      return;
    }
    int code = ctx.statusCode() > 0 ? ctx.statusCode() : 500;
    StatusReason reason = StatusReason.InternalError;
    for (StatusReason r : StatusReason.values()) {
      if (r.code() == code) {
        reason = r;
        break;
      }
    }
    send(ctx, new StatusException(reason, t == null ? "request failed with HTTP " + code : String.valueOf(t.getMessage()), null));
  }
}
