package io.mvproxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.UserInfo;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** End-to-end: a real HTTPS Vert.x server ({@link TlsOptions#server}, {@link Authenticator}), real TLS clients. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("unit")
class AuthenticatorTest {
  @TempDir
  static Path tmp;
  private static final String SA_ISSUER = "https://kubernetes.default.svc.cluster.local";
  private Vertx vertx;
  private io.mvproxy.security.serviceaccount.ServiceAccountTokens serviceAccounts;
  private HttpServer server;
  private int port;
  private DevPki pki;
  private DevPki otherPki;

  /** Status code, body. */
  record Resp(int code, String body) {
    JsonObject json() {
      return new JsonObject(body);
    }
  }

  @BeforeAll
  void start() throws Exception {
    vertx = Vertx.vertx();
    pki = new DevPki(tmp.resolve("pki"));
    pki.generate(List.of("node-a", "node-b"), List.of(), Map.of());
    otherPki = new DevPki(tmp.resolve("other"));
    otherPki.generate(List.of("node-a"), List.of(), Map.of());
    Path tokens = tmp.resolve("tokens.csv");
    Files.writeString(tokens, "# token file\nsecret-token,tina,uid-42,\"dev,qa\"\n");

    String ca = pki.caCert().toString();
    String fp = pki.frontProxyCaCert().toString();
    Authenticator normal = Authenticator.fromFlags(ca, fp, List.of(DevPki.PROXY_CLIENT_CN), tokens.toString());
    Authenticator strict = Authenticator.fromFlags(ca, fp, List.of("someone-else"), tokens.toString());
    Router router = Router.router(vertx);
    router.route("/strict/*").handler(strict).handler(this::echo);
    // service account tokens whose account lookup answers later (a storage read), before the body is read
    serviceAccounts = io.mvproxy.security.serviceaccount.ServiceAccountTokens.fromFlags(List.of(SA_ISSUER),
        pki.serviceAccountKey(), List.of(pki.serviceAccountPublicKey()), List.of(), java.time.Duration.ZERO);
    serviceAccounts.useGetter((ns, name, fresh) -> {
      io.vertx.core.Promise<io.mvproxy.security.serviceaccount.ServiceAccountGetter.Found> p =
          io.vertx.core.Promise.promise();
      vertx.setTimer(200, t -> p.complete(new io.mvproxy.security.serviceaccount.ServiceAccountGetter.Found("sa-uid",
          false)));
      return p.future();
    });
    router.route("/sa/*").handler(normal.withServiceAccounts(serviceAccounts))
        .handler(ctx -> io.vertx.ext.web.handler.BodyHandler.create(false).handle(ctx)) // as the ingress chain
        .handler(ctx -> ctx.json(new JsonObject().put("name", io.mvproxy.api.RequestScope.of(ctx).user().name())
            .put("bodyBytes", ctx.body().length())));
    router.route().handler(normal).handler(this::echo);
    server = vertx.createHttpServer(TlsOptions.server(pki.servingCert("node-a").toString(),
            pki.servingKey("node-a").toString(), ca, fp).setHost("127.0.0.1").setPort(0))
        .requestHandler(router);
    server = await(server.listen());
    port = server.actualPort();
  }

  @AfterAll
  void stop() throws Exception {
    await(vertx.close());
  }

  private void echo(RoutingContext ctx) {
    UserInfo u = io.mvproxy.api.RequestScope.of(ctx).user();
    JsonObject extra = new JsonObject();
    u.extra().forEach((k, v) -> extra.put(k, new JsonArray(v)));
    ctx.json(new JsonObject().put("name", u.name()).put("uid", u.uid()).put("groups", new JsonArray(u.groups()))
        .put("extra", extra)
        .put("peerHop", io.mvproxy.api.RequestScope.of(ctx).peerHop())
        .put("peerProxied", io.mvproxy.api.RequestScope.of(ctx).peerProxied())
        .put("xRemoteUser", ctx.request().getHeader("X-Remote-User"))
        .put("xRemoteGroups", new JsonArray(ctx.request().headers().getAll("X-Remote-Group")))
        .put("peerProxiedHeader", ctx.request().getHeader("X-Kubernetes-Peer-Proxied"))
        .put("authorization", ctx.request().getHeader("Authorization")));
  }

  // ---- clients ----

  private HttpClientOptions trusting() {
    return new HttpClientOptions().setSsl(true).setVerifyHost(true)
        .setTrustOptions(new PemTrustOptions().addCertPath(pki.caCert().toString()));
  }

  private HttpClientOptions withCert(DevPki p, Path crt, Path key) {
    return trusting().setKeyCertOptions(new PemKeyCertOptions().setCertPath(crt.toString())
        .setKeyPath(key.toString()));
  }

  private HttpClientOptions admin() {
    return withCert(pki, pki.adminCert(), pki.adminKey());
  }

  private HttpClientOptions peer() {
    return TlsOptions.peerClient(pki.caCert().toString(), pki.proxyClientCert("node-b").toString(),
        pki.proxyClientKey("node-b").toString());
  }

  private Resp get(HttpClientOptions opts, String path, String... headers) throws Exception {
    HttpClient client = vertx.createHttpClient(opts);
    try {
      return await(client.request(HttpMethod.GET, port, "127.0.0.1", path).compose(req -> {
        for (int i = 0; i < headers.length; i += 2) {
          req.headers().add(headers[i], headers[i + 1]);
        }
        return req.send().compose(r -> r.body().map(b -> new Resp(r.statusCode(), b.toString())));
      }));
    } finally {
      client.close();
    }
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
  }

  // ---- tests ----

  @Test
  void serviceAccountTokenLookedUpLaterStillGetsTheWholeBody() throws Exception {
    java.time.Instant now = java.time.Instant.now();
    String token = serviceAccounts.issuer().sign(new io.mvproxy.security.serviceaccount.ServiceAccountClaims("ns1",
        "robot", "sa-uid", List.of(SA_ISSUER), now, now.plusSeconds(3600), "j1"));
    String body = "x".repeat(300_000);
    HttpClient client = vertx.createHttpClient(trusting());
    try {
      Resp r = await(client.request(HttpMethod.POST, port, "127.0.0.1", "/sa/x").compose(req -> {
        req.headers().add("Authorization", "Bearer " + token);
        return req.send(body).compose(res -> res.body().map(b -> new Resp(res.statusCode(), b.toString())));
      }));
      assertEquals(200, r.code(), r.body());
      assertEquals("system:serviceaccount:ns1:robot", r.json().getString("name"));
      assertEquals(body.length(), r.json().getInteger("bodyBytes"), "no byte lost while the request was paused");
      Resp stale = await(client.request(HttpMethod.POST, port, "127.0.0.1", "/sa/x").compose(req -> {
        req.headers().add("Authorization", "Bearer " + serviceAccounts.issuer().sign(
            new io.mvproxy.security.serviceaccount.ServiceAccountClaims("ns1", "robot", "old-uid", List.of(SA_ISSUER),
                now, now.plusSeconds(3600), "j2")));
        return req.send(body).compose(res -> res.body().map(b -> new Resp(res.statusCode(), b.toString())));
      }));
      assertEquals(401, stale.code(), "a token of another account with that name: " + stale.body());
      assertEquals("Unauthorized", stale.json().getString("reason"));
    } finally {
      client.close();
    }
  }

  @Test
  void adminCertificate() throws Exception {
    Resp r = get(admin(), "/api/v1/namespaces");
    assertEquals(200, r.code(), r.body());
    assertEquals("admin", r.json().getString("name"));
    assertEquals(List.of("system:masters", "system:authenticated"), r.json().getJsonArray("groups").getList());
    assertFalse(r.json().getBoolean("peerHop"));
  }

  @Test
  void bearerToken() throws Exception {
    Resp r = get(trusting(), "/apis", "Authorization", "Bearer secret-token");
    assertEquals(200, r.code(), r.body());
    assertEquals("tina", r.json().getString("name"));
    assertEquals("uid-42", r.json().getString("uid"));
    assertEquals(List.of("dev", "qa", "system:authenticated"), r.json().getJsonArray("groups").getList());
    assertNull(r.json().getString("authorization"), "token header not passed on");
  }

  @Test
  void noOrBadCredentialsGet401Status() throws Exception {
    for (String[] h : List.of(new String[0], new String[] {"Authorization", "Bearer wrong"},
        new String[] {"Authorization", "Basic c2VjcmV0LXRva2Vu"})) {
      Resp r = get(trusting(), "/api", h);
      assertEquals(401, r.code());
      JsonObject s = r.json();
      assertEquals("Status", s.getString("kind"));
      assertEquals("v1", s.getString("apiVersion"));
      assertEquals("Failure", s.getString("status"));
      assertEquals("Unauthorized", s.getString("reason"));
      assertEquals("Unauthorized", s.getString("message"));
      assertEquals(401, s.getInteger("code"));
    }
    assertEquals(401, get(trusting(), "/healthzfoo").code());
    assertEquals(401, get(trusting(), "/healthz/../api").code());
  }

  @Test
  void publicPathsAreAnonymous() throws Exception {
    for (String p : List.of("/healthz", "/livez", "/readyz", "/readyz/ping", "/version", "/healthz?verbose")) {
      Resp r = get(trusting(), p);
      assertEquals(200, r.code(), p);
      assertEquals("system:anonymous", r.json().getString("name"));
      assertEquals(List.of("system:unauthenticated"), r.json().getJsonArray("groups").getList());
    }
    assertEquals("admin", get(admin(), "/healthz").json().getString("name"));
  }

  @Test
  void certificateFromAnotherCaGets401AndNoIdentity() throws Exception {
    // like kube-apiserver: the handshake completes, the chain verifies against no configured CA -> 401 Status
    HttpClientOptions foreign = withCert(otherPki, otherPki.adminCert(), otherPki.adminKey());
    Resp r = get(foreign, "/api");
    assertEquals(401, r.code(), r.body());
    assertTrue(r.body().contains("\"reason\":\"Unauthorized\""), r.body());
    Resp spoof = get(foreign, "/api", "X-Remote-User", "admin", "X-Kubernetes-Peer-Proxied", "true");
    assertEquals(401, spoof.code(), spoof.body());
  }

  @Test
  void userCannotSpoofFrontProxyHeaders() throws Exception {
    Resp r = get(admin(), "/api", "X-Remote-User", "evil", "X-Remote-Group", "system:masters",
        "X-Kubernetes-Peer-Proxied", "true", "x-remote-extra-foo", "bar");
    assertEquals(200, r.code());
    JsonObject j = r.json();
    assertEquals("admin", j.getString("name"));
    assertFalse(j.getBoolean("peerHop"));
    assertFalse(j.getBoolean("peerProxied"));
    assertNull(j.getString("xRemoteUser"));
    assertTrue(j.getJsonArray("xRemoteGroups").isEmpty());
    assertNull(j.getString("peerProxiedHeader"));
    assertTrue(j.getJsonObject("extra").isEmpty());

    Resp t = get(trusting(), "/api", "Authorization", "Bearer secret-token", "X-Remote-User", "evil");
    assertEquals("tina", t.json().getString("name"));
    assertNull(t.json().getString("xRemoteUser"));
    Resp anon = get(trusting(), "/api", "X-Remote-User", "evil");
    assertEquals(401, anon.code());
  }

  @Test
  void peerHopWithProxyClientCertificate() throws Exception {
    Resp r = get(peer(), "/apis/example.com/v1/widgets", "X-Remote-User", "alice", "X-Remote-Uid", "u-7",
        "X-Remote-Group", "dev", "X-Remote-Group", "system:authenticated",
        "X-Remote-Extra-Scopes.example.com%2Fteam", "blue", "X-Remote-Extra-Scopes.example.com%2Fteam", "green",
        "X-Kubernetes-Peer-Proxied", "true");
    assertEquals(200, r.code(), r.body());
    JsonObject j = r.json();
    assertEquals("alice", j.getString("name"));
    assertEquals("u-7", j.getString("uid"));
    assertEquals(List.of("dev", "system:authenticated"), j.getJsonArray("groups").getList());
    assertEquals(List.of("blue", "green"), j.getJsonObject("extra").getJsonArray("scopes.example.com/team").getList());
    assertTrue(j.getBoolean("peerHop"));
    assertTrue(j.getBoolean("peerProxied"));
    assertEquals("true", j.getString("peerProxiedHeader"));
    assertNull(j.getString("xRemoteUser"), "identity headers consumed");

    Resp noLoop = get(peer(), "/api", "X-Remote-User", "bob");
    assertTrue(noLoop.json().getBoolean("peerHop"));
    assertFalse(noLoop.json().getBoolean("peerProxied"));
    assertEquals(List.of("system:authenticated"), noLoop.json().getJsonArray("groups").getList());
  }

  @Test
  void proxyCertificateWithoutHeadersOrWithDisallowedNameIsNotBelieved() throws Exception {
    assertEquals(401, get(peer(), "/api").code());
    Resp strict = get(peer(), "/strict/api", "X-Remote-User", "alice", "X-Kubernetes-Peer-Proxied", "true");
    assertEquals(401, strict.code(), strict.body());
    // a user certificate (cluster CA) is no front proxy, whatever its CN
    Resp user = get(admin(), "/strict/api", "X-Remote-User", "alice");
    assertEquals("admin", user.json().getString("name"));
    assertFalse(user.json().getBoolean("peerHop"));
  }

  @Test
  void keepAliveConnectionReusesVerdict() throws Exception {
    HttpClient client = vertx.createHttpClient(peer());
    try {
      for (String user : List.of("u1", "u2", "u3")) {
        Resp r = await(client.request(HttpMethod.GET, port, "127.0.0.1", "/api").compose(req -> req
            .putHeader("X-Remote-User", user).send()
            .compose(resp -> resp.body().map(b -> new Resp(resp.statusCode(), b.toString())))));
        assertEquals(user, r.json().getString("name"));
      }
    } finally {
      client.close();
    }
  }

  @Test
  void bearerTokenParsedAsUpstream() {
    // value -> token (null: not a bearer token), as bearertoken.go: TrimSpace, SplitN(" ", 3), parts[1] non-empty
    String[][] table = {
        {"Bearer abc", "abc"}, {"bearer abc", "abc"}, {"BEARER abc", "abc"}, {"  Bearer abc \t", "abc"},
        {"Bearer abc def", "abc"}, {"Bearer a", "a"}, {"Bearer  abc", null}, {"Bearer", null}, {"Bearer ", null},
        {"Bearer\tabc", null}, {"Bearerabc", null}, {"Basic abc", null}, {"x Bearer abc", null}, {"", null},
        {"   ", null}, {"Bear abc", null}, {"Bearer abc ", "abc"}, {"Bearer abc  def", "abc"}, {null, null}};
    for (String[] row : table) {
      assertEquals(row[1], Authenticator.bearer(row[0]), "[" + row[0] + "]");
      assertEquals(splitBearer(row[0]), Authenticator.bearer(row[0]), "as String.split: [" + row[0] + "]");
    }
  }

  /** The former parsing, kept as the reference. */
  private static String splitBearer(String auth) {
    if (auth == null) {
      return null;
    }
    String[] parts = auth.strip().split(" ", 3);
    return parts.length < 2 || !parts[0].equalsIgnoreCase("bearer") || parts[1].isEmpty() ? null : parts[1];
  }

  @Test
  void tokenUsersGetTheAuthenticatedGroupOnceWhenLoaded() {
    UserInfo plain = new UserInfo("tina", "1", List.of("dev"), Map.of());
    UserInfo already = new UserInfo("al", "2", List.of("system:authenticated", "dev"), Map.of());
    Authenticator a = new Authenticator(List.of(), List.of(), List.of(), Map.of("t1", plain, "t2", already))
        .withTokens(Map.of("t3", new UserInfo("ctl", "", List.of(), Map.of()), "t1", already));
    UserInfo u1 = a.authenticateToken("t1").orElseThrow();
    assertEquals(List.of("dev", "system:authenticated"), u1.groups(), "a file token keeps its file user");
    assertTrue(u1 == a.authenticateToken("t1").orElseThrow(), "built once, not per request");
    assertEquals(already, a.authenticateToken("t2").orElseThrow());
    assertEquals(List.of("system:authenticated"), a.authenticateToken("t3").orElseThrow().groups());
    assertTrue(a.authenticateToken("nope").isEmpty());
    assertTrue(a.authenticateToken(null).isEmpty());
  }

  @Test
  void tlsVersions() throws Exception {
    for (String v : List.of("TLSv1.2", "TLSv1.3")) {
      Resp r = get(admin().setEnabledSecureTransportProtocols(Set.of(v)), "/api");
      assertEquals("admin", r.json().getString("name"), v);
    }
    assertEquals(0x0303, serverHelloVersion(0x0303), "raw TLS 1.2 ClientHello gets a ServerHello");
    assertEquals(-1, serverHelloVersion(0x0302), "TLS 1.1 ClientHello is refused");
    assertEquals(-1, serverHelloVersion(0x0301), "TLS 1.0 ClientHello is refused");
  }

  @Test
  void kubectlWithGeneratedKubeconfig() throws Exception {
    Assumptions.assumeTrue(DevPkiTest.onPath("kubectl"), "kubectl not on PATH");
    // a copy of the PKI without kubeconfig: generate() only writes the kubeconfig pointing at us, and the README
    Path copy = tmp.resolve("kubectl-pki");
    Files.createDirectories(copy);
    try (var files = Files.list(pki.dir())) {
      for (Path f : files.filter(f -> !f.getFileName().toString().equals("kubeconfig")).toList()) {
        Files.copy(f, copy.resolve(f.getFileName()));
      }
    }
    DevPki p = new DevPki(copy);
    List<Path> written = p.generate(List.of("node-a", "node-b"), List.of(),
        Map.of("node-a", "https://127.0.0.1:" + port));
    assertEquals(Set.of(p.kubeconfig(), copy.resolve("README.md")), Set.copyOf(written));
    Process proc = new ProcessBuilder("kubectl", "--kubeconfig", p.kubeconfig().toString(), "get", "--raw",
        "/apis/whoami").redirectErrorStream(true).start();
    String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(proc.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, proc.exitValue(), out);
    assertEquals("admin", new JsonObject(out).getString("name"));
  }

  /**
   * Sends a hand-made ClientHello offering {@code version} and returns the ServerHello's version, or -1 when the
   * server answers with an alert or closes the connection.
   */
  private int serverHelloVersion(int version) throws IOException {
    List<Byte> body = new ArrayList<>();
    add(body, version >> 8, version & 0xff);
    for (int i = 0; i < 32; i++) {
      add(body, i);
    }
    add(body, 0); // session id
    int[] suites = {0xC0, 0x2B, 0xC0, 0x2C, 0xC0, 0x09, 0xC0, 0x0A, 0xC0, 0x23};
    add(body, 0, suites.length);
    add(body, suites);
    add(body, 1, 0); // null compression
    int[] ext = {0x00, 0x0a, 0x00, 0x04, 0x00, 0x02, 0x00, 0x17, // supported_groups: secp256r1
        0x00, 0x0b, 0x00, 0x02, 0x01, 0x00, // ec_point_formats: uncompressed
        0x00, 0x0d, 0x00, 0x06, 0x00, 0x04, 0x04, 0x03, 0x08, 0x04}; // signature_algorithms
    add(body, 0, ext.length);
    add(body, ext);
    byte[] rec = new byte[9 + body.size()];
    int hs = body.size() + 4;
    byte[] head = {0x16, 0x03, 0x01, (byte) (hs >> 8), (byte) hs, 0x01, 0, (byte) (body.size() >> 8),
        (byte) body.size()};
    System.arraycopy(head, 0, rec, 0, 9);
    for (int i = 0; i < body.size(); i++) {
      rec[9 + i] = body.get(i);
    }
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(rec);
      out.flush();
      DataInputStream in = new DataInputStream(s.getInputStream());
      int type = in.read();
      if (type != 0x16) {
        return -1; // alert (0x15) or closed
      }
      byte[] h = new byte[4 + 4 + 2];
      in.readFully(h); // record version(2) length(2), handshake type(1) length(3), server version(2)
      return h[4] == 0x02 ? ((h[8] & 0xff) << 8 | (h[9] & 0xff)) : -1;
    } catch (IOException e) {
      return -1;
    }
  }

  private static void add(List<Byte> l, int... bytes) {
    for (int b : bytes) {
      l.add((byte) b);
    }
  }
}
