package io.mvproxy.node.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.mvproxy.testkit.ApiSourceForwarding;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The source of an API-created CRD after {@code kubectl delete crd} (breakit: a create through the node, in the few
 * seconds its withdrawn source drained, answered 201 and stored an object of the deleted CRD, which came back when a
 * CRD of that name was created again): while terminating a create is 405, once deleted every write is 404 as
 * upstream's handler answers for a CRD it no longer finds; reads still reach the draining source. It forwards every
 * method of the factory's source but the CRD capability (the CRD is the user's stored object, not one the node
 * publishes for a plugin).
 */
@Tag("unit")
class TerminatingGuardTest {
  @Test
  void forwardsEverythingButTheCrdCapability() {
    assertEquals(List.of("customResourceDefinition"),
        ApiSourceForwarding.unforwarded(s -> new TerminatingGuard(s, "widgets.demo.mvproxy.io", Set::of)));
  }

  @Test
  void writesAreRefusedOnceTheCrdIsDeleted() throws Exception {
    AtomicReference<Set<String>> terminating = new AtomicReference<>(Set.of());
    ApiSource delegate = new ApiSource() {
      @Override
      public String name() {
        return "crd/bars.brk.example.com";
      }

      @Override
      public List<ServedGroupVersion> groupVersions() {
        return List.of();
      }

      @Override
      public void handle(RoutingContext rc, RequestInfo info, UserInfo user) {
        rc.response().setStatusCode(201).end("served " + info.verb());
      }
    };
    TerminatingGuard guard = new TerminatingGuard(delegate, "bars.brk.example.com", terminating::get);
    UserInfo admin = new UserInfo("admin", "", List.of("system:masters"), Map.of());
    Vertx vertx = Vertx.vertx();
    try {
      Router router = Router.router(vertx);
      router.route().handler(rc -> guard.handle(rc, RequestInfo.parse(rc.request().method().name(),
          rc.request().path(), rc.request().getParam("watch")), admin));
      HttpServer server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1")
          .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      String base = "http://127.0.0.1:" + server.actualPort() + "/apis/brk.example.com/v1/namespaces/a/bars";
      assertEquals(201, send(base, "POST").statusCode());
      terminating.set(Set.of("bars.brk.example.com"));
      HttpResponse<String> t = send(base, "POST");
      assertEquals(405, t.statusCode());
      assertTrue(t.body().contains("create not allowed while custom resource definition is terminating"), t.body());
      terminating.set(Set.of());
      guard.markGone();
      for (String[] w : new String[][] {{base, "POST"}, {base + "/b1", "PUT"}, {base + "/b1", "PATCH"}}) {
        HttpResponse<String> r = send(w[0], w[1]);
        assertEquals(404, r.statusCode(), w[1] + " " + r.body());
        assertTrue(r.body().contains("\"reason\":\"NotFound\""), r.body());
      }
      assertEquals("served list", send(base, "GET").body());
      assertEquals("served delete", send(base + "/b1", "DELETE").body());
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  private static HttpResponse<String> send(String url, String method) throws Exception {
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(HttpRequest.newBuilder(URI.create(url))
        .method(method, HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
  }
}
