package io.mvproxy.node.proxy;

import io.mvproxy.api.Gvr;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.node.fleet.FleetViewRef;
import io.mvproxy.node.metrics.NodeMetrics;
import io.mvproxy.node.proxy.PeerProxy.AttemptTimeouts;
import io.mvproxy.node.routing.PeerTarget;
import io.mvproxy.security.ProxyHop;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.RequestOptions;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.logging.Logger;

import static io.mvproxy.node.proxy.PeerProxy.CONNECT_TIMEOUT_MS;
import static io.mvproxy.node.proxy.PeerProxy.HEAD_TIMEOUT_MS;
import static io.mvproxy.node.proxy.PeerProxy.IDEMPOTENT;
import static io.mvproxy.node.proxy.PeerProxy.NOT_SERVED_HERE;
import static io.mvproxy.node.proxy.PeerProxy.PEER_PROXIED;
import static io.mvproxy.node.proxy.PeerProxy.RETRY_AFTER_SECONDS;
import static io.mvproxy.node.proxy.PeerProxy.attemptTimeouts;
import static io.mvproxy.node.proxy.PeerProxy.fail;
import static io.mvproxy.node.proxy.PeerProxy.headers;

/**
 * The attempts of one proxied request, tried in order ({@link PeerProxy}: failover, retry of idempotent requests,
 * deadline, streaming of the answer).
 */
final class ProxyAttempts {
  private static final Logger LOG = Logger.getLogger(PeerProxy.class.getName());
  private final Vertx vertx;
  private final HttpClient client;
  private final HttpClient longRunning;
  private final NodeMetrics metrics;
  private final FleetViewRef view;
  private final PeerStreams streams;
  private final PeerStreams attempts;
  private final boolean perRequestConnectTimeout;
  final RoutingContext ctx;
  final UserInfo user;
  final Gvr gvr;
  final boolean streaming;
  final List<PeerTarget> targets;
  final java.util.function.Supplier<List<PeerTarget>> refresh;
  final Set<String> tried = new java.util.HashSet<>();
  final long start;
  final boolean ownDeadline;
  final long deadline;
  final boolean idempotent;
  final Context context;
  int index;
  boolean retried;
  /** An attempt was already repeated on a new connection to the same peer after its pooled one was closed. */
  boolean reconnected;
  /** The client's response ended (reset, closed, or answered 504) while an attempt waited for its peer. */
  boolean callerGone;

  /** One forwarded request through the {@code proxy}'s clients, metrics, fleet view and stream registries. */
  ProxyAttempts(PeerProxy proxy, RoutingContext ctx, UserInfo user, Gvr gvr, boolean streaming,
                List<PeerTarget> targets, java.util.function.Supplier<List<PeerTarget>> refresh, long start, long own,
                long deadline, Context context) {
    this.vertx = proxy.vertx;
    this.client = proxy.client;
    this.longRunning = streaming && ctx.request().method() == io.vertx.core.http.HttpMethod.HEAD
        && proxy.oneShot != null ? proxy.oneShot : proxy.longRunning;
    this.metrics = proxy.metrics;
    this.view = proxy.view;
    this.streams = proxy.streams;
    this.attempts = proxy.attempts;
    this.perRequestConnectTimeout = proxy.perRequestConnectTimeout;
    this.ownDeadline = own > 0;
    this.context = context;
    this.ctx = ctx;
    this.user = user;
    this.gvr = gvr;
    this.streaming = streaming;
    this.targets = new java.util.ArrayList<>(targets);
    this.refresh = refresh;
    this.start = start;
    this.deadline = deadline;
    this.idempotent = IDEMPOTENT.contains(ctx.request().method());
  }

