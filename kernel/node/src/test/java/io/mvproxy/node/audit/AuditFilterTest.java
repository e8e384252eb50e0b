package io.mvproxy.node.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.RequestScope;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusWriter;
import io.mvproxy.api.UserInfo;
import io.mvproxy.node.ingress.AuditIds;
import io.mvproxy.node.ingress.AuthorizationFilter;
import io.mvproxy.node.ingress.RequestFailures;
import io.mvproxy.node.ingress.StatusResponses;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The audit steps on a real HTTP server: the stages per request kind, the event's shape (fields, microsecond
 * timestamps, responseStatus from the Status answered, requestObject/responseObject by level, managedFields
 * omitted), authorization annotations, impersonation, failed authentication, Panic.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("unit")
class AuditFilterTest {
  private static final Pattern MICRO = Pattern.compile("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z");
  static final UserInfo ALICE = new UserInfo("alice", "u-1", List.of("devs", "system:authenticated"),
      Map.of("scopes", List.of("a")));
  static final UserInfo BOB = new UserInfo("bob", "", List.of("system:authenticated"), Map.of());
  final List<JsonObject> events = new CopyOnWriteArrayList<>();
  Vertx vertx;
  HttpServer server;
  final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  void start() throws Exception {
    AuditPolicy policy = AuditPolicy.parse(new ObjectMapper(new YAMLFactory()).readTree("""
        rules:
        - level: None
          nonResourceURLs: ["/healthz*"]
        - level: Metadata
          resources: [{group: "", resources: [secrets]}]
        - level: RequestResponse
          omitManagedFields: true
          resources: [{group: demo.mvproxy.io}]
        - level: Request
          verbs: [watch]
          omitStages: [RequestReceived]
        - level: Metadata
        """));
    AuditSink sink = new AuditSink() {
      @Override
      public boolean process(JsonObject event) {
        return events.add(event);
      }

      @Override
      public void close() {
      }
    };
    AuditFilter audit = new AuditFilter(policy, List.of(sink), new SimpleMeterRegistry());
    vertx = Vertx.vertx();
    RequestFailures.install(vertx);
    Router router = Router.router(vertx);
    router.route().failureHandler(StatusResponses::onFailure);
    router.route().handler(new AuditIds());
    router.route().handler(audit.received());
    router.route().handler(ctx -> { // a stand-in authenticator: header "user" names the caller
      String u = ctx.request().getHeader("user");
      if (u == null) {
        StatusWriter.send(ctx, new StatusException(io.mvproxy.api.StatusReason.Unauthorized, "Unauthorized", null));
        return;
      }
      RequestScope.of(ctx).user(u.equals("alice") ? ALICE : BOB);
      ctx.next();
    });
    router.route().handler(audit);
    router.route().handler(ctx -> {
      RequestScope.of(ctx).info(RequestInfo.parse(ctx.request().method().name(), ctx.request().path(),
          ctx.request().getParam("watch")));
      if (ctx.request().getHeader("impersonate") != null) {
        RequestScope.of(ctx).user(BOB);
      }
      ctx.next();
    });
    router.route().handler(new AuthorizationFilter(a -> a.user().name().equals("alice")
        ? io.mvproxy.api.authz.Decision.allow("RBAC: allowed by ClusterRoleBinding \"x\"")
        : io.mvproxy.api.authz.Decision.noOpinion("")));
    router.route().handler(BodyHandler.create(false));
    router.post("/apis/demo.mvproxy.io/v1/namespaces/default/widgets").handler(ctx -> {
      JsonObject o = ctx.body().asJsonObject().copy();
      o.getJsonObject("metadata").put("uid", "w-1");
      io.mvproxy.registry.impl.rest.Responses.send(ctx, 201, o);
    });
    router.post("/api/v1/namespaces/default/secrets").handler(ctx ->
        io.mvproxy.registry.impl.rest.Responses.send(ctx, 201, ctx.body().asJsonObject()));
    router.get("/api/v1/namespaces/default/pods").handler(ctx -> {
      if (BoolWatch.of(ctx)) {
        ctx.response().setChunked(true).putHeader("Content-Type", "application/json").write("{}\n");
        vertx.setTimer(50, t -> ctx.response().end());
      } else {
        StatusWriter.send(ctx, StatusException.notFound(new io.mvproxy.api.Gvr("", "v1", "pods"), "x"));
      }
    });
    router.get("/api/v1/namespaces/default/configmaps").handler(ctx -> {
      throw new IllegalStateException("boom");
    });
    server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1")
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** {@code ?watch=true}. */
  private static final class BoolWatch {
    static boolean of(io.vertx.ext.web.RoutingContext ctx) {
      return "true".equals(ctx.request().getParam("watch"));
    }
  }

  @AfterAll
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @BeforeEach
  void clear() {
    events.clear();
  }

  HttpResponse<String> send(String method, String path, String user, String body, String... headers)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.actualPort() + path))
        .timeout(Duration.ofSeconds(10)).header("User-Agent", "kubectl/v1.30.0")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (user != null) {
      b.header("user", user);
    }
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Events arrive after the response (end handler): wait for {@code n} of them. */
  List<JsonObject> await(int n) {
    try {
      Awaitility.await().pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5))
          .atMost(Duration.ofSeconds(30)).until(() -> events.size() >= n);
    } catch (ConditionTimeoutException e) {
      // fewer than n: the assertion below names what arrived
    }
    assertEquals(n, events.size(), events.toString());
    return List.copyOf(events);
  }

  @Test
  void createAtRequestResponseHasEveryFieldAndNoManagedFields() throws Exception {
    String widget = "{\"apiVersion\":\"demo.mvproxy.io/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"w1\","
        + "\"managedFields\":[{\"manager\":\"kubectl\"}]},\"spec\":{\"size\":3}}";
    HttpResponse<String> r = send("POST", "/apis/demo.mvproxy.io/v1/namespaces/default/widgets?fieldManager=x",
        "alice", widget, "Audit-Id", "id-create-1", "X-Forwarded-For", "10.0.0.7");
    assertEquals(201, r.statusCode(), r.body());
    List<JsonObject> ev = await(2);
    JsonObject rr = ev.get(0);
    JsonObject done = ev.get(1);
    assertEquals("RequestReceived", rr.getString("stage"));
    assertEquals("ResponseComplete", done.getString("stage"));
    for (JsonObject e : ev) {
      assertEquals("Event", e.getString("kind"));
      assertEquals("audit.k8s.io/v1", e.getString("apiVersion"));
      assertEquals("RequestResponse", e.getString("level"));
      assertEquals("id-create-1", e.getString("auditID"));
      assertEquals("/apis/demo.mvproxy.io/v1/namespaces/default/widgets?fieldManager=x", e.getString("requestURI"));
      assertEquals("create", e.getString("verb"));
      assertEquals(new JsonObject().put("username", "alice").put("uid", "u-1")
          .put("groups", new io.vertx.core.json.JsonArray().add("devs").add("system:authenticated"))
          .put("extra", new JsonObject().put("scopes", new io.vertx.core.json.JsonArray().add("a"))),
          e.getJsonObject("user"));
      assertEquals(List.of("10.0.0.7", "127.0.0.1"), e.getJsonArray("sourceIPs").getList());
      assertEquals("kubectl/v1.30.0", e.getString("userAgent"));
      assertEquals(new JsonObject().put("resource", "widgets").put("namespace", "default")
          .put("apiGroup", "demo.mvproxy.io").put("apiVersion", "v1"), e.getJsonObject("objectRef"));
      assertTrue(MICRO.matcher(e.getString("requestReceivedTimestamp")).matches(), e.encode());
      assertTrue(MICRO.matcher(e.getString("stageTimestamp")).matches(), e.encode());
      assertFalse(e.containsKey("impersonatedUser"));
    }
    assertEquals(rr.getString("requestReceivedTimestamp"), rr.getString("stageTimestamp"));
    assertFalse(rr.containsKey("requestObject"));
    assertFalse(rr.containsKey("responseStatus"));
    assertEquals(new JsonObject().put("metadata", new JsonObject()).put("code", 201),
        done.getJsonObject("responseStatus"));
    assertEquals(3, done.getJsonObject("requestObject").getJsonObject("spec").getInteger("size"));
    assertNull(done.getJsonObject("requestObject").getJsonObject("metadata").getValue("managedFields"));
    assertEquals("w-1", done.getJsonObject("responseObject").getJsonObject("metadata").getString("uid"));
    assertNull(done.getJsonObject("responseObject").getJsonObject("metadata").getValue("managedFields"));
    assertEquals("allow", done.getJsonObject("annotations").getString("authorization.k8s.io/decision"));
    assertEquals("RBAC: allowed by ClusterRoleBinding \"x\"",
        done.getJsonObject("annotations").getString("authorization.k8s.io/reason"));
  }

  @Test
  void microTimeAsMetav1() {
    assertEquals("2026-12-04T18:18:29.450142Z", AuditEvent.micro(java.time.Instant.parse("2026-12-04T18:18:29.450142789Z")));
    assertEquals("0999-01-02T03:04:05.000000Z", AuditEvent.micro(java.time.Instant.parse("0999-01-02T03:04:05Z")));
  }

  @Test
  void secretsAtMetadataCarryNoData() throws Exception {
    HttpResponse<String> r = send("POST", "/api/v1/namespaces/default/secrets", "alice",
        "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"s1\"},\"data\":{\"k\":\"c2VjcmV0\"}}");
    assertEquals(201, r.statusCode());
    for (JsonObject e : await(2)) {
      assertEquals("Metadata", e.getString("level"));
      assertFalse(e.encode().contains("c2VjcmV0"), e.encode());
      assertFalse(e.containsKey("requestObject"));
      assertFalse(e.containsKey("responseObject"));
    }
  }

  @Test
  void errorsCarryTheStatusForbiddenTheDecisionImpersonationBothUsers() throws Exception {
    assertEquals(404, send("GET", "/api/v1/namespaces/default/pods", "alice", null).statusCode());
    JsonObject done = await(2).get(1);
    JsonObject st = done.getJsonObject("responseStatus");
    assertEquals(404, st.getInteger("code"));
    assertEquals("Failure", st.getString("status"));
    assertEquals("NotFound", st.getString("reason"));
    assertEquals("pods \"x\" not found", st.getString("message"));

    events.clear();
    assertEquals(403, send("GET", "/api/v1/namespaces/default/pods", "bob", null).statusCode());
    done = await(2).get(1);
    assertEquals("forbid", done.getJsonObject("annotations").getString("authorization.k8s.io/decision"));
    assertEquals("Forbidden", done.getJsonObject("responseStatus").getString("reason"));

    events.clear();
    send("GET", "/api/v1/namespaces/default/pods", "alice", null, "impersonate", "bob");
    done = await(2).get(1);
    assertEquals("alice", done.getJsonObject("user").getString("username"));
    assertEquals("bob", done.getJsonObject("impersonatedUser").getString("username"));
  }

  @Test
  void watchGetsResponseStartedAndItsRuleOmitsRequestReceived() throws Exception {
    HttpResponse<String> r = send("GET", "/api/v1/namespaces/default/pods?watch=true", "alice", null);
    assertEquals(200, r.statusCode());
    List<JsonObject> ev = await(2);
    assertEquals(List.of("ResponseStarted", "ResponseComplete"), ev.stream().map(e -> e.getString("stage")).toList());
    assertEquals("watch", ev.get(0).getString("verb"));
    assertEquals("Request", ev.get(0).getString("level"));
    assertEquals(200, ev.get(0).getJsonObject("responseStatus").getInteger("code"));
  }

  @Test
  void panicFailedAuthenticationAndNone() throws Exception {
    assertEquals(500, send("GET", "/api/v1/namespaces/default/configmaps", "alice", null).statusCode());
    JsonObject panic = await(2).get(1);
    assertEquals("Panic", panic.getString("stage"));
    assertEquals(500, panic.getJsonObject("responseStatus").getInteger("code"));
    assertTrue(panic.getJsonObject("responseStatus").getString("message").startsWith("APIServer panic'd: "));

    events.clear();
    assertEquals(401, send("GET", "/api/v1/namespaces/default/pods", null, null,
        "Authorization", "Bearer nope").statusCode());
    JsonObject failed = await(1).get(0);
    assertEquals("ResponseStarted", failed.getString("stage"));
    assertEquals(new JsonObject(), failed.getJsonObject("user"));
    assertEquals("Authentication failed, attempted: bearer", failed.getJsonObject("responseStatus")
        .getString("message"));
    assertEquals(401, failed.getJsonObject("responseStatus").getInteger("code"));

    events.clear();
    send("GET", "/healthz", "alice", null);
    send("GET", "/api/v1/namespaces/default/pods", "alice", null);
    await(2); // only the pods request: /healthz is level None
    assertTrue(events.stream().allMatch(e -> e.getString("requestURI").startsWith("/api/")));
  }
}
