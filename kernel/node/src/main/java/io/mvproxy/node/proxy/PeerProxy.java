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
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.RoutingContext;
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
 * of their own per upgrade (HTTP/1.1 over the peer TLS options, never these pools), see {@link ProxyUpgrade}.
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
  /**
   * Long-running requests that may wait for a connection of the long-running pool: as many as the pool holds, not
   * the short pool's {@link TlsOptions#PEER_WAIT_QUEUE}. Go's transport queues no request (it dials, or waits for
   * a stream), and a burst of watches waits here while the pool's connections are being opened: with 1,024, 3,852
   * of 10,000 watches opened at once over the h2 hop were answered 503 ({@code bench/watch-scale --protocol h2
   * --burst}). A waiting watch costs one pool entry beside the client stream it already holds.
   */
  public static final int LONG_RUNNING_WAIT_QUEUE = LONG_RUNNING_POOL_SIZE;
  /** Connections per peer of {@link #oneShot}: each lives for one HEAD's head, so a few are enough. */
  public static final int ONE_SHOT_POOL_SIZE = 16;
  /** Methods retried on the next peer when the connection fails before the response head (RFC 9110 9.2.2). */
  public static final Set<HttpMethod> IDEMPOTENT = Set.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS);
  private static final Logger LOG = Logger.getLogger(PeerProxy.class.getName());

  final Vertx vertx;
  final HttpClient client;
  final HttpClient longRunning;
  final NodeMetrics metrics;
  final FleetViewRef view;
  final PeerStreams streams = new PeerStreams();
  /**
   * Short attempts waiting for their peer's answer: reset when the peer is neither live nor leaving gracefully
   * (departed: killed, frozen, partitioned), left to finish while it drains (graceful shutdown).
   */
  final PeerStreams attempts = new PeerStreams();
  /** Dials the dedicated connection of each upgrade (HTTP/1.1 with the peer TLS options); null: upgrades refused. */
  NetClient upgrades;
  /**
   * HTTP/1.1 without keep-alive, for a HEAD that is long-running (a HEAD watch): its answer is the head alone, so
   * the client sees it complete at once while the peer keeps serving the watch on that connection until it ends;
   * back in a pool, the connection would hold every request given to it after that (each waited
   * {@link #HEAD_TIMEOUT_MS}, then went to another connection). Closed after the head instead, which also ends the
   * peer's watch. Null on an HTTP/2 hop, where each request has its own stream.
   */
  HttpClient oneShot;
  boolean perRequestConnectTimeout = true;

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
            .setMaxWaitQueueSize(LONG_RUNNING_WAIT_QUEUE), h2);
    PeerProxy proxy = new PeerProxy(vertx, shortClient, longClient, metrics, view);
    // Vert.x 5.0/5.1 HTTP/2 pools complete a queued request twice when it has its own connect timeout (vert.x
    // #6197): on h2 the clients' own CONNECT_TIMEOUT_MS bounds connecting, the deadline still bounds the attempts
    proxy.perRequestConnectTimeout = !h2;
    proxy.upgrades = vertx.createNetClient(UpgradeTunnel.clientOptions(peerOptions, peerOptions.isVerifyHost()));
    if (!h2) {
      proxy.oneShot = build(vertx, new HttpClientOptions(peerOptions).setConnectTimeout((int) CONNECT_TIMEOUT_MS)
          .setKeepAlive(false), new PoolOptions().setHttp1MaxSize(ONE_SHOT_POOL_SIZE), false);
    }
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
      new ProxyUpgrade(this, ctx, user, gvr, targets, refresh, vertx.getOrCreateContext()).next(null);
      return;
    }
    long start = System.nanoTime();
    long own = io.mvproxy.api.RequestScope.of(ctx).deadlineMillis();
    new ProxyAttempts(this, ctx, user, gvr, streaming, targets, refresh, start, own,
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

  static MultiMap headers(HttpServerRequest in, UserInfo user, PeerTarget t) {
    MultiMap h = ProxyHop.requestHeaders(in, user, t.host() + ":" + t.port());
    h.set(PEER_PROXIED, "true");
    return h;
  }

  static void fail(RoutingContext ctx, StatusException e) {
    e.respond(ctx);
  }
}
