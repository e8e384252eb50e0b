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
import org.junit.jupiter.api.Test;

/**
 * A client that trickles its request head a byte at a time is disconnected after the read-header timeout (the idle
 * timeout alone would never fire), while a kept-alive connection that already sent a request is left alone.
 */
class ReadHeaderTimeoutTest {
  static final long TIMEOUT_MS = 400;
  Vertx vertx;
  HttpServer server;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    ReadHeaderTimeout rht = new ReadHeaderTimeout(vertx, TIMEOUT_MS);
    server = vertx.createHttpServer(ServerLimits.apply(new io.vertx.core.http.HttpServerOptions()))
        .connectionHandler(rht::connected)
        .requestHandler(req -> {
          rht.arrived(req);
          req.response().end("ok");
        }).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void trickledHeadersAreCutOff() throws Exception {
    try (Socket s = new Socket("127.0.0.1", server.actualPort())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      long t0 = System.nanoTime();
      boolean closed = false;
      byte[] head = "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
          .getBytes(StandardCharsets.US_ASCII);
      for (byte b : head) {
        try {
          out.write(b);
          out.flush();
        } catch (java.io.IOException e) {
          closed = true;
          break;
        }
        Thread.sleep(50);
      }
      if (!closed) {
        closed = s.getInputStream().read() == -1;
      }
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(closed, "connection still open");
      assertTrue(ms >= TIMEOUT_MS && ms < 10_000, "closed after " + ms + " ms");
    }
  }

  @Test
  void keptAliveConnectionsStayOpen() throws Exception {
    try (Socket s = new Socket("127.0.0.1", server.actualPort())) {
      s.setSoTimeout(10_000);
      for (int i = 0; i < 2; i++) {
        s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        assertEquals("HTTP/1.1 200 OK", readLine(s.getInputStream()));
        while (!readLine(s.getInputStream()).isEmpty()) {
          // headers
        }
        s.getInputStream().readNBytes(2);
        Thread.sleep(TIMEOUT_MS * 2);
      }
    }
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
