package io.mvproxy.node;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mvproxy.security.DevPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link TlsWarmUp}: the in-memory handshakes complete with a development PKI's serving pair, with or without its CA. */
@Tag("unit")
class TlsWarmUpTest {
  @TempDir
  Path dir;

  @Test
  void handshakesCompleteWithTheNodesOwnKeyPair() throws Exception {
    DevPki pki = new DevPki(dir.resolve("pki"));
    pki.generate(List.of("node-a"), List.of(), Map.of());
    // mutual TLS (both sides present the serving pair, verified against the CA), TLS 1.3 then 1.2
    assertDoesNotThrow(() -> TlsWarmUp.run(pki.servingCert("node-a"), pki.servingKey("node-a"), pki.caCert()));
    // no CA configured: server authentication only
    assertDoesNotThrow(() -> TlsWarmUp.run(pki.servingCert("node-a"), pki.servingKey("node-a"), null));
  }

  @Test
  void unreadableKeyFailsTheRunNotTheCaller() throws Exception {
    DevPki pki = new DevPki(dir.resolve("pki"));
    pki.generate(List.of("node-a"), List.of(), Map.of());
    Path missing = dir.resolve("missing.key");
    assertThrows(IllegalArgumentException.class, () -> TlsWarmUp.run(pki.servingCert("node-a"), missing, null));
    TlsWarmUp.start(pki.servingCert("node-a"), missing, null); // logged at FINE on its thread, nothing thrown here
    TlsWarmUp.start(null, null, null);
    Files.deleteIfExists(missing);
  }
}
