package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;

/**
 * Reads a request body up to a limit, failing with 413 RequestEntityTooLarge beyond it (Kubernetes:
 * 3 MiB, {@code apiserver/pkg/endpoints/handlers/rest.go limitedReadBody}).
 */
public final class BodyReader {
  private BodyReader() {
  }

  /**
   * @param ctx      the request (a body already read by a BodyHandler is used as is)
   * @param maxBytes limit in bytes
   * @return the body; failed with a 413 StatusException when larger than {@code maxBytes}
   */
  public static Future<Buffer> read(RoutingContext ctx, long maxBytes) {
    if (ctx.body() != null && ctx.body().available()) {
      Buffer b = ctx.body().buffer();
      b = b == null ? Buffer.buffer() : b;
      return b.length() > maxBytes ? Future.failedFuture(tooLarge(maxBytes)) : Future.succeededFuture(b);
    }
    HttpServerRequest req = ctx.request();
    String cl = req.getHeader("Content-Length");
    if (cl != null) {
      try {
        if (Long.parseLong(cl.trim()) > maxBytes) {
          return Future.failedFuture(tooLarge(maxBytes));
        }
      } catch (NumberFormatException e) {
        return Future.failedFuture(StatusException.badRequest("invalid Content-Length"));
      }
    }
    Promise<Buffer> p = Promise.promise();
    Buffer acc = Buffer.buffer();
    req.handler(chunk -> {
      if (acc.length() + chunk.length() > maxBytes) {
        req.handler(null);
        req.endHandler(null);
        p.tryFail(tooLarge(maxBytes));
        return;
      }
      acc.appendBuffer(chunk);
    });
    req.endHandler(v -> p.tryComplete(acc));
    req.exceptionHandler(p::tryFail);
    req.resume();
    return p.future();
  }

  private static StatusException tooLarge(long maxBytes) {
    return StatusException.tooLarge(maxBytes);
  }
}
