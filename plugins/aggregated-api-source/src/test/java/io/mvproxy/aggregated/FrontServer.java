package io.mvproxy.aggregated;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.UserInfo;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The node's side for tests: plain HTTP on 127.0.0.1:0 handing every {@code /apis/...} request to one source as
 * user {@code alice}; requests with header {@code X-Test-Buffer} first have their body read by a BodyHandler (as
 * the node's ingress does), others leave it unread.
 */
final class FrontServer {
  static final UserInfo ALICE = new UserInfo("alice", "uid-1", List.of("dev", "system:authenticated"),
      Map.of("scopes.example.com/team", List.of("blue")));
  final HttpServer server;
  final int port;

  FrontServer(Vertx vertx, ApiSource source) throws Exception {
    Router router = Router.router(vertx);
    BodyHandler body = BodyHandler.create(false);
    router.route("/apis/*").handler(ctx -> {
      if (ctx.request().getHeader("X-Test-Buffer") != null) {
        body.handle(ctx);
      } else {
        ctx.next();
      }
    }).handler(ctx -> source.handle(ctx, RequestInfo.parse(ctx.request().method().name(), ctx.request().path(),
        ctx.request().getParam("watch")), ALICE));
    server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1").await(30, TimeUnit.SECONDS);
    port = server.actualPort();
  }
}
