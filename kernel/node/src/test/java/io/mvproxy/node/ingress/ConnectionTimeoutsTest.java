package io.mvproxy.node.ingress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Go's per-request read-header and idle timeouts on a real Vert.x server (raw sockets as the client, so the timing
 * of every byte is the test's): a head trickled a byte at a time is cut off after the read-header timeout, on the
 * first request of a connection and on a later one; a kept-alive connection is closed after the idle timeout and
 * not before; a response that stays silent much longer than the idle timeout (a watch without events) is not cut.
 */
@Tag("fleet")
class ConnectionTimeoutsTest {
  static final long HEADER_MS = 400;
  static final long IDLE_MS = 2500;
  static final byte[] REQUEST = "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
  Vertx vertx;
  HttpServer server;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    ConnectionTimeouts timeouts = new ConnectionTimeouts(HEADER_MS, IDLE_MS);
    server = vertx.createHttpServer(ServerLimits.apply(new io.vertx.core.http.HttpServerOptions()))
        .connectionHandler(timeouts::connected)
        .requestHandler(req -> {
          if (req.path().equals("/silent")) {
            req.response().setChunked(true).writeHead();
            vertx.setTimer(IDLE_MS * 2, t -> req.response().end("late"));
          } else {
            req.response().end("ok");
          }
        }).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void trickledFirstHeadIsCutOff() throws Exception {
    long t0 = System.nanoTime(); // before connecting: the first head's clock starts at accept
    try (Socket s = socket()) {
      trickle(s);
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ms >= HEADER_MS && ms < IDLE_MS, "closed after " + ms + " ms");
    }
  }

  @Test
  void trickledLaterHeadIsCutOff() throws Exception {
    try (Socket s = socket()) {
      assertEquals("ok", exchange(s, REQUEST));
      long ms = trickle(s);
      assertTrue(ms >= HEADER_MS && ms < IDLE_MS, "second head closed after " + ms + " ms (idle timeout: " + IDLE_MS
          + " ms)");
    }
  }

  @Test
  void idleConnectionIsClosedAfterIdleTimeout() throws Exception {
    try (Socket s = socket()) {
      long t0 = System.nanoTime(); // before the request: the server's idle clock starts at the end of its response
      assertEquals("ok", exchange(s, REQUEST));
      assertEquals(-1, s.getInputStream().read());
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ms >= IDLE_MS && ms < 10_000, "closed " + ms + " ms after the request was sent");
    }
  }

  @Test
  void keptAliveConnectionWithinIdleTimeoutStaysOpen() throws Exception {
    try (Socket s = socket()) {
      for (int i = 0; i < 3; i++) {
        assertEquals("ok", exchange(s, REQUEST));
        Thread.sleep(HEADER_MS * 2); // the client's pause between requests: longer than a head may take
      }
    }
  }

  @Test
  void silentResponseOutlivesIdleTimeout() throws Exception {
    try (Socket s = socket()) {
      long t0 = System.nanoTime();
      assertEquals("late", exchange(s, "GET /silent HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
      assertTrue((System.nanoTime() - t0) / 1_000_000 >= IDLE_MS * 2);
      assertEquals("ok", exchange(s, REQUEST), "connection still usable after the long response");
    }
  }

  private Socket socket() throws Exception {
    Socket s = new Socket("127.0.0.1", server.actualPort());
    s.setSoTimeout(20_000);
    return s;
  }

  /** Sends a head a byte every 50 ms until the server closes; @return ms until it did */
  private static long trickle(Socket s) throws Exception {
    OutputStream out = s.getOutputStream();
    long t0 = System.nanoTime();
    boolean closed = false;
    byte[] head = ("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + "a".repeat(200)).getBytes(StandardCharsets.US_ASCII);
    for (byte b : head) {
      try {
        out.write(b);
        out.flush();
      } catch (java.io.IOException e) {
        closed = true;
        break;
      }
      Thread.sleep(50); // the slow client itself
    }
    if (!closed) {
      closed = s.getInputStream().read() == -1;
    }
    assertTrue(closed, "connection still open");
    return (System.nanoTime() - t0) / 1_000_000;
  }

  /** Sends one request and reads its (chunked or fixed-length) body. */
  private static String exchange(Socket s, byte[] request) throws Exception {
    s.getOutputStream().write(request);
    s.getOutputStream().flush();
    InputStream in = s.getInputStream();
    assertEquals("HTTP/1.1 200 OK", readLine(in));
    int length = -1;
    boolean chunked = false;
    for (String h = readLine(in); !h.isEmpty(); h = readLine(in)) {
      String l = h.toLowerCase();
      if (l.startsWith("content-length:")) {
        length = Integer.parseInt(l.substring(15).trim());
      } else if (l.equals("transfer-encoding: chunked")) {
        chunked = true;
      }
    }
    if (!chunked) {
      return new String(in.readNBytes(length), StandardCharsets.US_ASCII);
    }
    StringBuilder body = new StringBuilder();
    for (int n = Integer.parseInt(readLine(in).trim(), 16); n > 0; n = Integer.parseInt(readLine(in).trim(), 16)) {
      body.append(new String(in.readNBytes(n), StandardCharsets.US_ASCII));
      readLine(in);
    }
    readLine(in);
    return body.toString();
  }

  static String readLine(InputStream in) throws Exception {
    StringBuilder b = new StringBuilder();
    for (int c = in.read(); c != '\n' && c >= 0; c = in.read()) {
      if (c != '\r') {
        b.append((char) c);
      }
    }
    return b.toString();
  }
}