  void next(Throwable last) {
    if (ctx.response().ended()) {
      return;  // answered already (the request's deadline: 504 Timeout)
    }
    long left = deadline - System.currentTimeMillis();
    if (left <= 0 && ownDeadline && !ctx.response().closed()) {
      // the request's own deadline passed between attempts: the local chain's answer, not a peer error
      fail(ctx, new StatusException(io.mvproxy.api.StatusReason.Timeout,
          io.mvproxy.node.ingress.RequestDeadline.MESSAGE, new io.vertx.core.json.JsonObject()));
      return;
    }
    if (left > 0 && !ctx.response().closed()) {
      hasNext();
    }
    if (index >= targets.size() || left <= 0 || ctx.response().closed()) {
      if (gvr != null) {
        metrics.proxyError(ProxyErrorType.ENDPOINT_RESOLUTION, gvr);
      }
      String why = last == null ? "no peer available" : String.valueOf(last.getMessage());
      fail(ctx, StatusException.unavailable("error trying to reach a peer server for this resource: " + why,
          RETRY_AFTER_SECONDS));
      return;
    }
    PeerTarget t = targets.get(index++);
    tried.add(t.serverId());
    io.mvproxy.api.RequestScope.of(ctx).annotate(io.mvproxy.node.audit.AuditFilter.PROXIED_TO, t.serverId());
    HttpServerRequest in = ctx.request();
    RequestOptions opts = new RequestOptions().setHost(t.host()).setPort(t.port()).setMethod(in.method())
        .setURI(in.uri()).setSsl(true).setHeaders(headers(in, user, t));
    // per-request timeouts only where the clients' own do not fit (each costs a timer)
    AttemptTimeouts limits = attemptTimeouts(left, ownDeadline, streaming);
    if (limits.connectMs() > 0 && perRequestConnectTimeout) {
      opts.setConnectTimeout(limits.connectMs());
    }
    if (limits.idleMs() > 0) {
      opts.setIdleTimeout(limits.idleMs());
    }
    (streaming ? longRunning : client).request(opts).onComplete(ar -> {
      if (ar.failed()) {
        LOG.warning("peer " + t.serverId() + " at " + t.host() + ":" + t.port() + " unreachable: " + ar.cause());
        if (gvr != null) {
          metrics.proxyError(ProxyErrorType.PROXY_CONNECTION, gvr);
        }
        next(ar.cause());
        return;
      }
      send(t, ar.result());
    });
  }

  private void send(PeerTarget t, HttpClientRequest out) {
    long headMs = attemptTimeouts(Math.max(1, deadline - System.currentTimeMillis()), ownDeadline, streaming)
        .headMs();
    long headTimer = streaming ? vertx.setTimer(headMs, x -> out.reset(0, new java.util.concurrent.TimeoutException(
        "no response head from peer " + t.serverId() + " within " + HEAD_TIMEOUT_MS + " ms"))) : -1;
    // a short attempt ends early when its peer departs (a frozen peer never closes its connections); a peer
    // leaving gracefully drains what it was sent, so its answer is awaited
    Runnable untrack = streaming ? () -> { } : attempts.add(t.serverId(), context, () -> out.reset(0,
        new java.io.IOException("peer " + t.serverId() + " left the fleet")));
    Buffer body = ctx.body() == null ? null : ctx.body().buffer();
    Future<HttpClientResponse> sent = body == null ? out.send() : out.send(body);
    if (!streaming && !view.get().answering(t.serverId())) {
      // it left while this attempt connected (the view was published before the attempt was recorded)
      out.reset(0, new java.io.IOException("peer " + t.serverId() + " left the fleet"));
    }
    if (!streaming) {
      // the client's response ended before the peer's head came (the request's deadline answered 504 Timeout, or
      // the client went away): the peer request is reset, freeing its pooled connection
      ctx.addEndHandler(x -> {
        untrack.run();
        if (!sent.isComplete()) {
          callerGone = true;
          out.reset(0, new java.util.concurrent.CancellationException("the request ended before its peer "
              + t.serverId() + " answered"));
        }
      });
    }
    sent.onComplete(rr -> {
      if (headTimer >= 0) {
        vertx.cancelTimer(headTimer);
      }
      if (rr.failed()) {
        untrack.run();
        if (ctx.response().ended()) {
          return;  // answered already (the request's deadline: 504 Timeout)
        }
      }
      if (rr.succeeded()) {
        HttpClientResponse resp = rr.result();
        if (resp.statusCode() == 503 && resp.getHeader(NOT_SERVED_HERE) != null) {
          resp.body().onComplete(x -> {
            untrack.run();
            notServed(t);
          });
        } else if (resp.statusCode() == 503 && idempotent && !retried && !view.get().members()
            .containsKey(t.serverId()) && hasNext()) {
          // a peer that left the fleet while it answered (its storage closing in its shutdown): a read goes to
          // the next capable peer instead of relaying the departing node's 503
          retried = true;
          resp.body().onComplete(x -> {
            untrack.run();
            LOG.info("peer " + t.serverId() + " answered 503 while leaving the fleet: " + ctx.request().method()
                + " " + ctx.request().path() + " retried on peer " + targets.get(index).serverId());
            if (gvr != null) {
              metrics.proxyRetried(gvr);
            }
            next(new IllegalStateException("peer " + t.serverId() + " left the fleet"));
          });
        } else {
          relay(t, resp);
        }
        return;
      }
      if (callerGone || ctx.response().closed()) {
        // the caller went away (its connection closed, or its h2 stream reset): nobody to answer, nothing to retry
        return;
      }
      if (gvr != null) {
        metrics.proxyError(ProxyErrorType.CONNECTION_LOST, gvr);
      }
      if (idempotent && !reconnected && !ctx.response().headWritten()
          && rr.cause() instanceof io.vertx.core.http.HttpClosedException) {
        // the pooled connection was dead (the peer restarted since it was opened): once on a new connection to
        // the same peer, as Go's transport resends an idempotent request whose reused connection was closed
        reconnected = true;
        index--;
        next(rr.cause());
        return;
      }
      if (idempotent && !retried && !ctx.response().headWritten() && hasNext()) {
        retried = true;
        LOG.warning("peer " + t.serverId() + " failed before answering " + ctx.request().method() + " "
            + ctx.request().path() + " (" + rr.cause() + "): retrying on peer " + targets.get(index).serverId());
        if (gvr != null) {
          metrics.proxyRetried(gvr);
        }
        next(rr.cause());
        return;
      }
      LOG.warning("peer " + t.serverId() + " failed before answering " + ctx.request().method() + " "
          + ctx.request().path() + ": " + rr.cause() + (idempotent ? "" : " (not retried: not idempotent)"));
      fail(ctx, StatusException.unavailable("error proxying to peer " + t.serverId() + ": "
          + rr.cause().getMessage(), RETRY_AFTER_SECONDS));
    });
  }

