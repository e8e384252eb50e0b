package io.mvproxy.node.ingress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.security.DevPki;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The ingress's TLS handshake limit is Go's for kube-apiserver (the read-header timeout, 32 s: {@code net/http}
 * bounds the handshake by the least positive of {@code ReadHeaderTimeout}, {@code ReadTimeout}, {@code WriteTimeout}),
 * not Vert.x's 10 s: a connection whose handshake has not finished (here: a raw socket that sends nothing, as a client
 * still queued behind a burst of handshakes) is closed at 32 s, not at 10 s, on a real TLS server. Follows {@code apiserver/pkg/server/secure_serving.go}.
 */
@Tag("fleet")
class TlsHandshakeTimeoutTest {
  Vertx vertx;
  HttpServer server;

  @BeforeEach
  void start() throws Exception {
    Path dir = Files.createTempDirectory("mvproxy-handshake-timeout");
    DevPki pki = new DevPki(dir.resolve("pki"));
    pki.generate(List.of("node-a"), List.of(), Map.of());
    vertx = Vertx.vertx();
    HttpServerOptions o = ServerLimits.apply(new HttpServerOptions().setSsl(true)
        .setKeyCertOptions(new PemKeyCertOptions().setCertPath(pki.servingCert("node-a").toString())
            .setKeyPath(pki.servingKey("node-a").toString())));
    assertEquals(ServerLimits.READ_HEADER_TIMEOUT_S, o.getSslHandshakeTimeout());
    assertEquals(TimeUnit.SECONDS, o.getSslHandshakeTimeoutUnit());
    server = vertx.createHttpServer(o).requestHandler(req -> req.response().end("ok"))
        .listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void unfinishedHandshakeIsClosedAtTheReadHeaderTimeout() throws Exception {
    long limitMs = ServerLimits.READ_HEADER_TIMEOUT_S * 1000L;
    try (Socket s = new Socket("127.0.0.1", server.actualPort())) {
      long t0 = System.nanoTime();
      s.setSoTimeout((int) limitMs + 20_000);
      // the server may send an alert first; the connection ends either way
      while (s.getInputStream().read() != -1) {
        assertTrue((System.nanoTime() - t0) / 1_000_000 < limitMs + 15_000, "still open");
      }
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ms >= limitMs - 500 && ms < limitMs + 15_000, "closed after " + ms + " ms, limit " + limitMs + " ms");
    }
  }
}
