package io.mvproxy.node.ingress;

import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.mvproxy.node.config.GoDuration;
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
 * ({@link LongRunning}: watches, upgrades) are exempt. Whatever the handler writes later is dropped. The deadline is
 * kept in the request's {@link io.mvproxy.api.RequestScope#deadlineMillis()}, so the peer hop works within it.
 *
 * <p>A {@code timeout} query parameter shortens the deadline as {@code WithRequestDeadline}
 * ({@code apiserver/pkg/endpoints/filters/request_deadline.go}) does: a Go duration ({@code 1ms}, {@code 30s});
 * {@code 0}, a negative value or one beyond {@code --request-timeout} keeps {@code --request-timeout}; one that does
 * not parse is a {@code 400 BadRequest} {@code invalid timeout specified in the request URL - time: invalid duration
 * "bogus"}. (Upstream checks it before authentication; here it comes right after it.)
 */
public final class RequestDeadline implements Handler<RoutingContext> {
  /** The Status message upstream sends. */
  public static final String MESSAGE = "Timeout: request did not complete within the allotted timeout";
  /** The start of the 400 message for a {@code timeout} parameter that does not parse (upstream's text). */
  public static final String INVALID_TIMEOUT = "invalid timeout specified in the request URL";
  /**
   * Granularity of the deadlines of requests with a long time-out, ms: they expire up to this much late (kube-apiserver's
   * own timer is exact; 100 ms on a 60 s deadline is noise). Time-outs under ten slots get a timer of their own.
   */
  static final long BUCKET_MS = 100;
  private final long timeoutMs;
  /** The deadline slots of each event loop (the ingress runs one instance per loop, a request stays on its loop). */
  private final ThreadLocal<Buckets> buckets;

  /** @param timeout the deadline (positive) */
  public RequestDeadline(Duration timeout) {
    this.timeoutMs = Math.max(1, timeout.toMillis());
    this.buckets = ThreadLocal.withInitial(() -> new Buckets(io.vertx.core.Vertx.currentContext().owner()));
  }

  @Override
  public void handle(RoutingContext ctx) {
    RequestInfo info = io.mvproxy.api.RequestScope.of(ctx).info();
    if (info != null && LongRunning.is(ctx.request(), info)) {
      ctx.next();
      return;
    }
    long ms = timeoutMs;
    String value = ctx.request().getParam("timeout");
    if (value != null && !value.isEmpty()) {
      Duration user;
      try {
        user = GoDuration.parseStrict(value);
      } catch (IllegalArgumentException e) {
        StatusResponses.send(ctx, StatusException.badRequest(INVALID_TIMEOUT + " - " + e.getMessage()));
        return;
      }
      if (user.compareTo(Duration.ZERO) > 0 && user.compareTo(Duration.ofMillis(timeoutMs)) < 0) {
        ms = Math.max(1, user.toMillis());
      }
    }
    long deadline = System.currentTimeMillis() + ms;
    io.mvproxy.api.RequestScope.of(ctx).deadlineMillis(deadline);
    if (ms < BUCKET_MS * 10) {
      long timer = ctx.vertx().setTimer(ms, t -> expire(ctx));
      ctx.addEndHandler(ar -> ctx.vertx().cancelTimer(timer));
    } else {
      Buckets b = buckets.get();
      b.add(ctx, deadline);
    }
    ctx.next();
  }

  /**
   * Deadlines of one event loop grouped in {@link #BUCKET_MS} slots, one Vert.x timer per non-empty slot: a request
   * joins its slot (rounded up, so it expires at most {@link #BUCKET_MS} late) and leaves it when it ends, without a
   * timer of its own (a timer set and cancelled per request cost several percent of an event loop). Confined to its
   * event loop's thread.
   */
  private final class Buckets {
    private final io.vertx.core.Vertx vertx;
    private final java.util.HashMap<Long, java.util.LinkedHashSet<RoutingContext>> slots = new java.util.HashMap<>();

    Buckets(io.vertx.core.Vertx vertx) {
      this.vertx = vertx;
    }

    void add(RoutingContext ctx, long deadline) {
      long slot = (deadline + BUCKET_MS - 1) / BUCKET_MS;
      java.util.LinkedHashSet<RoutingContext> set = slots.get(slot);
      if (set == null) {
        set = new java.util.LinkedHashSet<>();
        slots.put(slot, set);
        vertx.setTimer(Math.max(1, slot * BUCKET_MS - System.currentTimeMillis()), t -> fire(slot));
      }
      set.add(ctx);
      java.util.LinkedHashSet<RoutingContext> mine = set;
      ctx.addEndHandler(ar -> mine.remove(ctx));
    }

    private void fire(long slot) {
      java.util.LinkedHashSet<RoutingContext> set = slots.remove(slot);
      if (set != null) {
        for (RoutingContext ctx : java.util.List.copyOf(set)) {
          expire(ctx);
        }
      }
    }
  }

  private static void expire(RoutingContext ctx) {
    HttpServerResponse r = ctx.response();
    if (r.ended() || r.closed()) {
      return;
    }
    if (!ctx.request().isEnded() && ctx.request().version() != io.vertx.core.http.HttpVersion.HTTP_2) {
      // HTTP/1.1: the unread body makes the connection unusable; an h2 stream ends alone (no Connection header on h2)
      r.putHeader("Connection", "close");
    }
    StatusResponses.send(ctx, new StatusException(StatusReason.Timeout, MESSAGE, new JsonObject()));
  }
}
