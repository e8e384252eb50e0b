package io.mvproxy.node.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.Gvr;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.UserInfo;
import io.mvproxy.discovery.DiscoveryDocuments;
import io.mvproxy.node.fleet.FleetView;
import io.mvproxy.node.fleet.FleetViewRef;
import io.mvproxy.node.metrics.NodeMetrics;
import io.mvproxy.node.routing.Capabilities;
import io.mvproxy.node.routing.PeerTarget;
import io.mvproxy.node.routing.RoutingSnapshot;
import io.mvproxy.openapi.OpenApiDocuments;
import io.mvproxy.security.DevPki;
import io.mvproxy.security.TlsOptions;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link PeerProxy} over real mutual TLS to two fake peers, table-driven: which peers a request reaches and what
 * the client gets when a peer answers {@link PeerProxy#NOT_SERVED_HERE} (it withdrew the resource after this node's
 * view was built: the next peer is tried whatever the method, then the current view's untried peers; never a 404),
 * an ordinary 503 (relayed, not retried) or cannot be connected to (next peer).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("unit")
class PeerProxyTest {
  static final Gvr GADGETS = new Gvr("demo.mvproxy.io", "v1", "gadgets");
  static final String PATH = "/apis/demo.mvproxy.io/v1/gadgets";

  /** How a fake peer answers. */
  enum Answer {
    OK, NOT_SERVED_HERE, UNAVAILABLE,
    /** after {@link #SLOW_MS} */
    SLOW,
    /** after {@link #SILENT_MS}: longer than the 15 s a proxied request's peer could stay silent before */
    SILENT,
    /** never (a frozen peer) */
    HANG,
    /** 503 "storage is unavailable" after {@link #SLOW_MS} (a node whose storage closed as it shut down) */
    SLOW_UNAVAILABLE,
    /** 201 with {@link #BIG_WARNINGS} Warning headers of 1,200 bytes each (a write whose webhooks warned a lot) */
    BIG_HEADERS
  }

  /** How many 1,200-byte warnings a BIG_HEADERS peer sends (18 KiB of headers: past Vert.x's 8 KiB default). */
  static final int BIG_WARNINGS = 15;

  /** How long a SLOW peer takes to answer, ms. */
  static final long SLOW_MS = 3_000;
  /** How long a SILENT peer takes to answer, ms. */
  static final long SILENT_MS = 16_000;

  Vertx vertx;
  DevPki pki;
  final Map<String, Answer> answers = new java.util.concurrent.ConcurrentHashMap<>();
  final List<String> hits = new CopyOnWriteArrayList<>();
  /** Watch requests the fake peers answered with a head (and hold open). */
  final java.util.concurrent.atomic.AtomicInteger watchHeads = new java.util.concurrent.atomic.AtomicInteger();
  final Map<String, PeerTarget> peers = new java.util.HashMap<>();
  /** The proxy of the current case, over a view built for it (only the discovery verticle swaps a live view). */
  volatile PeerProxy proxy;
  HttpServer front;
  HttpClient client;
  /** Targets handed to the proxy by the "decision" (the view's own peers are in {@link #view}). */
  volatile List<String> decided = List.of();
  /** The request's own deadline from now, ms ({@code --request-timeout}); 0: none. */
  volatile long deadlineMs;
  /** How long after a peer got the request the fleet view drops it, ms; 0: never. */
  volatile long departMs;
  /** The dropped peer is listed as leaving gracefully (record withdrawn, member connected) rather than departed. */
  volatile boolean departGracefully;
  /** The view of the current case's proxy. */
  volatile FleetViewRef viewRef;

  @BeforeAll
  void start() throws Exception {
    vertx = Vertx.vertx();
    Path dir = Files.createTempDirectory("mvproxy-peer-proxy-test");
    pki = new DevPki(dir);
    pki.generate(List.of("node-a", "node-b", "node-c"), List.of(), Map.of());
    for (String peer : List.of("node-b", "node-c")) {
      HttpServer s = vertx.createHttpServer(new HttpServerOptions().setSsl(true).setUseAlpn(true).setHost("127.0.0.1")
          .setKeyCertOptions(new PemKeyCertOptions().setCertPath(pki.servingCert(peer).toString())
              .setKeyPath(pki.servingKey(peer).toString())));
      s.requestHandler(req -> req.body().onComplete(b -> {
        if ("true".equals(req.getParam("watch"))) { // a watch: its head, then the stream stays open
          watchHeads.incrementAndGet();
          req.response().setChunked(true).writeHead();
          return;
        }
        hits.add(peer + " " + req.method() + " " + req.version() + " proxied=" + req.getHeader(PeerProxy.PEER_PROXIED));
        Answer a = answers.getOrDefault(peer, Answer.OK);
        if (departMs > 0) {
          // the fleet view stops listing this peer as live (or lists it as leaving), through PeerProxy's listener
          FleetViewRef ref = viewRef;
          boolean graceful = departGracefully;
          vertx.setTimer(departMs, t -> io.mvproxy.node.fleet.TestViews.swap(ref, departed(ref.get(), peer, graceful)));
        }
        if (a == Answer.SLOW || a == Answer.SILENT) {
          vertx.setTimer(a == Answer.SLOW ? SLOW_MS : SILENT_MS, t -> {
            if (!req.response().closed()) {
              req.response().end("{\"from\":\"" + peer + "\"}");
            }
          });
          return;
        }
        if (a == Answer.HANG) {
          return;
        }
        if (a == Answer.SLOW_UNAVAILABLE) {
          vertx.setTimer(SLOW_MS, t -> req.response().setStatusCode(503).putHeader("Retry-After", "1")
              .end("{\"kind\":\"Status\",\"code\":503,\"message\":\"storage is unavailable\"}"));
          return;
        }
        switch (a) {
          case OK -> req.response().setStatusCode(req.method() == HttpMethod.POST ? 201 : 200)
              .end("{\"from\":\"" + peer + "\"}");
          case NOT_SERVED_HERE -> req.response().setStatusCode(503).putHeader(PeerProxy.NOT_SERVED_HERE, "true")
              .putHeader("Retry-After", "1").end("{\"kind\":\"Status\",\"code\":503}");
          case BIG_HEADERS -> {
            for (int i = 0; i < BIG_WARNINGS; i++) {
              req.response().headers().add("Warning", "299 - \"" + i + "-" + "w".repeat(1180) + "\"");
            }
            req.response().setStatusCode(201).end("{\"from\":\"" + peer + "\"}");
          }
          case SLOW, SILENT, HANG, SLOW_UNAVAILABLE -> throw new IllegalStateException("answered by the timer, or never");
          case UNAVAILABLE -> req.response().setStatusCode(503).putHeader("Retry-After", "1")
              .end("{\"kind\":\"Status\",\"code\":503,\"message\":\"storage is unavailable\"}");
        }
      }));
      s.listen(0).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      peers.put(peer, new PeerTarget(peer, "127.0.0.1", s.actualPort()));
    }
    // a peer that is listed but cannot be connected to
    peers.put("node-d", new PeerTarget("node-d", "127.0.0.1", freePort()));
    Router router = Router.router(vertx);
    router.route().handler(BodyHandler.create());
    // the ingress's own deadline handler (--request-timeout), as in the node's chain
    router.route().handler(ctx -> {
      if (deadlineMs > 0) {
        new io.mvproxy.node.ingress.RequestDeadline(java.time.Duration.ofMillis(deadlineMs)).handle(ctx);
      } else {
        ctx.next();
      }
    });
    router.route().handler(ctx -> {
      RequestInfo info = RequestInfo.parse(ctx.request().method().name(), ctx.request().path(),
          ctx.request().getParam("watch"));
      proxy.forwardResource(ctx, new UserInfo("alice", "", List.of("system:authenticated"), Map.of()), info,
          decided.stream().map(peers::get).toList());
    });
    front = vertx.createHttpServer().requestHandler(router);
    front.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    client = vertx.createHttpClient();
  }

  @AfterAll
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** @return a port nothing listens on, below the ephemeral range so no outgoing connection takes it meanwhile */
  static int freePort() throws Exception {
    return io.mvproxy.testkit.TestPorts.belowEphemeral();
  }

  /** A view whose live peers serving gadgets are {@code capable}. */
  FleetView viewOf(List<String> capable) {
    Map<String, RoutingSnapshot.PeerEntry> entries = new java.util.HashMap<>();
    for (String id : capable) {
      entries.put(id, new RoutingSnapshot.PeerEntry(peers.get(id), new Capabilities(Map.of(GADGETS, Set.of())),
          true));
    }
    RoutingSnapshot rs = new RoutingSnapshot(Map.of(), Capabilities.NONE, entries, Map.of(), true, Map.of(),
        List.of());
    // every peer is a live member (node-d too: listed, but nothing listens on its port)
    Map<String, io.mvproxy.node.membership.PeerInfo> members = new java.util.HashMap<>();
    peers.values().forEach(p -> members.put(p.serverId(), new io.mvproxy.node.membership.PeerInfo(p.serverId(),
        p.host(), p.port(), p.serverId(), "", "test", List.of())));
    return new FleetView(rs, DiscoveryDocuments.empty("node-a", "127.0.0.1:6443"), OpenApiDocuments.empty(),
        members);
  }

  /**
   * @param v        a view
   * @param peer     a peer of it
   * @param graceful true: the peer is listed as leaving (its record withdrawn while its member drains), else it is
   *                 simply no longer a member (departed: killed, frozen)
   * @return the view without the peer as a live member
   */
  static FleetView departed(FleetView v, String peer, boolean graceful) {
    Map<String, io.mvproxy.node.membership.PeerInfo> members = new java.util.HashMap<>(v.members());
    members.remove(peer);
    return new FleetView(v.routing(), v.discovery(), v.openapi(), members, graceful ? Set.of(peer) : Set.of());
  }

  /**
   * @param name     the case
   * @param method   GET or POST
   * @param decided  targets the decision handed over, in order
   * @param inView   live capable peers of the view at the time the targets ran out
   * @param behave   how node-b and node-c answer
   * @param status   what the client gets
   * @param reached  which peers saw the request, in order
   * @param deadlineMs the request's deadline from now (its --request-timeout), 0 for none
   * @param departMs   when (ms after it got the request) the fleet view stops listing the peer as live, 0 for
   *                   never
   * @param graceful   the peer is then listed as leaving gracefully (draining), not departed
   */
  record Case(String name, HttpMethod method, List<String> decided, List<String> inView,
              Map<String, Answer> behave, int status, List<String> reached, long deadlineMs, long departMs,
              boolean graceful) {
    Case(String name, HttpMethod method, List<String> decided, List<String> inView, Map<String, Answer> behave,
         int status, List<String> reached, long deadlineMs, long departMs) {
      this(name, method, decided, inView, behave, status, reached, deadlineMs, departMs, false);
    }

    Case(String name, HttpMethod method, List<String> decided, List<String> inView, Map<String, Answer> behave,
         int status, List<String> reached) {
      this(name, method, decided, inView, behave, status, reached, 0, 0);
    }

    Case(String name, HttpMethod method, List<String> decided, List<String> inView, Map<String, Answer> behave,
         int status, List<String> reached, long deadlineMs) {
      this(name, method, decided, inView, behave, status, reached, deadlineMs, 0);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Arguments> cases() {
    Function<Case, Arguments> a = Arguments::of;
    Map<String, Answer> bGone = Map.of("node-b", Answer.NOT_SERVED_HERE, "node-c", Answer.OK);
    return Stream.of(
        new Case("served by the first peer", HttpMethod.GET, List.of("node-b", "node-c"), List.of(),
            Map.of(), 200, List.of("node-b")),
        new Case("GET refused by a peer that withdrew it: next peer", HttpMethod.GET, List.of("node-b", "node-c"),
            List.of(), bGone, 200, List.of("node-b", "node-c")),
        new Case("POST refused unprocessed: next peer too (nothing was done)", HttpMethod.POST,
            List.of("node-b", "node-c"), List.of(), bGone, 201, List.of("node-b", "node-c")),
        new Case("every target refused, the view knows another capable peer: it is tried", HttpMethod.GET,
            List.of("node-b"), List.of("node-b", "node-c"), bGone, 200, List.of("node-b", "node-c")),
        new Case("every peer refused: 503, never 404", HttpMethod.GET, List.of("node-b", "node-c"),
            List.of("node-b", "node-c"), Map.of("node-b", Answer.NOT_SERVED_HERE, "node-c", Answer.NOT_SERVED_HERE),
            503, List.of("node-b", "node-c")),
        new Case("an ordinary 503 of the peer is its answer: relayed, not retried", HttpMethod.GET,
            List.of("node-b", "node-c"), List.of(), Map.of("node-b", Answer.UNAVAILABLE), 503, List.of("node-b")),
        new Case("a peer that cannot be connected to is skipped", HttpMethod.POST, List.of("node-d", "node-c"),
            List.of(), Map.of(), 201, List.of("node-c")),
        new Case("a slow peer within the request's deadline: answered", HttpMethod.GET, List.of("node-b"), List.of(),
            Map.of("node-b", Answer.SLOW), 200, List.of("node-b"), 10_000),
        new Case("past the request's own deadline (--request-timeout): 504 Timeout, as a local request", HttpMethod.GET,
            List.of("node-b"), List.of(), Map.of("node-b", Answer.SLOW), 504, List.of("node-b"), 1_000),
        new Case("a peer silent for 16 s within a 30 s --request-timeout: answered (no 15 s idle cut)", HttpMethod.POST,
            List.of("node-b", "node-c"), List.of(), Map.of("node-b", Answer.SILENT), 200, List.of("node-b"), 30_000),
        new Case("a GET's peer leaves the fleet view while it waits: retried on the next peer", HttpMethod.GET,
            List.of("node-b", "node-c"), List.of(), Map.of("node-b", Answer.HANG), 200,
            List.of("node-b", "node-c"), 30_000, 500),
        new Case("a POST's peer leaves the fleet view while it waits: 503, never sent twice", HttpMethod.POST,
            List.of("node-b", "node-c"), List.of(), Map.of("node-b", Answer.HANG), 503, List.of("node-b"), 30_000,
            500),
        new Case("a POST's peer leaves gracefully while it works (record withdrawn, draining): its answer relayed",
            HttpMethod.POST, List.of("node-b", "node-c"), List.of(), Map.of("node-b", Answer.SLOW), 200,
            List.of("node-b"), 30_000, 200, true),
        new Case("a GET's peer leaving gracefully answers 503 (its storage closing): retried on the next peer",
            HttpMethod.GET, List.of("node-b", "node-c"), List.of(), Map.of("node-b", Answer.SLOW_UNAVAILABLE), 200,
            List.of("node-b", "node-c"), 30_000, 200, true),
        new Case("a GET's only peer leaves, the view knows another capable one: tried there", HttpMethod.GET,
            List.of("node-b"), List.of("node-b", "node-c"), Map.of("node-b", Answer.HANG), 200,
            List.of("node-b", "node-c"), 30_000, 500)
    ).map(a);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void routesAroundPeersThatNoLongerServe(Case c) throws Exception {
    run(c, false);
  }

  /** The same cases on the h2 peer hop ({@code --peer-http2}): every attempt reached its peer over HTTP/2. */
  @ParameterizedTest(name = "h2: {0}")
  @MethodSource("cases")
  void routesAroundPeersThatNoLongerServeOverH2(Case c) throws Exception {
    run(c, true);
  }

  void run(Case c, boolean h2) throws Exception {
    answers.clear();
    answers.putAll(c.behave());
    hits.clear();
    decided = c.decided();
    deadlineMs = c.deadlineMs();
    io.vertx.core.http.HttpClientOptions peerOptions = TlsOptions.peerClient(pki.caCert().toString(),
        pki.proxyClientCert("node-a").toString(), pki.proxyClientKey("node-a").toString());
    viewRef = new FleetViewRef(viewOf(c.inView()));
    proxy = PeerProxy.create(vertx, h2 ? TlsOptions.offerHttp2(peerOptions) : peerOptions, new NodeMetrics(),
        viewRef);
    departGracefully = c.graceful();
    departMs = c.departMs();
    // the body is read in the send future's own callback, on the response's context, before it can arrive unread
    // (chained further out, from this thread, it may run after a short answer ended: body() then never completes)
    java.util.Map.Entry<HttpClientResponse, String> got = client.request(new RequestOptions().setHost("127.0.0.1")
            .setPort(front.actualPort()).setMethod(c.method()).setURI(PATH))
        .compose(r -> r.send(c.method() == HttpMethod.POST ? "{\"kind\":\"Gadget\"}" : "")
            .compose(x -> x.body().map(b -> java.util.Map.entry(x, b.toString()))))
        .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    HttpClientResponse resp = got.getKey();
    String body = got.getValue();
    assertEquals(c.status(), resp.statusCode(), c.name() + ": " + body);
    assertEquals(c.reached(), hits.stream().map(h -> h.split(" ")[0]).toList(), c.name());
    assertTrue(hits.stream().allMatch(h -> h.endsWith("proxied=true")), hits.toString());
    String version = h2 ? "HTTP_2" : "HTTP_1_1";
    assertTrue(hits.stream().allMatch(h -> h.contains(" " + version + " ")), version + ": " + hits);
    assertNull(resp.getHeader(PeerProxy.NOT_SERVED_HERE), "the marker is between peers only");
    if (resp.statusCode() == 503) {
      assertNotNull(resp.getHeader("Retry-After"), body);
    }
    if (resp.statusCode() == 504) {
      assertTrue(body.contains("\"reason\":\"Timeout\"") && body.contains(
          io.mvproxy.node.ingress.RequestDeadline.MESSAGE), body);
    }
  }

  /**
   * The hop's deadline and the time-outs of one attempt, as data.
   *
   * @param name        the case
   * @param own         the request's own deadline from now, ms (0: none)
   * @param left        ms left when the attempt starts
   * @param streaming   long-running
   * @param hopFromNow  expected hop deadline from now, ms
   * @param connect     expected per-attempt connect time-out (0: the client's 5 s)
   * @param idle        expected per-attempt silence limit (0: none, the request's deadline decides)
   * @param head        expected head limit (0: none)
   */
  record Limits(String name, long own, long left, boolean streaming, long hopFromNow, long connect, long idle,
                long head) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Limits> limits() {
    return Stream.of(
        new Limits("--request-timeout=2m: the hop has 2 min, no silence limit", 120_000, 120_000, false, 120_000, 0,
            0, 0),
        new Limits("default 1m, 100 ms left: connect within them", 60_000, 100, false, 60_000, 100, 0, 0),
        new Limits("?timeout=3s: 3 s", 3_000, 3_000, false, 3_000, 3_000, 0, 0),
        new Limits("a watch: no deadline of its own, 60 s budget, head within 15 s", 0, 60_000, true, 60_000, 0, 0,
            15_000),
        new Limits("a watch with 2 s of the budget left: head within them", 0, 2_000, true, 60_000, 2_000, 0, 2_000),
        new Limits("a short request that skipped the ingress's deadline: silence limit = budget", 0, 60_000, false,
            60_000, 0, 60_000, 0));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("limits")
  void deadlineOfTheHopFollowsTheRequest(Limits c) {
    long now = 1_000_000;
    assertEquals(now + c.hopFromNow(), PeerProxy.hopDeadline(c.own() == 0 ? 0 : now + c.own(), now), c.name());
    PeerProxy.AttemptTimeouts t = PeerProxy.attemptTimeouts(c.left(), c.own() > 0, c.streaming());
    assertEquals(new PeerProxy.AttemptTimeouts(c.connect(), c.idle(), c.head()), t, c.name());
  }

  /**
   * Many requests at once through the h2 hop (as a load generator sends them): every one answered, none waits for
   * another (the multiplexed connections carry them all).
   */
  @org.junit.jupiter.params.ParameterizedTest(name = "h2={0}")
  @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
  void concurrentRequestsAllAnswered(boolean h2) throws Exception {
    answers.clear();
    hits.clear();
    proxyToNodeB(h2);
    HttpClient many = vertx.createHttpClient(new io.vertx.core.http.PoolOptions().setHttp1MaxSize(32));
    int n = 2_000;
    java.util.concurrent.atomic.AtomicInteger ok = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(n);
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      many.request(new RequestOptions().setHost("127.0.0.1").setPort(front.actualPort()).setURI(PATH))
          .compose(r -> r.send().compose(x -> x.body().map(b -> x.statusCode())))
          .onComplete(ar -> {
            if (ar.succeeded() && ar.result() == 200) {
              ok.incrementAndGet();
            }
            done.countDown();
          });
    }
    assertTrue(done.await(60, TimeUnit.SECONDS), "answered " + (n - done.getCount()) + " of " + n);
    System.out.printf("FIGURE %d proxied GETs, 32 at a time, h2=%b: %d ms%n", n, h2,
        (System.nanoTime() - t0) / 1_000_000);
    assertEquals(n, ok.get());
    many.close();
  }

  /** Makes {@link #proxy} a proxy whose decision and view name node-b only, over HTTP/2 or HTTP/1.1, no deadline. */
  void proxyToNodeB(boolean h2) {
    decided = List.of("node-b");
    deadlineMs = 0;
    io.vertx.core.http.HttpClientOptions peerOptions = TlsOptions.peerClient(pki.caCert().toString(),
        pki.proxyClientCert("node-a").toString(), pki.proxyClientKey("node-a").toString());
    proxy = PeerProxy.create(vertx, h2 ? TlsOptions.offerHttp2(peerOptions) : peerOptions, new NodeMetrics(),
        new FleetViewRef(viewOf(List.of("node-b"))));
  }

  /**
   * A peer's answer with 18 KiB of headers (fifteen long warnings: kube's recorder allows 4,096 runes of warning text,
   * up to 16 KiB once UTF-8 encoded, and escaping adds more) is relayed whole, over HTTP/1.1 and HTTP/2 hops; with
   * Vert.x's 8 KiB default the hop answered 503 for a write the peer had stored.
   */
  @org.junit.jupiter.params.ParameterizedTest(name = "h2={0}")
  @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
  void largeResponseHeadsAreRelayed(boolean h2) throws Exception {
    answers.clear();
    hits.clear();
    answers.put("node-b", Answer.BIG_HEADERS);
    proxyToNodeB(h2);
    HttpClient big = vertx.createHttpClient(new io.vertx.core.http.HttpClientOptions().setMaxHeaderSize(1 << 20));
    try {
      io.vertx.core.http.HttpClientResponse r = big.request(new RequestOptions().setMethod(HttpMethod.POST)
              .setHost("127.0.0.1").setPort(front.actualPort()).setURI(PATH))
          .compose(req -> req.send("{}").compose(x -> x.body().map(b -> x)))
          .toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
      assertEquals(201, r.statusCode());
      assertEquals(BIG_WARNINGS, r.headers().getAll("Warning").size());
      assertEquals(List.of("node-b POST " + (h2 ? "HTTP_2" : "HTTP_1_1") + " proxied=true"), List.copyOf(hits));
    } finally {
      answers.clear();
      big.close();
    }
  }

  /**
   * Watches opened at once through the hop, more than the short pool's wait queue ({@link TlsOptions#PEER_WAIT_QUEUE})
   * beyond the connections the long-running pool opens for the first of them: every one gets its 200 head (they wait
   * for the pool as Go's transport would let them), none a 503 "pool reached max wait queue size". On the h2 hop,
   * where the first hundred watches each open a connection and the rest wait for their streams.
   */
  @org.junit.jupiter.api.Test
  void burstOfWatchesAllGetTheirHeadOverH2() throws Exception {
    answers.clear();
    hits.clear();
    proxyToNodeB(true);
    int n = TlsOptions.PEER_WAIT_QUEUE + PeerProxy.LONG_RUNNING_H2_CONNECTIONS + 1000;
    HttpClient many = vertx.createHttpClient(new io.vertx.core.http.PoolOptions().setHttp1MaxSize(n + 10));
    int before = watchHeads.get();
    java.util.concurrent.atomic.AtomicInteger ok = new java.util.concurrent.atomic.AtomicInteger();
    List<String> failed = new CopyOnWriteArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        many.request(new RequestOptions().setHost("127.0.0.1").setPort(front.actualPort())
                .setURI(PATH + "?watch=true"))
            .compose(r -> r.send()).onComplete(ar -> {
              if (ar.succeeded() && ar.result().statusCode() == 200) {
                ok.incrementAndGet();
              } else if (ar.succeeded()) {
                failed.add(String.valueOf(ar.result().statusCode()));
                ar.result().body().onSuccess(b -> failed.add(b.toString()));
              } else {
                failed.add(String.valueOf(ar.cause()));
              }
            });
      }
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(120))
          .pollInterval(java.time.Duration.ofMillis(50))
          .until(() -> ok.get() + failed.size() >= n || !failed.isEmpty());
      assertEquals(List.of(), failed.stream().limit(4).toList(), ok.get() + " of " + n + " watches got their head");
      assertEquals(n, ok.get());
      assertEquals(n, watchHeads.get() - before, "watches the peer answered");
    } finally {
      many.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      proxy.client.close();
      proxy.longRunning.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }
}
