package io.mvproxy.node.ingress;

import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.mvproxy.api.UserInfo;
import io.vertx.core.Handler;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code --max-requests-inflight} / {@code --max-mutating-requests-inflight}, as kube-apiserver's
 * {@code WithMaxInFlightLimit} ({@code apiserver/pkg/server/filters/maxinflight.go}): {@code get}/{@code list} count
 * against the first limit, every other verb against the second; long-running requests ({@link LongRunning}: watches)
 * are not counted, and members of {@code system:masters} are never refused. Beyond a limit the answer is {@code 429}
 * with {@code Retry-After: 1} and upstream's text {@code Too many requests, please try again later.} (as a Status
 * {@code TooManyRequests}; upstream writes it as plain text). A limit of 0 disables it.
 */
public final class MaxInFlight implements Handler<RoutingContext> {
  /** Seconds clients are told to wait (upstream: 1). */
  public static final int RETRY_AFTER_SECONDS = 1;
  private static final Set<String> READ_ONLY = Set.of("get", "list", "watch");
  private static final String PRIVILEGED = "system:masters";
  private final int maxReadOnly;
  private final int maxMutating;
  private final AtomicInteger readOnly = new AtomicInteger();
  private final AtomicInteger mutating = new AtomicInteger();

  /**
   * @param maxReadOnly non-mutating requests allowed in flight (0 = no limit)
   * @param maxMutating mutating requests allowed in flight (0 = no limit)
   */
  public MaxInFlight(int maxReadOnly, int maxMutating) {
    this.maxReadOnly = maxReadOnly;
    this.maxMutating = maxMutating;
  }

  @Override
  public void handle(RoutingContext ctx) {
    RequestInfo info = io.mvproxy.api.RequestScope.of(ctx).info();
    if (info == null || LongRunning.is(ctx.request(), info)) {
      ctx.next();
      return;
    }
    boolean mut = !READ_ONLY.contains(info.verb());
    int max = mut ? maxMutating : maxReadOnly;
    if (max <= 0) {
      ctx.next();
      return;
    }
    AtomicInteger counter = mut ? mutating : readOnly;
    if (counter.incrementAndGet() > max && !privileged(ctx)) {
      counter.decrementAndGet();
      StatusResponses.send(ctx, new StatusException(StatusReason.TooManyRequests,
          "Too many requests, please try again later.", new JsonObject(), RETRY_AFTER_SECONDS));
      return;
    }
    ctx.addEndHandler(ar -> counter.decrementAndGet());
    ctx.next();
  }

  /** @return requests counted now: {@code [readOnly, mutating]} */
  public int[] inFlight() {
    return new int[] {readOnly.get(), mutating.get()};
  }

  private static boolean privileged(RoutingContext ctx) {
    UserInfo u = io.mvproxy.api.RequestScope.of(ctx).user();
    return u != null && u.groups().contains(PRIVILEGED);
  }
}
