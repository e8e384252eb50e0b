package io.mvproxy.node.ingress;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Go's {@code http.Server.ReadHeaderTimeout} (kube-apiserver: {@value ServerLimits#READ_HEADER_TIMEOUT_S} s): a
 * connection that has not delivered its first complete request head within the timeout of being accepted is
 * closed. Without it a client sending its headers a byte at a time holds a connection forever (the idle timeout
 * restarts on every byte). Later requests on a kept-alive connection are bounded by the idle timeout only: Vert.x
 * does not report the first byte of the next request, and closing idle keep-alive connections sooner than
 * {@value ServerLimits#IDLE_TIMEOUT_S} s would break pooled clients.
 */
public final class ReadHeaderTimeout {
  private final Vertx vertx;
  private final long timeoutMs;
  private final Map<HttpConnection, Long> timers = new ConcurrentHashMap<>();

  /**
   * @param vertx     timers
   * @param timeoutMs ms allowed for a request head
   */
  public ReadHeaderTimeout(Vertx vertx, long timeoutMs) {
    this.vertx = vertx;
    this.timeoutMs = timeoutMs;
  }

  /** The server's connection handler: starts the clock. @param conn a new connection */
  public void connected(HttpConnection conn) {
    arm(conn);
    conn.closeHandler(v -> cancel(conn));
  }

  /** A request head arrived on its connection: stops the clock. @param req the request */
  public void arrived(HttpServerRequest req) {
    cancel(req.connection());
  }

  private void arm(HttpConnection conn) {
    long id = vertx.setTimer(timeoutMs, t -> {
      if (timers.remove(conn) != null) {
        conn.close();
      }
    });
    Long old = timers.put(conn, id);
    if (old != null) {
      vertx.cancelTimer(old);
    }
  }

  private void cancel(HttpConnection conn) {
    Long t = conn == null ? null : timers.remove(conn);
    if (t != null) {
      vertx.cancelTimer(t);
    }
  }
}
