package io.mvproxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.UserInfo;
import io.vertx.core.MultiMap;
import io.vertx.core.json.JsonArray;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.RequestOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link ProxyHop#relay} over real HTTP (a next hop, a relaying hop, a client): the next hop's headers replace the
 * relaying hop's headers of the same name instead of being appended to them, keep all their values, and leave the
 * relaying hop's other headers alone; hop-by-hop headers are not copied. The header mapping of both directions
 * ({@link ProxyHop#requestHeaders}, {@link ProxyHop#copyHeaders}) as tables.
 */
@Tag("unit")
class ProxyHopTest {
  Vertx vertx;
  HttpServer next;
  HttpServer relay;
  HttpClient client;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    next = await(vertx.createHttpServer().requestHandler(req -> {
      req.response().putHeader("Content-Type", "application/json").putHeader("Audit-Id", "id-1")
          .putHeader("Cache-Control", "no-cache, private").putHeader("Keep-Alive", "timeout=5");
      req.response().headers().add("Warning", "299 - \"first\"").add("Warning", "299 - \"second\"");
      req.response().end("{}");
    }).listen(0, "127.0.0.1"));
    client = vertx.createHttpClient();
    relay = await(vertx.createHttpServer().requestHandler(req -> {
      req.response().putHeader("Audit-Id", "id-1").putHeader("Content-Type", "text/plain")
          .putHeader("X-Local", "kept");
      client.request(new RequestOptions().setPort(next.actualPort()).setHost("127.0.0.1").setURI("/"))
          .compose(r -> r.send()).onSuccess(resp -> ProxyHop.relay(resp, req.response()));
    }).listen(0, "127.0.0.1"));
  }

  @AfterEach
  void stop() throws Exception {
    await(vertx.close());
  }

  @Test
  void nextHopHeadersReplaceThisHopsOnes() throws Exception {
    HttpClientResponse[] resp = new HttpClientResponse[1];
    String body = await(client.request(HttpMethod.GET, relay.actualPort(), "127.0.0.1", "/")
        .compose(req -> req.send().compose(x -> {
          resp[0] = x;
          return x.body();
        }))).toString();
    HttpClientResponse r = resp[0];
    assertEquals("{}", body);
    assertEquals(List.of("id-1"), r.headers().getAll("Audit-Id"));
    assertEquals(List.of("application/json"), r.headers().getAll("Content-Type"));
    assertEquals(List.of("no-cache, private"), r.headers().getAll("Cache-Control"));
    assertEquals(List.of("299 - \"first\"", "299 - \"second\""), r.headers().getAll("Warning"));
    assertEquals(List.of("kept"), r.headers().getAll("X-Local"));
    assertEquals(List.of(), r.headers().getAll("Keep-Alive"));
    assertEquals(List.of("2"), r.headers().getAll("Content-Length"));
  }

  @Test
  void everyValueOfARepeatedHeaderIsKept() {
    io.vertx.core.MultiMap from = io.vertx.core.MultiMap.caseInsensitiveMultiMap()
        .add("warning", "299 - \"a\"").add("Warning", "299 - \"b\"").add("Connection", "close");
    io.vertx.core.MultiMap to = io.vertx.core.MultiMap.caseInsensitiveMultiMap()
        .add("Warning", "299 - \"local\"").add("Audit-Id", "x");
    ProxyHop.copyHeaders(from, to);
    assertEquals(List.of("299 - \"a\"", "299 - \"b\""), to.getAll("Warning"));
    assertEquals(List.of("x"), to.getAll("Audit-Id"));
    assertEquals(List.of(), to.getAll("Connection"));
  }

  /** What {@link ProxyHop#requestHeaders} does to one header the caller sent. */
  enum Fate { KEPT, DROPPED, REPLACED }

  @Test
  void requestHeaderMapping() throws Exception {
    // header the caller sends, value, fate on the outgoing request
    Object[][] table = {
        {"Accept", "application/json", Fate.KEPT},
        {"accept", "application/yaml", Fate.KEPT}, // a second value (another spelling): kept, in order
        {"User-Agent", "kubectl/v1.31", Fate.KEPT},
        {"Warning", "299 - \"a\"", Fate.KEPT},
        {"Warning", "299 - \"b\"", Fate.KEPT},
        // hop-by-hop (RFC 9110 7.6.1), any case
        {"Connection", "keep-alive, X-Hop", Fate.DROPPED},
        {"KEEP-ALIVE", "timeout=5", Fate.DROPPED},
        {"te", "trailers", Fate.DROPPED},
        {"Trailer", "X-T", Fate.DROPPED},
        {"Upgrade", "example/1", Fate.DROPPED}, // not h2c: the test server would take it as an HTTP/2 upgrade
        {"Proxy-Connection", "keep-alive", Fate.DROPPED},
        {"Proxy-Authenticate", "Basic", Fate.DROPPED},
        // a header merely named in Connection is not removed by the hop (as before; see HOP_BY_HOP)
        {"X-Hop", "1", Fate.KEPT},
        // credentials: the hop authenticates with its own certificate
        {"Authorization", "Bearer secret", Fate.DROPPED},
        {"proxy-authorization", "Basic eA==", Fate.DROPPED},
        // Impersonate-* is consumed by the ingress's impersonation step before a proxy; the hop itself keeps it
        {"Impersonate-User", "bob", Fate.KEPT},
        // peer-proxy marker: set by the peer proxy itself, never copied
        {"X-Kubernetes-Peer-Proxied", "true", Fate.DROPPED},
        // a caller's identity headers never pass: replaced by the authenticated user's
        {"X-Remote-User", "evil", Fate.REPLACED},
        {"x-remote-group", "system:masters", Fate.REPLACED},
        {"X-REMOTE-EXTRA-Foo", "x", Fate.REPLACED},
        {"X-Remote-Anything", "x", Fate.REPLACED},
        // X-Forwarded-*: For appended to, the others replaced
        {"X-Forwarded-For", "10.0.0.1", Fate.REPLACED},
        {"X-Forwarded-Proto", "gopher", Fate.REPLACED},
        {"X-Forwarded-Host", "elsewhere", Fate.REPLACED},
        {"X-Forwarded-Uri", "/other", Fate.REPLACED},
    };
    UserInfo user = new UserInfo("alice", "u-1", List.of("dev", "system:authenticated"),
        Map.of("scopes.example.com/team", List.of("blue", "green")));
    HttpServer hop = await(vertx.createHttpServer().requestHandler(req -> {
      JsonArray out = new JsonArray();
      ProxyHop.requestHeaders(req, user, "node-b:6443").forEach((k, v) -> out.add(new JsonArray().add(k).add(v)));
      req.response().end(out.encode());
    }).listen(0, "127.0.0.1"));
    String body = await(client.request(HttpMethod.GET, hop.actualPort(), "127.0.0.1", "/api/v1/pods?watch=1")
        .compose(req -> {
          for (Object[] row : table) {
            req.headers().add((String) row[0], (String) row[1]);
          }
          return req.send().compose(HttpClientResponse::body);
        })).toString();
    List<List<String>> got = new ArrayList<>();
    for (Object e : new JsonArray(body)) {
      JsonArray kv = (JsonArray) e;
      got.add(List.of(kv.getString(0), kv.getString(1)));
    }

    List<List<String>> want = new ArrayList<>();
    for (Object[] row : table) {
      if (row[2] == Fate.KEPT) {
        want.add(List.of((String) row[0], (String) row[1]));
      }
    }
    want.addAll(List.of(
        List.of("X-Remote-User", "alice"), List.of("X-Remote-Uid", "u-1"),
        List.of("X-Remote-Group", "dev"), List.of("X-Remote-Group", "system:authenticated"),
        List.of("X-Remote-Extra-scopes.example.com%2Fteam", "blue"),
        List.of("X-Remote-Extra-scopes.example.com%2Fteam", "green"),
        List.of("Host", "node-b:6443"),
        List.of("X-Forwarded-For", "10.0.0.1, 127.0.0.1"),
        List.of("X-Forwarded-Host", "127.0.0.1:" + hop.actualPort()),
        List.of("X-Forwarded-Proto", "http"),
        List.of("X-Forwarded-Uri", "/api/v1/pods?watch=1")));
    assertEquals(want, got);
  }

  @Test
  void requestWithoutForwardedForGetsTheCallersAddress() throws Exception {
    HttpServer hop = await(vertx.createHttpServer().requestHandler(req -> req.response()
        .end(ProxyHop.requestHeaders(req, new UserInfo("bob", "", List.of(), Map.of()), "b:1").get("X-Forwarded-For")))
        .listen(0, "127.0.0.1"));
    assertEquals("127.0.0.1", await(client.request(HttpMethod.GET, hop.actualPort(), "127.0.0.1", "/")
        .compose(req -> req.send().compose(HttpClientResponse::body))).toString());
  }

  @Test
  void hopByHopNamesMatchInAnyCaseAndNothingElse() {
    for (String name : ProxyHop.HOP_BY_HOP) {
      assertTrue(ProxyHop.isHopByHop(name), name);
      assertTrue(ProxyHop.isHopByHop(name.toUpperCase(Locale.ROOT)), name);
      assertTrue(ProxyHop.isHopByHop(Character.toUpperCase(name.charAt(0)) + name.substring(1)), name);
    }
    for (String name : List.of("", "t", "tee", "connections", "x-connection", "Authorization2", "Authorizatio",
        "Impersonate-User", "X-Remote-User", "X-Forwarded-For", "Content-Type", "Content-Lengths", "Hosts",
        "X-Kubernetes-Peer-Proxied-", "keep_alive", "Audit-Id")) {
      assertFalse(ProxyHop.isHopByHop(name), name);
      assertEquals(ProxyHop.HOP_BY_HOP.contains(name.toLowerCase(Locale.ROOT)), ProxyHop.isHopByHop(name), name);
    }
  }

  @Test
  void responseHeaderMapping() {
    MultiMap from = FrontProxyHeadersTest.entriesOnly(MultiMap.caseInsensitiveMultiMap()
        .add("Content-Type", "application/json")
        .add("Warning", "299 - \"a\"")
        .add("Connection", "close")
        .add("Audit-Id", "next")
        .add("warning", "299 - \"b\"")
        .add("TRANSFER-ENCODING", "chunked")
        .add("Cache-Control", "no-cache, private")
        .add("Content-Length", "2")
        .add("X-Kubernetes-Peer-Proxied", "true")
        .add("Warning", "299 - \"c\"")
        .add("Upgrade", "websocket"));
    MultiMap to = MultiMap.caseInsensitiveMultiMap()
        .add("Audit-Id", "local").add("Warning", "299 - \"local\"").add("X-Local", "kept")
        .add("Content-Type", "text/plain").add("Content-Type", "text/html");
    ProxyHop.copyHeaders(from, to); // from allows no names(): one pass over its entries
    // values per name, in order (the order between different names carries no meaning, RFC 9110 5.3)
    Map<String, List<String>> want = Map.of(
        "x-local", List.of("kept"),
        "content-type", List.of("application/json"),
        "warning", List.of("299 - \"a\"", "299 - \"b\"", "299 - \"c\""),
        "audit-id", List.of("next"),
        "cache-control", List.of("no-cache, private"));
    Map<String, List<String>> got = new java.util.HashMap<>();
    to.forEach((k, v) -> got.computeIfAbsent(k.toLowerCase(Locale.ROOT), x -> new ArrayList<>()).add(v));
    assertEquals(want, got);
    List<String> warningNames = new ArrayList<>();
    to.forEach((k, v) -> {
      if (k.equalsIgnoreCase("warning")) {
        warningNames.add(k);
      }
    });
    assertEquals(List.of("Warning", "Warning", "Warning"), warningNames, "spelled as the first occurrence");
  }

  private static <T> T await(io.vertx.core.Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
  }
}
