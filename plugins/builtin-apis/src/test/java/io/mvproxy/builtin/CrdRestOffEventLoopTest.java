package io.mvproxy.builtin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import io.mvproxy.api.ApiSource;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.UserInfo;
import io.mvproxy.registry.impl.Kinds;
import io.mvproxy.registry.impl.model.CrdParser;
import io.mvproxy.storage.NodeStorage;
import io.mvproxy.storage.StorageConfig;
import io.mvproxy.storage.TestHazelcast;
import io.mvproxy.testkit.TestSourceContext;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Creating and updating a CustomResourceDefinition through the REST surface parses it (compiling its CEL rules) on a
 * worker thread: while a parse is held, a request to the same server (one event loop) is answered; the write then
 * completes, and an invalid update still answers 422. Memory storage over one Hazelcast member on loopback, real
 * HTTP on 127.0.0.1.
 */
@Tag("fleet")
class CrdRestOffEventLoopTest {
  static final String PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

  static JsonObject crd(String rule) {
    return new JsonObject("""
        {"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
         "metadata":{"name":"foos.example.com"},
         "spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"foos","kind":"Foo"},
          "versions":[{"name":"v1","served":true,"storage":true,
            "schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object",
              "x-kubernetes-validations":[{"rule":"%s"},{"rule":"size(self.n) > 0"}],
              "properties":{"a":{"type":"integer"},"b":{"type":"integer"},"n":{"type":"string"}}}}}}}]}}"""
        .formatted(rule));
  }

  record Answer(int status, JsonObject body) {
  }

  static Future<Answer> call(HttpClient client, int port, HttpMethod method, String path, JsonObject body) {
    return client.request(new RequestOptions().setMethod(method).setHost("127.0.0.1").setPort(port).setURI(path)
            .putHeader("Content-Type", "application/json"))
        // the body is read in the send future's own callback (chained further out it may run after the answer ended)
        .compose(r -> (body == null ? r.send() : r.send(Buffer.buffer(body.encode())))
            .compose(x -> x.body().map(b -> new Answer(x.statusCode(), b.toJsonObject()))));
  }

