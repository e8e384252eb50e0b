package io.mvproxy.node.ingress;

import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;

/**
 * {@code --request-timeout} for non-long-running requests, as kube-apiserver's
 * {@code WithTimeoutForNonLongRunningRequests} ({@code apiserver/pkg/server/filters/timeout.go}): a request still
 * unanswered after the deadline gets {@code 504 Timeout} Status {@code Timeout: request did not complete within the
 * allotted timeout}; when part of the answer was already sent the stream is reset instead. Long-running requests
 * ({@link LongRunning}: watches, upgrades) are exempt. Whatever the handler writes later is dropped.
 */
public final class RequestDeadline implements Handler<RoutingContext> {
  /** The Status message upstream sends. */
  public static final String MESSAGE = "Timeout: request did not complete within the allotted timeout";
  private final long timeoutMs;

  /** @param timeout the deadline (positive) */
  public RequestDeadline(Duration timeout) {
    this.timeoutMs = Math.max(1, timeout.toMillis());
  }

  @Override
  public void handle(RoutingContext ctx) {
    RequestInfo info = ctx.get(ResourceHandler.INFO_KEY);
    if (info != null && LongRunning.is(ctx.request(), info)) {
      ctx.next();
      return;
    }
    long timer = ctx.vertx().setTimer(timeoutMs, t -> expire(ctx));
    ctx.addEndHandler(ar -> ctx.vertx().cancelTimer(timer));
    ctx.next();
  }

  private static void expire(RoutingContext ctx) {
    HttpServerResponse r = ctx.response();
    if (r.ended() || r.closed()) {
      return;
    }
    if (!ctx.request().isEnded()) {
      r.putHeader("Connection", "close");
    }
    StatusResponses.send(ctx, new StatusException(StatusReason.Timeout, MESSAGE, new JsonObject()));
  }
}
