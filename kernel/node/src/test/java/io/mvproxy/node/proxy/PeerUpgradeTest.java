package io.mvproxy.node.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Upgrade requests through {@link PeerProxy} over real mutual TLS to fake peers: a WebSocket echo (the peer sees the
 * caller's identity, the peer-proxy marker and HTTP/1.1 even when the hop offers h2), failover past an unreachable
 * peer and one that no longer serves the resource, an error answer relayed, a SPDY-style {@code POST} upgrade with
 * bytes the peer sends right after its 101, and a tunnel closed when its peer leaves the fleet view.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("unit")
class PeerUpgradeTest {
  static final Gvr WIDGETS = new Gvr("demo.mvproxy.io", "v2", "widgets");
  static final String PATH = "/apis/demo.mvproxy.io/v2/namespaces/default/widgets";

  Vertx vertx;
  DevPki pki;
  final Map<String, PeerTarget> peers = new java.util.HashMap<>();
  final List<String> hits = new CopyOnWriteArrayList<>();
  final List<String> spdyHeads = new CopyOnWriteArrayList<>();
  volatile PeerProxy proxy;
  volatile List<String> decided = List.of();
  HttpServer front;
  /**
   * The tests' WebSocket client, held for the class: Vert.x closes a client that becomes unreachable (its cleaner),
   * which would cut a handshake in progress.
   */
  io.vertx.core.http.WebSocketClient wsClient;

  @BeforeAll
  void start() throws Exception {
    vertx = Vertx.vertx();
    Path dir = Files.createTempDirectory("mvproxy-peer-upgrade-test");
    pki = new DevPki(dir);
    pki.generate(List.of("node-a", "node-b", "node-c", "node-s"), List.of(), Map.of());
    for (String peer : List.of("node-b", "node-c")) {
      HttpServer s = vertx.createHttpServer(new HttpServerOptions().setSsl(true).setUseAlpn(true)
          .setHost("127.0.0.1").setKeyCertOptions(keyCert(peer)));
      s.requestHandler(req -> {
        hits.add(peer + " " + req.version() + " " + req.getHeader("X-Remote-User") + " proxied="
            + req.getHeader(PeerProxy.PEER_PROXIED));
        if (peer.equals("node-b") && req.path().endsWith("/notserved")) {
          req.response().setStatusCode(503).putHeader(PeerProxy.NOT_SERVED_HERE, "true").end("{}");
        } else if (req.path().endsWith("/forbidden")) {
          req.response().setStatusCode(403).putHeader("Content-Type", "application/json")
              .end("{\"kind\":\"Status\",\"code\":403,\"message\":\"watch is forbidden\"}");
        } else {
          req.toWebSocket().onSuccess(ws -> {
            ws.writeTextMessage("hello from " + peer + " to " + req.getHeader("X-Remote-User"));
            ws.textMessageHandler(t -> ws.writeTextMessage("echo:" + t));
          });
        }
      });
      s.listen(0).await(10, TimeUnit.SECONDS);
      peers.put(peer, new PeerTarget(peer, "127.0.0.1", s.actualPort()));
    }
    // a SPDY-style peer (client-go's remotecommand upgrades a POST): raw bytes after its 101, then an echo
    NetServer spdy = vertx.createNetServer(new NetServerOptions().setSsl(true).setHost("127.0.0.1")
        .setKeyCertOptions(keyCert("node-s")));
    spdy.connectHandler(so -> {
      Buffer head = Buffer.buffer();
      boolean[] upgraded = {false};
      so.handler(b -> {
        if (upgraded[0]) {
          so.write(b);
          return;
        }
        head.appendBuffer(b);
        String h = head.toString(StandardCharsets.ISO_8859_1);
        if (h.contains("\r\n\r\n")) {
          upgraded[0] = true;
          spdyHeads.add(h);
          so.write("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n"
              + "X-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\nEARLY");
        }
      });
    });
    spdy.listen(0).await(10, TimeUnit.SECONDS);
    peers.put("node-s", new PeerTarget("node-s", "127.0.0.1", spdy.actualPort()));
    peers.put("node-d", new PeerTarget("node-d", "127.0.0.1", PeerProxyTest.freePort()));
    Router router = Router.router(vertx);
    BodyHandler body = BodyHandler.create(false);
    router.route().handler(ctx -> {
      if (ctx.request().method() == io.vertx.core.http.HttpMethod.POST) {
        body.handle(ctx);  // as the ingress reads the body of methods that carry one
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
    wsClient = vertx.createWebSocketClient();
    front = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
  }

  private PemKeyCertOptions keyCert(String node) {
    return new PemKeyCertOptions().setCertPath(pki.servingCert(node).toString())
        .setKeyPath(pki.servingKey(node).toString());
  }

  @AfterAll
  void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  /** A proxy over a view in which every peer is a live member serving widgets v2. */
  void proxy(boolean h2) {
    io.vertx.core.http.HttpClientOptions o = TlsOptions.peerClient(pki.caCert().toString(),
        pki.proxyClientCert("node-a").toString(), pki.proxyClientKey("node-a").toString());
    Map<String, RoutingSnapshot.PeerEntry> entries = new java.util.HashMap<>();
    Map<String, io.mvproxy.node.membership.PeerInfo> members = new java.util.HashMap<>();
    peers.values().forEach(p -> {
      entries.put(p.serverId(), new RoutingSnapshot.PeerEntry(p, new Capabilities(Map.of(WIDGETS, Set.of())), true));
      members.put(p.serverId(), new io.mvproxy.node.membership.PeerInfo(p.serverId(), p.host(), p.port(),
          p.serverId(), "", "test", List.of()));
    });
    RoutingSnapshot rs = new RoutingSnapshot(Map.of(), Capabilities.NONE, entries, Map.of(), true, Map.of(),
        List.of());
    proxy = PeerProxy.create(vertx, h2 ? TlsOptions.offerHttp2(o) : o, new NodeMetrics(), new FleetViewRef(
        new FleetView(rs, DiscoveryDocuments.empty("node-a", "127.0.0.1:6443"), OpenApiDocuments.empty(), members)));
  }

  WebSocketConnectOptions ws(String uri) {
    return new WebSocketConnectOptions().setHost("127.0.0.1").setPort(front.actualPort()).setURI(uri);
  }

  @ParameterizedTest(name = "peer hop h2={0}")
  @ValueSource(booleans = {false, true})
  void aWebSocketWatchIsTunnelledToTheFirstReachablePeer(boolean h2) throws Exception {
    proxy(h2);
    hits.clear();
    decided = List.of("node-d", "node-b");
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    // the handler is set on the connection\'s context as it opens: no message arrives before it
    WebSocket socket = wsClient.connect(ws(PATH + "?watch=true"))
        .onSuccess(w -> w.textMessageHandler(got::add)).await(30, TimeUnit.SECONDS);
    assertEquals("hello from node-b to alice", got.poll(30, TimeUnit.SECONDS));
    socket.writeTextMessage("ping");
    assertEquals("echo:ping", got.poll(30, TimeUnit.SECONDS));
    assertEquals(List.of("node-b HTTP_1_1 alice proxied=true"), hits, "a dedicated HTTP/1.1 connection, even on h2");
    socket.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void aPeerThatNoLongerServesItHandsTheUpgradeToTheNext() throws Exception {
    proxy(false);
    hits.clear();
    decided = List.of("node-b", "node-c");
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    // the handler is set on the connection\'s context as it opens: no message arrives before it
    WebSocket socket = wsClient.connect(ws(PATH + "/notserved"))
        .onSuccess(w -> w.textMessageHandler(got::add)).await(30, TimeUnit.SECONDS);
    assertEquals("hello from node-c to alice", got.poll(30, TimeUnit.SECONDS));
    assertEquals(2, hits.size(), hits.toString());
    socket.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void anErrorAnswerOfThePeerIsRelayed() throws Exception {
    proxy(false);
    decided = List.of("node-b");
    Throwable e = wsClient.connect(ws(PATH + "/forbidden")).<Throwable>map(x -> null)
        .recover(Future::succeededFuture).await(30, TimeUnit.SECONDS);
    UpgradeRejectedException r = (UpgradeRejectedException) e;
    assertEquals(403, r.getStatus());
    assertTrue(r.getBody().toString().contains("watch is forbidden"), r.getBody().toString());
  }

  @Test
  void noPeerReachable503() throws Exception {
    proxy(false);
    decided = List.of("node-d");
    UpgradeRejectedException r = (UpgradeRejectedException) wsClient.connect(ws(PATH))
        .<Throwable>map(x -> null).recover(Future::succeededFuture).await(30, TimeUnit.SECONDS);
    assertEquals(503, r.getStatus());
    assertTrue(r.getBody().toString().contains("error dialing backend"), r.getBody().toString());
  }

  @Test
  void aSpdyPostUpgradeIsTunnelledWithTheBytesThatFollowTheHead() throws Exception {
    proxy(true);
    decided = List.of("node-s");
    try (Socket s = new Socket("127.0.0.1", front.actualPort())) {
      s.setSoTimeout(30_000);
      OutputStream out = s.getOutputStream();
      out.write(("POST /api/v1/namespaces/default/pods/p/exec?command=sh&stdin=true HTTP/1.1\r\n"
          + "Host: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n"
          + "X-Stream-Protocol-Version: v4.channel.k8s.io\r\nContent-Length: 0\r\n\r\n")
          .getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      InputStream in = s.getInputStream();
      String head = readUntil(in, "\r\n\r\n");
      assertTrue(head.startsWith("HTTP/1.1 101"), head);
      assertTrue(head.toLowerCase().contains("x-stream-protocol-version: v4.channel.k8s.io"), head);
      assertTrue(head.toLowerCase().contains("upgrade: spdy/3.1"), head);
      assertEquals("EARLY", readUntil(in, "EARLY"));
      out.write("spdy-frame".getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      assertEquals("spdy-frame", readUntil(in, "spdy-frame"));
    }
    String peerHead = spdyHeads.get(spdyHeads.size() - 1);
    assertTrue(peerHead.startsWith("POST /api/v1/namespaces/default/pods/p/exec?command=sh&stdin=true HTTP/1.1"),
        peerHead);
    String lower = peerHead.toLowerCase();
    assertTrue(lower.contains("x-remote-user: alice") && lower.contains("x-kubernetes-peer-proxied: true")
        && lower.contains("connection: upgrade") && lower.contains("upgrade: spdy/3.1"), peerHead);
  }

  @Test
  void aTunnelIsClosedWhenItsPeerLeavesTheFleet() throws Exception {
    proxy(false);
    decided = List.of("node-b");
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    CompletableFuture<Void> closed = new CompletableFuture<>();
    WebSocket socket = wsClient.connect(ws(PATH + "?watch=true")).onSuccess(w -> {
      w.closeHandler(v -> closed.complete(null));
      w.textMessageHandler(got::add);
    }).await(30, TimeUnit.SECONDS);
    assertEquals("hello from node-b to alice", got.poll(30, TimeUnit.SECONDS));
    assertEquals(1, proxy.streams().count("node-b"));
    proxy.streams().retainLive(Set.of("node-c"));
    closed.get(30, TimeUnit.SECONDS);
  }

  /** Reads until {@code end} was read; returns what was read. */
  static String readUntil(InputStream in, String end) throws Exception {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    while (!b.toString(StandardCharsets.ISO_8859_1).endsWith(end)) {
      int c = in.read();
      if (c < 0) {
        throw new java.io.EOFException("closed after " + b.toString(StandardCharsets.ISO_8859_1));
      }
      b.write(c);
    }
    return b.toString(StandardCharsets.ISO_8859_1);
  }
}
