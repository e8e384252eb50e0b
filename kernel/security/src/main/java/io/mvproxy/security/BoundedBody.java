package io.mvproxy.security;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import java.util.function.Function;

/**
 * Reads an outgoing call's answer up to a bound, so a peer that streams without end (a broken webhook, a runaway
 * APIService backend) cannot exhaust the node's memory: Go's {@code io.LimitReader} as kube-apiserver's webhook and
 * discovery clients use it.
 */
public final class BoundedBody {
  private BoundedBody() {
  }

  /**
   * @param resp      the response, not read yet
   * @param max       the most bytes accepted
   * @param tooLarge  makes the failure from its message {@code response body larger than <max> bytes}
   * @return the whole body; fails with {@code tooLarge} (and resets the request) when the {@code Content-Length}
   *     or the bytes streamed so far exceed {@code max}, or with the response's own error
   */
  public static Future<Buffer> read(HttpClientResponse resp, long max, Function<String, RuntimeException> tooLarge) {
    String message = "response body larger than " + max + " bytes";
    String cl = resp.getHeader("Content-Length");
    if (cl != null && cl.trim().matches("\\d{1,18}") && Long.parseLong(cl.trim()) > max) {
      resp.request().reset();
      return Future.failedFuture(tooLarge.apply(message));
    }
    Promise<Buffer> p = Promise.promise();
    Buffer acc = Buffer.buffer();
    resp.exceptionHandler(p::tryFail);
    resp.handler(chunk -> {
      if (p.future().isComplete()) {
        return;
      }
      if (acc.length() + (long) chunk.length() > max) {
        p.tryFail(tooLarge.apply(message));
        resp.request().reset();
      } else {
        acc.appendBuffer(chunk);
      }
    });
    resp.endHandler(v -> p.tryComplete(acc));
    return p.future();
  }
}
