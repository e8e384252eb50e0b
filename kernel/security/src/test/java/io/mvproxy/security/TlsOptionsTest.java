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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
