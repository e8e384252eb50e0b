package io.mvproxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.OpenSSLEngineOptions;
import io.vertx.core.net.PemTrustOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --tls-engine}: real handshakes on each engine between the ingress options ({@link TlsOptions#serverEngine},
 * ALPN h2 + http/1.1) and clients on the same engine: h2 negotiated through ALPN, HTTP/1.1 without it, the peer-hop
 * client's mutual TLS (the server sees its certificate), plain HTTP still answered as Go does, TLS 1.2 sessions
 * resumed ({@code openssl s_client -reconnect}, when the binary is there); an unknown engine fails naming the flag.
 */
@Tag("unit")
class TlsEngineTest {
  @Test
  void openSslIsAvailableHereAndUnknownEnginesFail() {
    assertInstanceOf(OpenSSLEngineOptions.class, TlsOptions.engine("openssl"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TlsOptions.engine("boring"));
    assertTrue(e.getMessage().startsWith("--tls-engine"), e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(strings = {"jdk", "openssl"})
  void handshakesOnTheEngine(String engine, @TempDir Path dir) throws Exception {
    DevPki pki = new DevPki(dir);
    pki.generate(List.of("n1"), List.of(), Map.of());
    Vertx vertx = Vertx.vertx();
    try {
      HttpServer server = vertx.createHttpServer(TlsOptions.serverEngine(TlsOptions.server(
              pki.servingCert("n1").toString(), pki.servingKey("n1").toString(), pki.caCert().toString(),
              pki.frontProxyCaCert().toString()), TlsOptions.engine(engine), true).setHost("127.0.0.1").setPort(0))
          .requestHandler(r -> r.response().end(r.version() + " " + peerCerts(r)))
          .listen().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      int port = server.actualPort();
      PemTrustOptions trust = new PemTrustOptions().addCertPath(pki.caCert().toString());
      HttpClientOptions h2 = new HttpClientOptions().setSsl(true).setUseAlpn(true).setProtocolVersion(HttpVersion.HTTP_2)
          .setTrustOptions(trust).setSslEngineOptions(TlsOptions.engine(engine));
      assertEquals("HTTP_2 0", get(vertx, h2, port));
      HttpClientOptions h1 = new HttpClientOptions().setSsl(true).setTrustOptions(trust)
          .setSslEngineOptions(TlsOptions.engine(engine));
      assertEquals("HTTP_1_1 0", get(vertx, h1, port));
      HttpClientOptions peer = TlsOptions.peerClient(pki.caCert().toString(), pki.proxyClientCert("n1").toString(),
          pki.proxyClientKey("n1").toString()).setVerifyHost(false);
      peer.setSslEngineOptions(TlsOptions.engine(engine));
      assertTrue(get(vertx, peer, port).matches("HTTP_1_1 [1-9]"), "the peer client's certificate reached the server");
      try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
        s.setSoTimeout(20_000);
        s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        assertEquals(PlainHttpAnswer.ANSWER, new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1));
      }
      assertResumes(port);
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  static int peerCerts(io.vertx.core.http.HttpServerRequest r) {
    try {
      return r.connection().peerCertificates() == null ? 0 : r.connection().peerCertificates().size();
    } catch (javax.net.ssl.SSLPeerUnverifiedException e) {
      return 0;
    }
  }

  static String get(Vertx vertx, HttpClientOptions o, int port) throws Exception {
    io.vertx.core.http.HttpClient c = vertx.createHttpClient(o);
    try {
      return c.request(HttpMethod.GET, port, "127.0.0.1", "/").compose(r -> r.send().compose(HttpClientResponse::body))
          .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS).toString();
    } finally {
      c.close();
    }
  }

  /** TLS 1.2 session resumption: {@code openssl s_client -reconnect} reconnects 5 times with the first session. */
  static void assertResumes(int port) throws Exception {
    Path openssl = Path.of("/usr/bin/openssl");
    if (!Files.isExecutable(openssl)) {
      return;
    }
    Process p = new ProcessBuilder(openssl.toString(), "s_client", "-connect", "127.0.0.1:" + port, "-tls1_2",
        "-reconnect").redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    long reused = out.lines().filter(l -> l.startsWith("Reused,")).count();
    assertTrue(reused >= 5, "sessions resumed: " + reused + "\n" + out);
  }
}
