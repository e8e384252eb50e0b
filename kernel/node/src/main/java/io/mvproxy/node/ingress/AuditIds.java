package io.mvproxy.node.ingress;

import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Gives every request an ID, returned in the {@value #HEADER} response header and used in log lines, as
 * kube-apiserver's {@code WithAuditInit} ({@code apiserver/pkg/endpoints/filters/audit_init.go}): the client's own
 * {@code Audit-Id} is kept when it is a plausible ID (1-64 letters, digits, {@code -}), else a random UUID. The ID
 * is also set on the request, so a peer or backend the request is forwarded to uses the same one, and the answer
 * carries it once (a relayed peer answer's own {@code Audit-Id} is replaced). Also binds the request to its Vert.x
 * context for {@link RequestFailures}.
 */
public final class AuditIds implements Handler<RoutingContext> {
  /** The response (and optional request) header carrying the ID. */
  public static final String HEADER = "Audit-Id";
  private static final Pattern PLAUSIBLE = Pattern.compile("[A-Za-z0-9-]{1,64}");

  @Override
  public void handle(RoutingContext ctx) {
    String sent = ctx.request().getHeader(HEADER);
    String id = sent != null && PLAUSIBLE.matcher(sent).matches() ? sent : randomId();
    io.mvproxy.api.RequestScope.of(ctx).auditId(id);
    ctx.request().headers().set(HEADER, id);
    ctx.response().putHeader(HEADER, id);
    ctx.addHeadersEndHandler(v -> ctx.response().headers().set(HEADER, id));
    RequestFailures.bind(ctx);
    ctx.next();
  }

  /** @param ctx a request @return its ID, or {@code "-"} before {@link AuditIds} ran */
  public static String of(RoutingContext ctx) {
    String id = io.mvproxy.api.RequestScope.of(ctx).auditId();
    return id == null ? "-" : id;
  }

  /**
   * @return a random (version 4) UUID from the event loop's {@link java.util.concurrent.ThreadLocalRandom}: unique
   *         enough for a request ID, and unlike {@link UUID#randomUUID()} it never reads {@code /dev/urandom} on the
   *         event loop (seen blocking 41 ms in a profile)
   */
  static String randomId() {
    java.util.concurrent.ThreadLocalRandom r = java.util.concurrent.ThreadLocalRandom.current();
    long msb = (r.nextLong() & 0xffffffffffff0fffL) | 0x0000000000004000L;
    long lsb = (r.nextLong() & 0x3fffffffffffffffL) | 0x8000000000000000L;
    return new UUID(msb, lsb).toString();
  }
}