  /**
   * Whether a target is left to try; once the targets chosen at the start are used up, the current fleet view's
   * capable peers not tried yet are added (a peer that left mid-request, in a rolling restart, is replaced by the
   * one that took its place or by another capable peer).
   *
   * @return true when {@code targets.get(index)} exists
   */
  private boolean hasNext() {
    if (index >= targets.size()) {
      refresh.get().stream().filter(p -> !tried.contains(p.serverId())).forEach(targets::add);
    }
    return index < targets.size();
  }

  /**
   * The peer answered that it does not serve the request (any more) and did nothing with it: the next capable peer
   * is tried, whatever the method; once every target refused, the current fleet view is asked for capable peers
   * not tried yet; none left: 503 (the caller retries after Retry-After, when the views have converged).
   */
  private void notServed(PeerTarget t) {
    if (gvr != null) {
      metrics.proxyError(ProxyErrorType.NOT_SERVED, gvr);
    }
    LOG.info("peer " + t.serverId() + " no longer serves " + ctx.request().method() + " " + ctx.request().path()
        + (hasNext() ? ": trying peer " + targets.get(index).serverId() : ": no other peer serves it"));
    next(new IllegalStateException("peer " + t.serverId() + " does not serve it any more"));
  }

  private void relay(PeerTarget t, HttpClientResponse resp) {
    if (gvr != null) {
      metrics.rerouted(gvr, resp.statusCode(), Duration.ofNanos(System.nanoTime() - start));
    }
    ProxyHop.relay(resp, ctx.response(), streaming, e -> {
      LOG.info("peer connection lost while streaming " + ctx.request().path() + ": " + e
          + (streaming ? " (watch ended; the client re-establishes it)" : ""));
      if (gvr != null) {
        metrics.proxyError(ProxyErrorType.STREAM_LOST, gvr);
      }
    });
    if (streaming) {
      track(t, resp);
    }
  }

  /**
   * Records a long-running response so that its peer's departure from the fleet view ends it; checks the view
   * after recording, so a departure published meanwhile is not missed.
   */
  private void track(PeerTarget t, HttpClientResponse resp) {
    io.vertx.core.http.HttpServerResponse out = ctx.response();
    if (out.closed() || out.ended()) {
      return;
    }
    Runnable end = () -> {
      if (!out.closed() && !out.ended()) {
        LOG.info("peer " + t.serverId() + " left the fleet while streaming " + ctx.request().path()
            + " (watch ended; the client re-establishes it)");
        if (gvr != null) {
          metrics.proxyError(ProxyErrorType.STREAM_LOST, gvr);
        }
        if (resp.getHeader("Content-Length") == null) {
          out.end();
        } else {
          out.reset();
        }
      }
      resp.request().reset(0, new java.io.IOException("peer " + t.serverId() + " left the fleet"));
    };
    Runnable untrack = streams.add(t.serverId(), context, end);
    ctx.addEndHandler(x -> untrack.run());
    if (!view.get().members().containsKey(t.serverId())) {
      untrack.run();
      end.run();
    }
  }
}
