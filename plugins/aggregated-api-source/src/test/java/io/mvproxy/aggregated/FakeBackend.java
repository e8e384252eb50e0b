package io.mvproxy.aggregated;

import io.mvproxy.security.Pem;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A scriptable HTTPS backend for tests: aggregated discovery (with ETag/304), legacy-only discovery, a slow mode,
 * an echo of what it received (headers, client certificate CN, body) under {@code /apis/wardle.example.com}, a
 * WebSocket echo for upgrade requests, {@code .../flaky}, whose first request's connection dies unanswered, and an
 * endless discovery answer ({@link Mode#ENDLESS}).
 */
final class FakeBackend {
  /** How discovery is answered. */
  enum Mode { AGGREGATED, LEGACY_ONLY, SLOW, ENDLESS }

  static final String ETAG = "\"ABC123\"";
  static final String CT_V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

  volatile Mode mode = Mode.AGGREGATED;
  final List<MultiMap> requests = new CopyOnWriteArrayList<>();
  /** Name under which {@link #requests} keep each request's path. */
  static final String PATH = ":path";
  final List<String> clientCns = new CopyOnWriteArrayList<>();
  /** Requests to {@code .../flaky}: the first one's connection is closed unanswered. */
  final java.util.concurrent.atomic.AtomicInteger flaky = new java.util.concurrent.atomic.AtomicInteger();
  final HttpServer server;
  final int port;
  final Vertx vertx;

  FakeBackend(Vertx vertx, Path pki) throws Exception {
    this.vertx = vertx;
    HttpServerOptions o = new HttpServerOptions().setSsl(true).setHost("127.0.0.1").setPort(0)
        .setKeyCertOptions(new PemKeyCertOptions().setCertPath(pki.resolve("backend.crt").toString())
            .setKeyPath(pki.resolve("backend.key").toString()))
        .setTrustOptions(new PemTrustOptions().addCertPath(pki.resolve("front-proxy-ca.crt").toString()))
        .setClientAuth(ClientAuth.REQUEST).setWebSocketSubProtocols(List.of("v5.channel.k8s.io"));
    server = vertx.createHttpServer(o).requestHandler(this::handle).listen().await(30, TimeUnit.SECONDS);
    port = server.actualPort();
  }

  String url() {
    return "https://127.0.0.1:" + port;
  }

  void close() {
    server.close().await();
  }

  private void handle(HttpServerRequest req) {
    MultiMap h = MultiMap.caseInsensitiveMultiMap().addAll(req.headers());
    h.set(PATH, req.path());  // which request it was (discovery, or the OpenAPI downloads after it)
    requests.add(h);
    try {
      X509Certificate c = (X509Certificate) req.connection().peerCertificates().get(0);
      clientCns.add(Pem.commonName(c));
    } catch (Exception e) {
      clientCns.add("");
    }
    String path = req.path();
    if (mode == Mode.SLOW && path.startsWith("/apis") && !path.contains("/namespaces/")) {
      return; // never answers
    }
    if (mode == Mode.ENDLESS && path.startsWith("/apis") && !path.contains("/namespaces/")) {
      // a broken backend: an aggregated discovery answer without end
      req.response().setChunked(true).putHeader("Content-Type", CT_V2);
      io.vertx.core.buffer.Buffer chunk = io.vertx.core.buffer.Buffer.buffer(new byte[1 << 20]);
      long[] sent = {0};
      req.response().write("[");
      vertx.setPeriodic(2, t -> {
        if (req.response().closed() || sent[0] > (128L << 20)) {
          vertx.cancelTimer(t);
          req.response().reset();
        } else if (!req.response().writeQueueFull()) {
          sent[0] += chunk.length();
          req.response().write(chunk);
        }
      });
      return;
    }
    if (path.equals("/apis")) {
      if (mode == Mode.LEGACY_ONLY) {
        json(req, 200, "application/json", new JsonObject().put("kind", "APIGroupList").put("apiVersion", "v1")
            .put("groups", new JsonArray()));
      } else if (ETAG.equals(req.getHeader("If-None-Match"))) {
        req.response().setStatusCode(304).putHeader("ETag", ETAG).end();
      } else {
        req.response().putHeader("ETag", ETAG);
        json(req, 200, CT_V2, aggregated());
      }
      return;
    }
    if (path.equals("/apis/wardle.example.com/v1alpha1")) {
      json(req, 200, "application/json", legacy());
      return;
    }
    if ("websocket".equalsIgnoreCase(req.getHeader("Upgrade"))) {
      upgrade(req);
      return;
    }
    if (path.endsWith("/flaky") && flaky.getAndIncrement() == 0) {
      req.connection().close(); // a keep-alive connection that died as the request went out
      return;
    }
    if (path.endsWith("/watch-stream") || "true".equals(req.getParam("watch"))) {
      req.response().setChunked(true).putHeader("Content-Type", "application/json");
      req.response().write("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}\n");
      return; // kept open, like a watch
    }
    req.body().onSuccess(b -> {
      JsonObject echo = new JsonObject().put("method", req.method().name()).put("uri", req.uri())
          .put("body", b.toString()).put("cn", clientCns.get(clientCns.size() - 1));
      JsonObject hs = new JsonObject();
      req.headers().names().forEach(n -> hs.put(n.toLowerCase(), new JsonArray(req.headers().getAll(n))));
      json(req, "POST".equals(req.method().name()) ? 201 : 200, "application/json", echo.put("headers", hs));
    });
  }

  /**
   * WebSocket upgrades: {@code .../forbidden}: 403 Status; {@code .../plain}: 200 without upgrading; otherwise an
   * echo (a first text message naming the X-Remote-User and sub-protocol it got, then every message back).
   */
  private void upgrade(HttpServerRequest req) {
    if (req.path().endsWith("/forbidden")) {
      json(req, 403, "application/json", new JsonObject().put("kind", "Status").put("code", 403)
          .put("message", "exec is forbidden here"));
      return;
    }
    if (req.path().endsWith("/plain")) {
      json(req, 200, "application/json", new JsonObject().put("kind", "Flunder"));
      return;
    }
    req.toWebSocket().onSuccess(ws -> {
      ws.writeTextMessage("hello " + req.getHeader("X-Remote-User") + " " + ws.subProtocol() + " "
          + req.getHeader("X-Forwarded-Uri"));
      ws.textMessageHandler(t -> ws.writeTextMessage("echo:" + t));
      ws.binaryMessageHandler(b -> ws.writeBinaryMessage(b));
    });
  }

  private static void json(HttpServerRequest req, int code, String ct, JsonObject body) {
    req.response().setStatusCode(code).putHeader("Content-Type", ct).end(body.encode());
  }

  static JsonObject aggregated() {
    return new JsonObject("""
        {"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[
         {"metadata":{"name":"other.example.com"},"versions":[{"version":"v1","freshness":"Current","resources":[
           {"resource":"others","singularResource":"other","scope":"Cluster",
            "responseKind":{"group":"other.example.com","version":"v1","kind":"Other"},"verbs":["get"]}]}]},
         {"metadata":{"name":"wardle.example.com"},"versions":[
          {"version":"v1beta1","freshness":"Current","resources":[]},
          {"version":"v1alpha1","freshness":"Current","resources":[
           {"resource":"flunders","singularResource":"flunder","scope":"Namespaced",
            "responseKind":{"group":"wardle.example.com","version":"v1alpha1","kind":"Flunder"},
            "verbs":["create","delete","get","list","watch"],"shortNames":["fl"],
            "subresources":[{"subresource":"status",
              "responseKind":{"group":"wardle.example.com","version":"v1alpha1","kind":"Flunder"},
              "verbs":["get","patch","update"]}]}]}]}]}""");
  }

  static JsonObject legacy() {
    return new JsonObject("""
        {"kind":"APIResourceList","apiVersion":"v1","groupVersion":"wardle.example.com/v1alpha1","resources":[
         {"name":"flunders","singularName":"flunder","namespaced":true,"kind":"Flunder",
          "verbs":["create","delete","get","list","watch"],"shortNames":["fl"],"storageVersionHash":"abc="},
         {"name":"flunders/status","singularName":"","namespaced":true,"kind":"Flunder",
          "verbs":["get","patch","update"]},
         {"name":"flunders/scale","singularName":"","namespaced":true,"group":"autoscaling","version":"v1",
          "kind":"Scale","verbs":["get","patch","update"]}]}""");
  }
}
