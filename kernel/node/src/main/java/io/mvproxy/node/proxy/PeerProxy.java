package io.mvproxy.node.proxy;

import io.mvproxy.api.Gvr;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.node.fleet.FleetViewRef;
import io.mvproxy.node.metrics.NodeMetrics;
import io.mvproxy.node.routing.PeerTarget;
import io.mvproxy.security.ProxyHop;
import io.mvproxy.security.TlsOptions;
import io.mvproxy.security.UpgradeTunnel;
import io.vertx.core.net.NetClient;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.logging.Logger;

/**
 * Forwards a request to a capable peer over mutual TLS (peer-proxy.md sections 1.10-1.13 and 3): the original
 * method, path and query; headers cloned minus hop-by-hop ones and credentials; {@code X-Kubernetes-Peer-Proxied:
 * true} SET; the caller's identity as front-proxy {@code X-Remote-*} headers; {@code X-Forwarded-*} added. The
 * request body (read by the ingress, at most 3 MiB as in Kubernetes) is resent as is; the response (watch
 * included) streams.
 *
 * <p>Deadline: the hop works within the request's own deadline, the one the local chain keeps
 * ({@link io.mvproxy.node.ingress.RequestDeadline}: {@code --request-timeout}, shortened by {@code ?timeout}), as
 * kube-apiserver's peer proxy works within the request's context: a short request waits for its peer as long as it
 * would wait for a local handler, and at the deadline the client gets the local chain's {@code 504 Timeout} while the
 * pending peer request is reset ({@link #attemptTimeouts}). Long-running requests have no deadline of their own;
 * their peer must answer the head within {@link #HEAD_TIMEOUT_MS} and the attempts' budget is {@link #DEADLINE_MS}.
 *
 * <p>Failover: a peer that cannot be connected to (refused, TLS failure, {@link #CONNECT_TIMEOUT_MS}) is skipped for
 * the next. An idempotent request ({@link #IDEMPOTENT}) whose connection fails after it was sent but before the
 * response head (reset, closed, {@link #HEAD_TIMEOUT_MS} elapsed, or its peer left the fleet view) is retried once on
 * the next capable peer, within the deadline, as is one a peer answers 503 while it leaves the fleet (its storage
 * closing in its shutdown); a non-idempotent one never is (503). Its pooled connection found
 * closed ({@code HttpClosedException}: the peer restarted since) first earns it one resend to the same peer on a new
 * connection, as Go's transport does. Once the targets chosen at the start are used up, the current view's capable
 * peers not tried yet are added (in a rolling restart the peer that left is replaced by another). A short request's
 * peer that the fleet view stops listing as live and not as leaving gracefully
 * ({@link io.mvproxy.node.fleet.FleetView#leaving}: departed, e.g. killed or frozen by SIGSTOP) fails its attempt at once ({@link PeerStreams}), as a long-running one's stream is ended,
 * instead of holding the request until its deadline; a peer leaving gracefully drains what it was sent, so its
 * answer is awaited (a POST it is storing while it shuts down is not answered 503). A peer that answers 503
 * {@link #NOT_SERVED_HERE} did nothing with the request (it withdrew the resource after this node's view was built):
 * the request, whatever its method, goes to the next target, then to capable peers of the current view not tried
 * yet, never relayed as a 404 (README "Plugins", make before break). When no peer answers: 503
 * Status with {@code Retry-After}. A watch whose peer dies after its head ends cleanly (final chunk), so the client
 * re-establishes it through this node, which picks a live peer. So does a long-running response whose peer the
 * fleet view no longer lists as live (departed or left, e.g. frozen by SIGSTOP: its kernel still ACKs, so TCP
 * keep-alive never fires): {@link PeerStreams} ends the client response (final chunk for a chunked watch) and resets
 * the peer-side connection as soon as the new view is published.
 *
 * <p>Upgrade requests ({@link UpgradeTunnel#isUpgradeRequest}: WebSocket watches, {@code exec}/{@code attach}/
 * {@code portforward} over WebSocket or SPDY) are tunnelled as upstream's {@code UpgradeAwareHandler}: a connection
 * of their own per upgrade (HTTP/1.1 over the peer TLS options, never these pools), see {@code Upgrade}.
 *
 * <p>Long-running requests ({@link io.mvproxy.node.ingress.LongRunning}: watches, streaming subresources) use their own connection pool
 * ({@link #LONG_RUNNING_POOL_SIZE} per peer, TCP keep-alive, no idle timeout once streaming), so any number of
 * proxied watches never starve short proxied requests of the {@link TlsOptions#PEER_POOL_SIZE}-connection pool.
 */
