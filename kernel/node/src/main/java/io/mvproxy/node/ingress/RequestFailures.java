package io.mvproxy.node.ingress;

import io.mvproxy.api.StatusException;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import io.vertx.ext.web.RoutingContext;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The one place where an unexpected failure on the request path becomes an answer (kube-apiserver recovers panics
 * in {@code WithPanicRecovery} and answers {@code 500 InternalError}): router failures (exceptions thrown by a
 * handler, {@code ctx.fail}) and exceptions escaping asynchronous callbacks (a future's {@code onSuccess} that throws
 * is reported to Vert.x's exception handler, which finds the request through its duplicated context) are logged
 * once with the request's {@link AuditIds Audit-Id} and answered {@code 500 InternalError} Status; the stream is
 * reset when the head was already sent. Status failures keep their own code.
 */
public final class RequestFailures {
  private static final Logger LOG = Logger.getLogger(RequestFailures.class.getName());
  private static final Object LOCAL_KEY = new Object();

  private RequestFailures() {
  }

  /**
   * Routes exceptions that escape asynchronous callbacks on request contexts to their request.
   *
   * @param vertx the node's Vert.x (its exception handler is replaced)
   */
  public static void install(Vertx vertx) {
    vertx.exceptionHandler(RequestFailures::uncaught);
  }

  /** Records {@code ctx} on the current (per-request, duplicated) Vert.x context. @param ctx the request */
  static void bind(RoutingContext ctx) {
    Context c = Vertx.currentContext();
    if (c instanceof ContextInternal ci && ci.isDuplicate()) {
      ci.putLocal(LOCAL_KEY, ctx);
    }
  }

  /** Vert.x exception handler: answers the request of the current context, if any; logs the rest. */
  static void uncaught(Throwable t) {
    Context c = Vertx.currentContext();
    RoutingContext ctx = c instanceof ContextInternal ci && ci.isDuplicate() ? ci.getLocal(LOCAL_KEY) : null;
    if (ctx == null) {
      LOG.log(Level.WARNING, "unhandled exception outside a request", t);
      return;
    }
    answer(ctx, t);
  }

  /**
   * Router failure handler: answers {@code ctx.failure()} (or the failed status code).
   *
   * @param ctx the failed request
   */
  public static void onFailure(RoutingContext ctx) {
    Throwable t = ctx.failure();
    if (t == null) {
      StatusResponses.send(ctx, StatusResponses.forCode(ctx.statusCode()));
      return;
    }
    answer(ctx, t);
  }

  /** Logs {@code t} once (500s only) and answers the request if it is still open. */
  private static void answer(RoutingContext ctx, Throwable t) {
    StatusException se = t instanceof StatusException s ? s : null;
    if (se == null) {
      io.mvproxy.api.RequestScope.of(ctx).auditPanic(t);
    }
    if (se == null || se.code() >= 500) {
      if (!io.mvproxy.api.RequestScope.of(ctx).failureLogged()) {
        io.mvproxy.api.RequestScope.of(ctx).failureLogged(true);
        LOG.log(Level.SEVERE, "request " + ctx.request().method() + " " + ctx.request().path() + " (Audit-Id "
            + AuditIds.of(ctx) + ") failed", t);
      }
    }
    StatusResponses.send(ctx, se != null ? se : StatusException.internal(t));
  }

}