  static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  @Test
  void createAndUpdateParseOnAWorkerWhileTheEventLoopAnswers() throws Exception {
    int[] p = TestHazelcast.freePorts(1);
    HazelcastInstance hz = TestHazelcast.start(TestHazelcast.clusterName(), p[0], p[0]);
    // one event loop: the server's; a request answered while a parse is held proves the parse is not on it
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    Map<String, Boolean> parsedOnEventLoop = new ConcurrentHashMap<>();
    CountDownLatch[] parsing = {new CountDownLatch(1)};
    CountDownLatch[] release = {new CountDownLatch(1)};
    try {
      NodeStorage storage = NodeStorage.create(vertx, hz, StorageConfig.memory());
      ApiSource crds = Kinds.createBuiltIn(BuiltinKinds.manifest("customresourcedefinitions.apiextensions.k8s.io"),
          new TestSourceContext(vertx, storage, "n1"), "apiextensions.k8s.io/customresourcedefinitions", 16700, 15,
          new CrdStrategy().then(new KindSemantics("customresourcedefinitions")));
      UserInfo user = new UserInfo("admin", "", List.of("system:masters"), Map.of());
      Router router = Router.router(vertx);
      router.route().handler(ctx -> {
        io.mvproxy.api.RequestScope.of(ctx).user(user);
        crds.handle(ctx, RequestInfo.parse(ctx.request().method().name(), ctx.request().path(),
            ctx.request().getParam("watch")), user);
      });
      HttpServer server = await(vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1"));
      int port = server.actualPort();
      HttpClient client = vertx.createHttpClient();
      CrdParser.onParse = m -> {
        parsedOnEventLoop.put(Thread.currentThread().getName(), Context.isOnEventLoopThread());
        CountDownLatch held = release[0];
        parsing[0].countDown();
        try {
          held.await(30, TimeUnit.SECONDS); // a long CEL compile
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      };

      Future<Answer> created = call(client, port, HttpMethod.POST, PATH, crd("self.a < self.b"));
      assertTrue(parsing[0].await(30, TimeUnit.SECONDS), "the created CRD is parsed");
      Answer list = await(call(client, port, HttpMethod.GET, PATH, null));
      assertEquals(200, list.status(), "answered while the parse is held: " + list.body());
      assertFalse(created.isComplete(), "the create waits for its parse");
      release[0].countDown();
      Answer c = await(created);
      assertEquals(201, c.status(), c.body().encode());

      parsing[0] = new CountDownLatch(1);
      release[0] = new CountDownLatch(1);
      JsonObject next = c.body().copy();
      next.getJsonObject("spec").getJsonArray("versions").getJsonObject(0).getJsonObject("schema")
          .getJsonObject("openAPIV3Schema").getJsonObject("properties").getJsonObject("spec")
          .getJsonArray("x-kubernetes-validations").getJsonObject(0).put("rule", "self.a <= self.b");
      Future<Answer> updated = call(client, port, HttpMethod.PUT, PATH + "/foos.example.com", next);
      assertTrue(parsing[0].await(30, TimeUnit.SECONDS), "the updated CRD is parsed");
      assertEquals(200, await(call(client, port, HttpMethod.GET, PATH + "/foos.example.com", null)).status());
      assertFalse(updated.isComplete(), "the update waits for its parse");
      release[0].countDown();
      Answer u = await(updated);
      assertEquals(200, u.status(), u.body().encode());

      CrdParser.onParse = m -> parsedOnEventLoop.put(Thread.currentThread().getName(), Context.isOnEventLoopThread());
      JsonObject bad = u.body().copy();
      bad.getJsonObject("spec").getJsonArray("versions").getJsonObject(0).getJsonObject("schema")
          .getJsonObject("openAPIV3Schema").getJsonObject("properties").getJsonObject("spec")
          .getJsonArray("x-kubernetes-validations").getJsonObject(0).put("rule", "self.nope <");
      bad.getJsonObject("spec").put("group", "other.example.com");
      Answer b = await(call(client, port, HttpMethod.PUT, PATH + "/foos.example.com", bad));
      assertEquals(422, b.status(), b.body().encode());
      String msg = b.body().getString("message");
      assertTrue(msg.contains("spec.group: Invalid value: \"other.example.com\": field is immutable"), msg);
      assertTrue(msg.contains("x-kubernetes-validations[0].rule"), msg);
      Answer badCreate = await(call(client, port, HttpMethod.POST, PATH, crd("self.nope <").put("metadata",
          new JsonObject().put("name", "foos.example.com"))));
      assertEquals(422, badCreate.status(), badCreate.body().encode());
      // a protected group (*.k8s.io) needs the API approval annotation, listed after the schema's errors
      JsonObject unapproved = crd("self.nope <");
      unapproved.getJsonObject("metadata").put("name", "foos.x.k8s.io");
      unapproved.getJsonObject("spec").put("group", "x.k8s.io");
      Answer noApproval = await(call(client, port, HttpMethod.POST, PATH, unapproved));
      assertEquals(422, noApproval.status(), noApproval.body().encode());
      var causes = noApproval.body().getJsonObject("details").getJsonArray("causes");
      assertTrue(causes.size() > 1, causes.encode());
      assertEquals("metadata.annotations[api-approved.kubernetes.io]", causes.getJsonObject(causes.size() - 1)
          .getString("field"));
      unapproved = crd("size(self.n) > 1");
      unapproved.getJsonObject("metadata").put("name", "foos.x.k8s.io")
          .put("annotations", new JsonObject().put("api-approved.kubernetes.io", "unapproved, testing only"));
      unapproved.getJsonObject("spec").put("group", "x.k8s.io");
      Answer bypassed = await(call(client, port, HttpMethod.POST, PATH, unapproved));
      assertEquals(201, bypassed.status(), bypassed.body().encode());
      assertEquals(Set.of(false), Set.copyOf(parsedOnEventLoop.values()), "parsed on " + parsedOnEventLoop);
    } finally {
      CrdParser.onParse = null;
      release[0].countDown();
      await(vertx.close());
      hz.shutdown();
    }
  }
}