public final class PeerProxy {
  /** Header marking a proxied hop (KEP-4020). */
  public static final String PEER_PROXIED = "X-Kubernetes-Peer-Proxied";
  /**
   * Response header of a peer's 503 meaning "I do not serve this (any more) and did nothing with the request": its
   * plugin was withdrawn after this node's view was built (README "Plugins", make before break). The request is
   * then tried on the next capable peer whatever its method, as Go's HTTP/2 transport retries a stream the server
   * refused unprocessed ({@code REFUSED_STREAM}); never relayed as 404.
   */
  public static final String NOT_SERVED_HERE = "X-Mvproxy-Not-Served-Here";
  /** Seconds a client should wait before retrying when no peer is reachable. */
  public static final int RETRY_AFTER_SECONDS = 1;
  /** Per-request connect (TCP + TLS handshake) timeout, ms: a half-open or stalled peer is skipped after it. */
  public static final long CONNECT_TIMEOUT_MS = 5_000;
  /**
   * Seconds a pooled short-request connection may sit unused before it is closed (the short client's keep-alive
   * timeout): well under the peers' own 90 s idle keep-alive ({@code ServerLimits.IDLE_TIMEOUT_S}), so this side
   * closes first and never sends a request on a connection the peer is closing. It is no limit on a request in
   * progress: a short request waits for its peer until its own deadline.
   */
  public static final int KEEP_ALIVE_TIMEOUT_S = 15;
  /**
   * A long-running request's peer must send its response head within this many ms: a watch's head comes at once
   * from a healthy peer, and a long-running request has no deadline that would otherwise end the wait.
   */
  public static final long HEAD_TIMEOUT_MS = 15_000;
  /**
   * Overall budget of a proxied request's attempts, ms, when the request has no deadline of its own
   * ({@link io.mvproxy.api.RequestScope#deadlineMillis()}): long-running requests (kube-apiserver's default
   * {@code --request-timeout}, which upstream's long-running requests are exempt from, as here). A short request
   * always has its own ({@code --request-timeout}, shortened by {@code ?timeout}); a short one without (a caller that
   * skipped the ingress chain) gets this too, as the attempt's silence limit.
   */
  public static final long DEADLINE_MS = 60_000;
  /** Connections per peer of the long-running pool (watches): well above the 2,000 watches of issue 7. */
  public static final int LONG_RUNNING_POOL_SIZE = 10_000;
  /**
   * HTTP/2 connections per peer of the short-request pool: a new one is opened when the open ones carry the peer's
   * stream limit ({@code --http2-max-streams-per-connection}, 100), as Go's transport does (it opens another
   * connection rather than queueing), so up to this many times that limit run at once before requests wait.
   */
  public static final int H2_CONNECTIONS_PER_PEER = 16;
  /** HTTP/2 connections per peer of the long-running pool: 100 streams each, the same 10,000 watches as HTTP/1.1. */
  public static final int LONG_RUNNING_H2_CONNECTIONS = LONG_RUNNING_POOL_SIZE / 100;
  /** Methods retried on the next peer when the connection fails before the response head (RFC 9110 9.2.2). */
  public static final Set<HttpMethod> IDEMPOTENT = Set.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS);
  private static final Logger LOG = Logger.getLogger(PeerProxy.class.getName());

  private final Vertx vertx;
  private final HttpClient client;
  private final HttpClient longRunning;
  private final NodeMetrics metrics;
  private final FleetViewRef view;
  private final PeerStreams streams = new PeerStreams();
  /**
   * Short attempts waiting for their peer's answer: reset when the peer is neither live nor leaving gracefully
   * (departed: killed, frozen, partitioned), left to finish while it drains (graceful shutdown).
   */
  private final PeerStreams attempts = new PeerStreams();
  /** Dials the dedicated connection of each upgrade (HTTP/1.1 with the peer TLS options); null: upgrades refused. */
  private NetClient upgrades;
  private boolean perRequestConnectTimeout = true;

  /**
   * @param vertx       the Vert.x of the calling verticle (timers)
   * @param client      HTTP client for short requests (pooled, {@link TlsOptions#peerPool()})
   * @param longRunning HTTP client for watches and other streaming requests (its own pool)
   * @param metrics     where proxied requests and errors are counted
   * @param view        the fleet view: long-running responses of a peer it stops listing as live are ended
   */
  public PeerProxy(Vertx vertx, HttpClient client, HttpClient longRunning, NodeMetrics metrics, FleetViewRef view) {
    this.vertx = vertx;
    this.client = client;
    this.longRunning = longRunning;
    this.metrics = metrics;
    this.view = view;
    view.onChange(v -> {
      streams.retainLive(v.members().keySet());
      Set<String> answering = new java.util.HashSet<>(v.members().keySet());
      answering.addAll(v.leaving());
      attempts.retainLive(answering);
    });
  }

  /** @return the long-running proxied responses in flight, by peer (ended when their peer departs) */
  public PeerStreams streams() {
    return streams;
  }

  /**
   * Builds the proxy with its two peer clients.
   *
   * @param vertx       the calling verticle's Vert.x
   * @param peerOptions peer TLS client options (trust {@code --peer-ca-file}, key = proxy client cert)
   * @param metrics     node metrics
   * @param view        the fleet view (peers it stops listing as live get their streams ended)
   * @return the proxy
   */
  public static PeerProxy create(Vertx vertx, HttpClientOptions peerOptions, NodeMetrics metrics,
                                 FleetViewRef view) {
    boolean h2 = peerOptions.getProtocolVersion() == io.vertx.core.http.HttpVersion.HTTP_2;
    // no idle timeout: Vert.x's HTTP/1.1 client idle timeout fires only while a request is in flight (a silent peer
    // fails the request), and a short request waits until its own deadline, as a local one; unused pooled
    // connections are closed by the keep-alive timeout
    HttpClient shortClient = build(vertx, new HttpClientOptions(peerOptions)
        .setConnectTimeout((int) CONNECT_TIMEOUT_MS).setIdleTimeout(0).setKeepAliveTimeout(KEEP_ALIVE_TIMEOUT_S)
        .setHttp2KeepAliveTimeout(KEEP_ALIVE_TIMEOUT_S),
        TlsOptions.peerPool().setHttp2MaxSize(H2_CONNECTIONS_PER_PEER), h2);
    // watches: on h2 multiplexed too (a proxied watch costs a stream, not a TLS handshake), on connections of their
    // own so that short requests never queue behind a connection full of watches
    HttpClient longClient = build(vertx, new HttpClientOptions(peerOptions)
        .setConnectTimeout((int) CONNECT_TIMEOUT_MS).setTcpKeepAlive(true),
        new PoolOptions().setHttp1MaxSize(LONG_RUNNING_POOL_SIZE).setHttp2MaxSize(LONG_RUNNING_H2_CONNECTIONS)
            .setMaxWaitQueueSize(TlsOptions.PEER_WAIT_QUEUE), h2);
    PeerProxy proxy = new PeerProxy(vertx, shortClient, longClient, metrics, view);
    // Vert.x 5.0/5.1 HTTP/2 pools complete a queued request twice when it has its own connect timeout (vert.x
    // #6197): on h2 the clients' own CONNECT_TIMEOUT_MS bounds connecting, the deadline still bounds the attempts
    proxy.perRequestConnectTimeout = !h2;
    proxy.upgrades = vertx.createNetClient(UpgradeTunnel.clientOptions(peerOptions, peerOptions.isVerifyHost()));
    return proxy;
  }

  private static HttpClient build(Vertx vertx, HttpClientOptions options, PoolOptions pool, boolean h2) {
    io.vertx.core.http.HttpClientBuilder b = vertx.httpClientBuilder().with(options).with(pool);
    if (h2) {
      b.withConnectHandler(conn -> PeerPing.start(vertx, conn));
    }
    return b.build();
  }

  /**
   * Forwards a non-resource request for a group-version this node lacks (legacy discovery, OpenAPI).
   *
   * @param ctx     the request
   * @param user    the authenticated caller
   * @param gv      the group-version (peers serving it are asked again when every target refused it)
   * @param targets capable peers in the order to try
   */
  public void forwardGroupVersion(RoutingContext ctx, UserInfo user, io.mvproxy.api.GroupVersion gv,
                                  List<PeerTarget> targets) {
    forward(ctx, user, null, false, targets, () -> view.get().routing().peersFor(gv));
  }

  /**
   * Forwards a resource request; its body, if any, has been read into {@code ctx.body()} by the ingress.
   *
   * @param ctx     the request
   * @param user    the authenticated caller, sent as X-Remote-* headers
   * @param info    the parsed request (routing key for metrics; long-running ones use the long-running pool)
   * @param targets capable peers in the order to try
   */
  public void forwardResource(RoutingContext ctx, UserInfo user, RequestInfo info, List<PeerTarget> targets) {
    boolean streaming = io.mvproxy.node.ingress.LongRunning.is(ctx.request(), info);
    forward(ctx, user, info.gvr(), streaming, targets, () -> view.get().routing().decide(info, false, true)
        instanceof io.mvproxy.node.routing.Decision.Proxy p ? p.targets() : List.of());
  }

  private void forward(RoutingContext ctx, UserInfo user, Gvr gvr, boolean streaming, List<PeerTarget> targets,
                       java.util.function.Supplier<List<PeerTarget>> refresh) {
    if (UpgradeTunnel.isUpgradeRequest(ctx.request())) {
      new Upgrade(ctx, user, gvr, targets, refresh, vertx.getOrCreateContext()).next(null);
      return;
    }
    long start = System.nanoTime();
    long own = io.mvproxy.api.RequestScope.of(ctx).deadlineMillis();
    new Attempts(ctx, user, gvr, streaming, targets, refresh, start, own,
        hopDeadline(own, System.currentTimeMillis()), vertx.getOrCreateContext()).next(null);
  }

  /**
   * @param ownDeadline the request's own deadline, epoch ms ({@link io.mvproxy.api.RequestScope#deadlineMillis()}),
   *                    0 for none
   * @param now         the current time, epoch ms
   * @return the deadline of the hop's attempts, epoch ms: the request's own, else {@link #DEADLINE_MS} from now
   */
  static long hopDeadline(long ownDeadline, long now) {
    return ownDeadline > 0 ? ownDeadline : now + DEADLINE_MS;
  }

  /**
   * The per-attempt time-outs of one attempt, ms, 0 meaning "none of its own" (the client's default applies).
   *
   * @param connectMs TCP + TLS handshake limit (the clients' {@link #CONNECT_TIMEOUT_MS} unless the deadline is nearer)
   * @param idleMs    silence limit of the attempt: only for a short request without a deadline of its own (one with
   *                  its own is ended by the ingress's {@code 504 Timeout} at that deadline, and its pending peer
   *                  request reset)
   * @param headMs    a long-running request's limit for the response head
   */
  record AttemptTimeouts(long connectMs, long idleMs, long headMs) {
  }

  /**
   * The time-outs of an attempt started with {@code left} ms before the hop's deadline.
   *
   * @param left        ms until {@link #hopDeadline} (positive)
   * @param ownDeadline whether the request has a deadline of its own
   * @param streaming   whether it is long-running
   * @return the attempt's time-outs
   */
  static AttemptTimeouts attemptTimeouts(long left, boolean ownDeadline, boolean streaming) {
    long connect = left < CONNECT_TIMEOUT_MS ? left : 0;
    long idle = !streaming && !ownDeadline ? left : 0;
    long head = streaming ? Math.max(1, Math.min(HEAD_TIMEOUT_MS, left)) : 0;
    return new AttemptTimeouts(connect, idle, head);
  }

  /** The attempts of one proxied request, tried in order. */
  private final class Attempts {
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

    Attempts(RoutingContext ctx, UserInfo user, Gvr gvr, boolean streaming, List<PeerTarget> targets,
             java.util.function.Supplier<List<PeerTarget>> refresh, long start, long own, long deadline,
             Context context) {
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

  /**
   * One upgrade request (WebSocket, SPDY) tunnelled to a capable peer ({@link UpgradeTunnel}): each attempt dials a
   * connection of its own (HTTP/1.1 over the peer TLS options, never the pooled or h2 clients). A peer that cannot
   * be connected to is skipped for the next; one that answers {@link #NOT_SERVED_HERE} too (it did nothing), then
   * the current view's untried capable peers; a failure after the request was sent is {@code 503} (the upgrade is
   * not sent twice). The peer's {@code 101} opens the tunnel, which is closed when either side closes or the peer
   * leaves the fleet view ({@link PeerStreams}); its error answers are relayed.
   */
  private final class Upgrade {
    final RoutingContext ctx;
    final UserInfo user;
    final Gvr gvr;
    final List<PeerTarget> targets;
    final java.util.function.Supplier<List<PeerTarget>> refresh;
    final Set<String> tried = new java.util.HashSet<>();
    final Context context;
    final long start = System.nanoTime();
    int index;

    Upgrade(RoutingContext ctx, UserInfo user, Gvr gvr, List<PeerTarget> targets,
            java.util.function.Supplier<List<PeerTarget>> refresh, Context context) {
      this.ctx = ctx;
      this.user = user;
      this.gvr = gvr;
      this.targets = new java.util.ArrayList<>(targets);
      this.refresh = refresh;
      this.context = context;
    }

    void next(Throwable last) {
      if (ctx.response().closed() || ctx.response().ended()) {
        return;
      }
      if (index >= targets.size()) {
        if (gvr != null) {
          metrics.proxyError(ProxyErrorType.ENDPOINT_RESOLUTION, gvr);
        }
        UpgradeTunnel.refuse(ctx, StatusException.unavailable("error trying to reach a peer server for this resource: "
            + (last == null ? "no peer available" : last.getMessage()), RETRY_AFTER_SECONDS));
        return;
      }
      PeerTarget t = targets.get(index++);
      tried.add(t.serverId());
      io.mvproxy.api.RequestScope.of(ctx).annotate(io.mvproxy.node.audit.AuditFilter.PROXIED_TO, t.serverId());
      HttpServerRequest in = ctx.request();
      Buffer body = ctx.body() == null || !ctx.body().available() ? null : ctx.body().buffer();
      UpgradeTunnel.dial(vertx, upgrades, new UpgradeTunnel.Target(t.host(), t.port(), true,
              t.host() + ":" + t.port()), in, in.uri(), headers(in, user, t), body, (int) CONNECT_TIMEOUT_MS,
          HEAD_TIMEOUT_MS).onComplete(ar -> {
            if (ar.failed()) {
              boolean sent = ar.cause() instanceof UpgradeTunnel.DialException d && d.sent();
              LOG.warning("upgrade " + in.method() + " " + in.path() + " to peer " + t.serverId() + " failed: "
                  + ar.cause().getMessage());
              if (gvr != null) {
                metrics.proxyError(sent ? ProxyErrorType.CONNECTION_LOST : ProxyErrorType.PROXY_CONNECTION, gvr);
              }
              if (sent) {
                UpgradeTunnel.refuse(ctx, StatusException.unavailable("error proxying to peer " + t.serverId() + ": "
                    + ar.cause().getMessage(), RETRY_AFTER_SECONDS));
              } else {
                next(ar.cause());
              }
              return;
            }
            UpgradeTunnel.Dialed d = ar.result();
            if (d.statusCode() == 503 && d.headers().get(NOT_SERVED_HERE) != null) {
              d.close();
              if (gvr != null) {
                metrics.proxyError(ProxyErrorType.NOT_SERVED, gvr);
              }
              if (index >= targets.size()) {
                refresh.get().stream().filter(p -> !tried.contains(p.serverId())).forEach(targets::add);
              }
              next(new IllegalStateException("peer " + t.serverId() + " does not serve it any more"));
              return;
            }
            if (ctx.response().closed()) {
              d.close();
              return;
            }
            if (gvr != null) {
              metrics.rerouted(gvr, d.statusCode(), Duration.ofNanos(System.nanoTime() - start));
            }
            Runnable untrack = d.statusCode() == 101 ? streams.add(t.serverId(), context, () -> {
              LOG.info("peer " + t.serverId() + " left the fleet: closing the tunnel of " + in.path());
              d.close();
            }) : () -> { };
            UpgradeTunnel.answer(ctx, d, RETRY_AFTER_SECONDS).onComplete(x -> untrack.run());
            if (d.statusCode() == 101 && !view.get().members().containsKey(t.serverId())) {
              d.close();
            }
          });
    }
  }

  private static MultiMap headers(HttpServerRequest in, UserInfo user, PeerTarget t) {
    MultiMap h = ProxyHop.requestHeaders(in, user, t.host() + ":" + t.port());
    h.set(PEER_PROXIED, "true");
    return h;
  }

  private static void fail(RoutingContext ctx, StatusException e) {
    e.respond(ctx);
  }
}
