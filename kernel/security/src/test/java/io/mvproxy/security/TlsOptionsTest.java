package io.mvproxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpVersion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("unit")
class TlsOptionsTest {
  @Test
  void serverAndClientOptions(@TempDir Path dir) throws Exception {
    DevPki pki = new DevPki(dir);
    pki.generate(List.of("n1"), List.of(), Map.of());
    HttpServerOptions s = TlsOptions.server(pki.servingCert("n1").toString(), pki.servingKey("n1").toString(),
        pki.caCert().toString(), pki.frontProxyCaCert().toString());
    assertTrue(s.isSsl());
    assertEquals(Set.of("TLSv1.2", "TLSv1.3"), s.getEnabledSecureTransportProtocols());
    assertEquals(ClientAuth.REQUEST, s.getClientAuth());
    javax.net.ssl.X509TrustManager tm = (javax.net.ssl.X509TrustManager) s.getTrustOptions()
        .getTrustManagerFactory(null).getTrustManagers()[0];
    assertEquals(2, tm.getAcceptedIssuers().length, "both CAs advertised; chains are verified by the Authenticator");
    assertEquals(ClientAuth.NONE, TlsOptions.server(pki.servingCert("n1").toString(),
        pki.servingKey("n1").toString(), null, null).getClientAuth());

    HttpClientOptions c = TlsOptions.peerClient(pki.caCert().toString(), pki.proxyClientCert("n1").toString(),
        pki.proxyClientKey("n1").toString());
    assertTrue(c.isSsl() && c.isVerifyHost() && c.isKeepAlive());
    assertEquals(HttpVersion.HTTP_1_1, c.getProtocolVersion());
    assertEquals(2000, c.getConnectTimeout());
    assertEquals(Set.of("TLSv1.2", "TLSv1.3"), c.getEnabledSecureTransportProtocols());
    assertEquals(32, TlsOptions.peerPool().getHttp1MaxSize());
  }

  /**
   * Plain HTTP to the TLS port, on a real Vert.x HTTPS server with the ingress options: Go's exact answer for the five
   * request starts net/http recognises, a silent close for other bytes, and TLS still served on the same port.
   */
  @Test
  void plainHttpToTheTlsPortIsAnsweredAsGoDoes(@TempDir Path dir) throws Exception {
    DevPki pki = new DevPki(dir);
    pki.generate(List.of("n1"), List.of(), Map.of());
    io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
    try {
      HttpServerOptions o = TlsOptions.server(pki.servingCert("n1").toString(), pki.servingKey("n1").toString(),
          pki.caCert().toString(), null).setHost("127.0.0.1").setPort(0);
      io.vertx.core.http.HttpServer server = vertx.createHttpServer(o).requestHandler(r -> r.response().end("tls"))
          .listen().toCompletionStage().toCompletableFuture().get(30, java.util.concurrent.TimeUnit.SECONDS);
      int port = server.actualPort();
      record Case(String sent, String answer) {
      }
      for (Case c : List.of(new Case("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", PlainHttpAnswer.ANSWER),
          new Case("HEAD / HTTP/1.1\r\nHost: x\r\n\r\n", PlainHttpAnswer.ANSWER),
          new Case("POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
              PlainHttpAnswer.ANSWER),
          new Case("PUT /x HTTP/1.1\r\nHost: x\r\n\r\n", PlainHttpAnswer.ANSWER),
          new Case("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", PlainHttpAnswer.ANSWER),
          new Case("GET /", PlainHttpAnswer.ANSWER),
          new Case("DELETE /x HTTP/1.1\r\nHost: x\r\n\r\n", ""),
          new Case("PATCH /x HTTP/1.1\r\nHost: x\r\n\r\n", ""),
          new Case("get / HTTP/1.1\r\nHost: x\r\n\r\n", ""))) {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
          s.setSoTimeout(20_000);
          s.getOutputStream().write(c.sent().getBytes(java.nio.charset.StandardCharsets.US_ASCII));
          s.getOutputStream().flush();
          assertEquals(c.answer(), new String(s.getInputStream().readAllBytes(),
              java.nio.charset.StandardCharsets.ISO_8859_1), c.sent());
        }
      }
      io.vertx.core.http.HttpClient client = vertx.createHttpClient(new HttpClientOptions().setSsl(true)
          .setTrustOptions(new io.vertx.core.net.PemTrustOptions().addCertPath(pki.caCert().toString())));
      String body = client.request(io.vertx.core.http.HttpMethod.GET, port, "127.0.0.1", "/")
          .compose(r -> r.send().compose(io.vertx.core.http.HttpClientResponse::body))
          .toCompletionStage().toCompletableFuture().get(30, java.util.concurrent.TimeUnit.SECONDS).toString();
      assertEquals("tls", body);
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, java.util.concurrent.TimeUnit.SECONDS);
    }
  }

  @Test
  void errorsNameTheFlag(@TempDir Path dir) throws Exception {
    DevPki pki = new DevPki(dir);
    pki.generate(List.of("n1"), List.of(), Map.of());
    String crt = pki.servingCert("n1").toString();
    String key = pki.servingKey("n1").toString();
    String ca = pki.caCert().toString();
    Path garbage = dir.resolve("garbage.pem");
    Files.writeString(garbage, "not a pem file\n");
    Path missing = dir.resolve("missing.pem");
    expect("--tls-cert-file", () -> TlsOptions.server(missing.toString(), key, ca, null));
    expect("--tls-private-key-file", () -> TlsOptions.server(crt, garbage.toString(), ca, null));
    expect("--tls-private-key-file", () -> TlsOptions.server(crt, pki.adminKey().toString(), ca, null));
    expect("--client-ca-file", () -> TlsOptions.server(crt, key, garbage.toString(), null));
    expect("--requestheader-client-ca-file", () -> TlsOptions.server(crt, key, ca, missing.toString()));
    expect("--peer-ca-file", () -> TlsOptions.peerClient(null, crt, key));
    expect("--proxy-client-cert-file", () -> TlsOptions.peerClient(ca, garbage.toString(), key));
    expect("--proxy-client-key-file", () -> TlsOptions.peerClient(ca, crt, missing.toString()));
    expect("--client-ca-file", () -> Authenticator.fromFlags(missing.toString(), null, null, null));
    expect("--token-auth-file", () -> Authenticator.fromFlags(ca, null, null, missing.toString()));
  }

  private static void expect(String flag, Executable call) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
    assertTrue(e.getMessage().startsWith(flag), e.getMessage());
  }

  /** A call that may throw. */
  interface Executable {
    void run() throws Exception;
  }
}
