package io.mvproxy.node.proxy;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * PING health checks of the HTTP/2 peer hop, as client-go sets up Go's transport
 * ({@code k8s.io/apimachinery/pkg/util/net/http.go} {@code SetTransportDefaults}: {@code ReadIdleTimeout} 30 s,
 * {@code PingTimeout} 15 s): every {@link #INTERVAL_MS} a PING is sent on each h2 connection to a peer, and a
 * connection whose PING is not answered within {@link #TIMEOUT_MS} is closed, so requests and watches on a peer that
 * stopped answering (frozen process, lost route: TCP itself would wait minutes) fail over instead of hanging. HTTP/1.1
 * connections (a peer that did not negotiate h2) have no PING: the first attempt stops the checks.
 */
final class PeerPing {
  /** Interval between PINGs on one connection, ms (client-go's ReadIdleTimeout). */
  static final long INTERVAL_MS = 30_000;
  /** How long a PING may go unanswered before the connection is closed, ms (client-go's PingTimeout). */
  static final long TIMEOUT_MS = 15_000;
  private static final Logger LOG = Logger.getLogger(PeerPing.class.getName());
  private static final AtomicLong SEQ = new AtomicLong();

  private PeerPing() {
  }

  /**
   * Starts the checks of one new connection (called on its context by the client's connect handler); they stop
   * when it closes.
   *
   * @param vertx timers
   * @param conn  a new connection to a peer
   */
  static void start(Vertx vertx, HttpConnection conn) {
    long periodic = vertx.setPeriodic(INTERVAL_MS, id -> ping(vertx, conn, id));
    conn.closeHandler(v -> vertx.cancelTimer(periodic));
  }

  private static void ping(Vertx vertx, HttpConnection conn, long periodic) {
    long timeout = vertx.setTimer(TIMEOUT_MS, x -> {
      LOG.warning("peer connection to " + conn.remoteAddress() + " did not answer a PING within " + TIMEOUT_MS
          + " ms: closed");
      vertx.cancelTimer(periodic);
      conn.close();
    });
    Buffer payload;
    try {
      payload = Buffer.buffer(8).appendLong(SEQ.incrementAndGet());
      conn.ping(payload).onComplete(ar -> {
        vertx.cancelTimer(timeout);
        if (ar.failed() && !(ar.cause() instanceof io.vertx.core.http.HttpClosedException)) {
          vertx.cancelTimer(periodic); // not h2 (HTTP/1.1 has no PING): no checks on this connection
        }
      });
    } catch (RuntimeException e) { // HTTP/1.1 connections may refuse ping() at once
      vertx.cancelTimer(timeout);
      vertx.cancelTimer(periodic);
    }
  }
}
