package io.mvproxy.node.ingress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code --secure-port=0} with several ingress instances (breakit: {@code bin/mvproxy serve --secure-port=0} on a
 * 2-core machine stopped with {@code cannot listen on 127.0.0.1:0 (--bind-address): Address already in use}): the
 * instances, each on its own event loop as {@link IngressGroup} deploys them, end up on one free port.
 */
@Tag("unit")
class IngressGroupTest {
  /** A server on its own event loop, as an ingress instance. */
  static final class Listener extends VerticleBase {
    final HttpServerOptions options;
    HttpServer server;

    Listener(HttpServerOptions options) {
      this.options = options;
    }

    @Override
    public Future<?> start() {
      return vertx.createHttpServer(options).requestHandler(r -> r.response().end("ok"))
          .listen().onSuccess(s -> server = s);
    }
  }

  @Test
  void portZeroIsOneFreePortSharedByEveryInstance() throws Exception {
    HttpServerOptions configured = new HttpServerOptions().setHost("127.0.0.1").setPort(0);
    assertSame(configured, IngressGroup.firstBind(configured, 1));
    HttpServerOptions fixed = new HttpServerOptions().setHost("127.0.0.1").setPort(6443);
    assertSame(fixed, IngressGroup.firstBind(fixed, 4));
    Vertx vertx = Vertx.vertx();
    try {
      HttpServerOptions bind = IngressGroup.firstBind(configured, 3);
      Listener a = new Listener(bind);
      Listener b = new Listener(bind);
      Listener c = new Listener(bind);
      for (Listener l : new Listener[] {a, b, c}) {
        vertx.deployVerticle(l).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      }
      int port = a.server.actualPort();
      assertTrue(port > 0, "port " + port);
      assertEquals(port, b.server.actualPort());
      assertEquals(port, c.server.actualPort());
      HttpResponse<String> r = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + port + "/")).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals("ok", r.body());
      // a second group gets a port of its own
      Listener other = new Listener(IngressGroup.firstBind(configured, 2));
      vertx.deployVerticle(other).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertTrue(other.server.actualPort() > 0 && other.server.actualPort() != port);
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }
}
