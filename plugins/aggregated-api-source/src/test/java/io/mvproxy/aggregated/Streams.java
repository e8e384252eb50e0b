package io.mvproxy.aggregated;

import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import java.util.concurrent.TimeUnit;

/** Opens a streaming GET (a watch) with its body handler attached before any chunk can arrive. */
final class Streams {
  private Streams() {
  }

  static HttpClientResponse open(Vertx vertx, HttpClient http, int port, String uri, Handler<Buffer> chunks)
      throws Exception {
    Promise<HttpClientResponse> head = Promise.promise();
    vertx.getOrCreateContext().runOnContext(v -> http.request(HttpMethod.GET, port, "127.0.0.1", uri)
        .onSuccess(req -> {
          req.response().onSuccess(r -> r.handler(chunks)).onComplete(head);
          req.end();
        }).onFailure(head::fail));
    return head.future().await(30, TimeUnit.SECONDS);
  }
}
