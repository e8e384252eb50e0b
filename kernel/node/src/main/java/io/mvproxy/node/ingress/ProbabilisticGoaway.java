package io.mvproxy.node.ingress;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.RoutingContext;
import java.util.concurrent.ThreadLocalRandom;

/**
 * kube-apiserver's {@code --goaway-chance} ({@code apiserver/pkg/server/filters/goaway.go}
 * {@code WithProbabilisticGoaway}): an HTTP/2 request is, with the given probability, served normally and its
 * connection sent a graceful GOAWAY when the response head is written (Go's h2 server does so for the
 * {@code Connection: close} the filter sets), so a client behind a load balancer reconnects and the fleet's
 * connections rebalance. Streams in flight on the connection, watches included, finish; the client opens its next
 * ones on a new connection ({@link ConnectionTimeouts#goAway}). HTTP/1.1 requests are left alone.
 */
public final class ProbabilisticGoaway implements Handler<RoutingContext> {
  private final double chance;

  /** @param chance probability per HTTP/2 request, 0..0.02 (validated by the config loader) */
  public ProbabilisticGoaway(double chance) {
    this.chance = chance;
  }

  /** @param ctx a request: decides, then always goes on to the next step */
  @Override
  public void handle(RoutingContext ctx) {
    if (ctx.request().version() == HttpVersion.HTTP_2 && decide()) {
      HttpConnection conn = ctx.request().connection();
      ctx.addHeadersEndHandler(v -> ConnectionTimeouts.goAway(conn));
    }
    ctx.next();
  }

  /** @return true with probability {@code chance} (Go: {@code rand.Float64() < chance}) */
  boolean decide() {
    return ThreadLocalRandom.current().nextDouble() < chance;
  }
}
