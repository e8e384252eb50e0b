package io.mvproxy.node.ingress;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.vertx.core.http.HttpConnection;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The per-request connection timeouts of Go's {@code net/http} server as kube-apiserver configures it
 * ({@code apiserver/pkg/server/secure_serving.go}: {@code ReadHeaderTimeout} {@value ServerLimits#READ_HEADER_TIMEOUT_S}
 * s, {@code IdleTimeout} {@value ServerLimits#IDLE_TIMEOUT_S} s), on every HTTP/1.1 connection, as
 * {@code net/http/server.go conn.serve} applies them:
 * <ul>
 *   <li>from accept until the first request's head is complete: the read-header timeout;</li>
 *   <li>after a response ended, with no other request in progress: the idle timeout, until the next request's first
 *   byte arrives ({@code c.bufr.Peek(4)});</li>
 *   <li>from that first byte until its head is complete: the read-header timeout again (per request, not only the
 *   first);</li>
 *   <li>while a request is in progress (its body read, its response written, a watch silent for an hour): none.</li>
 * </ul>
 * When a timeout passes the connection is closed. This replaces Vert.x's idle timeout, which also counts the
 * silence inside a response: it closed every watch that had no event for 90 s (issue 7's 2,000-watch gap).
 *
 * <p>Two Netty handlers are put into the connection's pipeline: one before the HTTP decoder sees the first bytes of
 * a request, one before Vert.x's handler sees decoded request heads and the last part of each response. Both run
 * on the channel's event loop, which also runs the timers.
 *
 * <p>HTTP/2 connections (ALPN {@code h2}) get Go's h2 server rule instead ({@code x/net/http2/server.go}: the idle
 * timer runs only while no stream is open): {@code idleMs} after the last stream closed (or after the connection
 * opened without one) the connection is sent a GOAWAY (no error) and closed. Watches keep their connection open as
 * long as they last. {@link #goAway} (kube-apiserver's {@code --goaway-chance}) sends a graceful GOAWAY: streams in
 * flight finish, new ones go to a new connection, and the connection is closed {@value #GOAWAY_CLOSE_MS} ms after
 * its last stream ended (Go's {@code goAwayTimeout}).
 */
public final class ConnectionTimeouts {
  /** Name of the pipeline handler that sees raw request bytes. */
  public static final String BYTES_HANDLER = "mvproxy-request-bytes";
  /** Name of the pipeline handler that sees request heads and response ends. */
  public static final String MESSAGES_HANDLER = "mvproxy-request-messages";
  /** Milliseconds between a gracefully shut down h2 connection's last stream end and its close (Go: 1 s). */
  public static final long GOAWAY_CLOSE_MS = 1000;
  private static final io.netty.util.AttributeKey<H2> H2_STATE = io.netty.util.AttributeKey.valueOf("mvproxy-h2");
  private static final Logger LOG = Logger.getLogger(ConnectionTimeouts.class.getName());
  private static volatile boolean warned;

  private final long readHeaderMs;
  private final long idleMs;

  /**
   * @param readHeaderMs ms a request head may take from its first byte (from accept for the first request); &gt; 0
   * @param idleMs       ms a kept-alive connection may wait for the next request's first byte; 0 for no limit
   */
  public ConnectionTimeouts(long readHeaderMs, long idleMs) {
    this.readHeaderMs = readHeaderMs;
    this.idleMs = idleMs;
  }

  /** @return the timeouts kube-apiserver uses ({@link ServerLimits}) */
  public static ConnectionTimeouts kubeApiserver() {
    return new ConnectionTimeouts(ServerLimits.READ_HEADER_TIMEOUT_S * 1000L, ServerLimits.IDLE_TIMEOUT_S * 1000L);
  }

  /**
   * The server's connection handler: installs the timeouts on a new connection and starts the first request's
   * read-header clock.
   *
   * @param conn a connection just accepted (TLS handshake done)
   */
  public void connected(HttpConnection conn) {
    if (!(conn instanceof io.vertx.core.net.impl.ConnectionBase base)) {
      warnOnce("connection type " + conn.getClass().getName());
      return;
    }
    Channel ch = base.channel();
    if (ch.eventLoop().inEventLoop()) {
      install(ch, conn);
    } else {
      ch.eventLoop().execute(() -> install(ch, conn));
    }
  }

  /**
   * Sends a graceful GOAWAY on an HTTP/2 connection (no error code, last stream = the last the client opened):
   * the client opens new streams on a new connection; the streams in flight, watches included, finish; the
   * connection is closed {@value #GOAWAY_CLOSE_MS} ms after the last of them ended. No effect on HTTP/1.1
   * connections or connections already going away. Call on the connection's event loop (a request handler).
   *
   * @param conn an HTTP/2 connection of a server whose connection handler is {@link #connected}
   */
  public static void goAway(HttpConnection conn) {
    if (conn instanceof io.vertx.core.net.impl.ConnectionBase base) {
      H2 h2 = base.channel().attr(H2_STATE).get();
      if (h2 != null) {
        h2.goAway();
      }
    }
  }

  private void install(Channel ch, HttpConnection conn) {
    ChannelPipeline p = ch.pipeline();
    io.netty.handler.codec.http2.Http2ConnectionHandler h2 = p.get(io.netty.handler.codec.http2.Http2ConnectionHandler.class);
    if (h2 != null) {
      if (ch.isActive() && ch.attr(H2_STATE).get() == null) {
        H2 state = new H2(ch, conn, h2.connection());
        ch.attr(H2_STATE).set(state);
        state.start();
      }
      return;
    }
    if (!ch.isActive() || p.get("httpDecoder") == null || p.get("handler") == null || p.get(BYTES_HANDLER) != null) {
      if (ch.isActive() && p.get(BYTES_HANDLER) == null) {
        warnOnce("pipeline without an HTTP/1.x decoder: " + p.names());
      }
      return;
    }
    State s = new State(ch);
    p.addBefore("httpDecoder", BYTES_HANDLER, s.bytes);
    p.addBefore("handler", MESSAGES_HANDLER, s.messages);
    s.arm(readHeaderMs);
  }

  private static void warnOnce(String why) {
    if (!warned) {
      warned = true;
      LOG.warning("read-header and idle timeouts not installed (" + why + ")");
    }
  }

  /**
   * One HTTP/2 connection's idle rule: a timer armed while no stream is open. Touched on its event loop only (Netty
   * calls the stream listener there).
   */
  private final class H2 extends io.netty.handler.codec.http2.Http2ConnectionAdapter {
    final Channel ch;
    final HttpConnection conn;
    final io.netty.handler.codec.http2.Http2Connection h2;
    /** When the idle connection goes away, {@link System#nanoTime()}; 0 while a stream is open. */
    long idleDeadline;
    /**
     * When the scheduled check runs ({@link System#nanoTime()}), 0: none. One at a time, re-scheduled for a later
     * deadline (no task per stream); a check superseded by an earlier one does nothing.
     */
    long checkAt;
    /** True once a GOAWAY was sent: the connection closes when its last stream ended. */
    boolean goingAway;

    H2(Channel ch, HttpConnection conn, io.netty.handler.codec.http2.Http2Connection h2) {
      this.ch = ch;
      this.conn = conn;
      this.h2 = h2;
    }

    void start() {
      h2.addListener(this);
      if (h2.numActiveStreams() == 0) {
        idleFor(idleMs);
      }
    }

    @Override
    public void onStreamActive(io.netty.handler.codec.http2.Http2Stream stream) {
      idleDeadline = 0;
    }

    @Override
    public void onStreamClosed(io.netty.handler.codec.http2.Http2Stream stream) {
      if (h2.numActiveStreams() == 0) {
        idleFor(goingAway ? GOAWAY_CLOSE_MS : idleMs);
      }
    }

    void goAway() {
      if (goingAway || !ch.isActive()) {
        return;
      }
      goingAway = true;
      conn.goAway(0);
      if (h2.numActiveStreams() == 0) {
        idleFor(GOAWAY_CLOSE_MS);
      }
    }

    private void idleFor(long ms) {
      if (ms <= 0) {
        return;
      }
      idleDeadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
      if (checkAt == 0 || checkAt - idleDeadline > 0) {
        scheduleCheck(idleDeadline);
      }
    }

    private void scheduleCheck(long at) {
      checkAt = at;
      ch.eventLoop().schedule(() -> check(at), Math.max(0, at - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    private void check(long at) {
      if (at != checkAt) {
        return; // superseded by an earlier check
      }
      checkAt = 0;
      if (idleDeadline == 0 || h2.numActiveStreams() > 0 || !ch.isActive()) {
        return;
      }
      if (idleDeadline - System.nanoTime() > 0) {
        scheduleCheck(idleDeadline);
      } else if (goingAway) {
        ch.close();
      } else {
        // Go's idle rule: GOAWAY (no error), then the close once it had time to reach the client
        goingAway = true;
        conn.goAway(0);
        idleFor(GOAWAY_CLOSE_MS);
      }
    }
  }

  /** One connection's phase and timer; touched on its event loop only. */
  private final class State {
    final Channel ch;
    /** Requests whose head arrived and whose response has not ended (more than one when pipelined). */
    int active;
    /** True while the connection waits for a request's first byte (the idle phase). */
    boolean idle;
    /** When the connection is closed unless re-armed or cancelled, {@link System#nanoTime()}; 0: not armed. */
    long deadline;
    /** The scheduled check, at {@link #timerAt}; kept across re-arming (no schedule/cancel per request). */
    ScheduledFuture<?> timer;
    long timerAt;

    final ChannelInboundHandlerAdapter bytes = new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (idle && msg instanceof ByteBuf b && b.isReadable()) {
          idle = false;
          arm(readHeaderMs);
        }
        ctx.fireChannelRead(msg);
      }

      @Override
      public void channelInactive(ChannelHandlerContext ctx) {
        close();
        ctx.fireChannelInactive();
      }
    };

    final ChannelDuplexHandler messages = new ChannelDuplexHandler() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest) {
          active++;
          idle = false;
          cancel();
        }
        ctx.fireChannelRead(msg);
      }

      @Override
      public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof LastHttpContent && !(msg instanceof HttpResponse r
            && r.status().codeClass() == HttpStatusClass.INFORMATIONAL) && active > 0 && --active == 0) {
          idle = true;
          arm(idleMs);
        }
        ctx.write(msg, promise);
      }
    };

    State(Channel ch) {
      this.ch = ch;
    }

    /**
     * Sets the deadline {@code ms} from now (0: none). The event-loop task is scheduled only when none is pending
     * at or before the new deadline: re-arming on every request and response costs no timer operation; a pending
     * check that finds a later deadline reschedules itself for the rest.
     */
    void arm(long ms) {
      if (ms <= 0) {
        deadline = 0;
        return;
      }
      deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
      if (timer == null || timerAt - deadline > 0) {
        schedule(deadline);
      }
    }

    /** Disarms (the pending check, if any, then finds nothing to do and stops). */
    void cancel() {
      deadline = 0;
    }

    /** Disarms and drops the pending check: the connection is gone. */
    void close() {
      deadline = 0;
      if (timer != null) {
        timer.cancel(false);
        timer = null;
      }
    }

    private void schedule(long at) {
      if (timer != null) {
        timer.cancel(false);
      }
      timerAt = at;
      timer = ch.eventLoop().schedule(this::check, Math.max(0, at - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    private void check() {
      timer = null;
      if (deadline == 0) {
        return;
      }
      if (deadline - System.nanoTime() <= 0) {
        deadline = 0;
        ch.close();
      } else {
        schedule(deadline);
      }
    }
  }
}
