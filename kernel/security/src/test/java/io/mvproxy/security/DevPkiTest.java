package io.mvproxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

@Tag("unit")
class DevPkiTest {
  private static final List<String> NODES = List.of("node-a", "node-b", "node-c");

  @Test
  void writesKubeadmLikeLayout(@TempDir Path dir) throws Exception {
    DevPki pki = new DevPki(dir);
    List<Path> written = pki.generate(NODES, List.of("10.1.2.3", "api.example.com", "[fd00::1]"), Map.of());
    for (String f : List.of("ca.crt", "ca.key", "front-proxy-ca.crt", "front-proxy-ca.key", "admin.crt", "admin.key",
        "kubeconfig", "README.md", "node-a.crt", "node-a.key", "node-c-proxy-client.crt", "node-c-proxy-client.key", "sa.key", "sa.pub",
        "cluster-secret")) {
      assertTrue(Files.isRegularFile(dir.resolve(f)), f);
      assertTrue(written.contains(dir.resolve(f)), f);
    }
    assertEquals(2 * 2 + 3 * 4 + 2 + 2 + 2 + 1, written.size());
    // the fleet secret: 32 random bytes, base64, readable by the owner only; kept when the PKI is generated again
    String secret = Files.readString(pki.clusterSecret()).strip();
    assertEquals(32, java.util.Base64.getDecoder().decode(secret).length);
    assertEquals(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"),
        Files.getPosixFilePermissions(pki.clusterSecret()));
    assertFalse(pki.generate(NODES, List.of(), Map.of()).contains(pki.clusterSecret()));
    assertEquals(secret, Files.readString(pki.clusterSecret()).strip());
    assertTrue(Files.readString(pki.serviceAccountPublicKey()).startsWith("-----BEGIN PUBLIC KEY-----"));
    assertTrue(Files.readString(pki.caCert()).startsWith("-----BEGIN CERTIFICATE-----"));
    assertTrue(Files.readString(dir.resolve("ca.key")).startsWith("-----BEGIN PRIVATE KEY-----"));

    X509Certificate ca = cert(pki.caCert());
    X509Certificate fp = cert(pki.frontProxyCaCert());
    assertNotEquals(ca.getSubjectX500Principal(), fp.getSubjectX500Principal());
    assertTrue(ca.getBasicConstraints() >= 0);
    assertEquals("EC", ca.getPublicKey().getAlgorithm());
    long days = TimeUnit.MILLISECONDS.toDays(ca.getNotAfter().getTime() - System.currentTimeMillis());
    assertTrue(days >= 364 && days <= 366, "validity ~1 year: " + days);

    X509Certificate serving = cert(pki.servingCert("node-b"));
    assertEquals("node-b", Pem.commonName(serving));
    assertEquals(List.of("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2"), serving.getExtendedKeyUsage());
    List<String> sans = new ArrayList<>();
    serving.getSubjectAlternativeNames().forEach(s -> sans.add(s.get(0) + "=" + s.get(1)));
    assertEquals(List.of("2=node-b", "2=localhost", "7=127.0.0.1", "7=10.1.2.3", "2=api.example.com", "7=fd00:0:0:0:0:0:0:1"), sans);
    serving.verify(ca.getPublicKey());

    X509Certificate proxy = cert(pki.proxyClientCert("node-b"));
    assertEquals(DevPki.PROXY_CLIENT_CN, Pem.commonName(proxy));
    assertEquals(List.of(), Pem.organizations(proxy));
    assertEquals(List.of("1.3.6.1.5.5.7.3.2"), proxy.getExtendedKeyUsage());
    proxy.verify(fp.getPublicKey());
    assertTrue(new ChainVerifier(List.of(fp)).verifies(List.of(proxy)));
    assertFalse(new ChainVerifier(List.of(ca)).verifies(List.of(proxy)));

    X509Certificate admin = cert(pki.adminCert());
    assertEquals("admin", Pem.commonName(admin));
    assertEquals(List.of("system:masters"), Pem.organizations(admin));
    assertTrue(new ChainVerifier(List.of(ca)).verifies(List.of(admin)));
    assertFalse(new ChainVerifier(List.of(fp)).verifies(List.of(admin)));
    // the key files load and match their certificates
    TlsOptions.keyCert(pki.adminCert().toString(), "c", pki.adminKey().toString(), "k");
  }

  @Test
  void isIdempotentAndFillsGaps(@TempDir Path dir) throws Exception {
    DevPki pki = new DevPki(dir);
    pki.generate(NODES, List.of(), Map.of());
    String caBefore = Files.readString(pki.caCert());
    String adminBefore = Files.readString(pki.adminCert());
    assertEquals(List.of(), pki.generate(NODES, List.of(), Map.of()));
    Files.delete(pki.servingKey("node-a"));
    List<Path> again = pki.generate(NODES, List.of(), Map.of());
    assertEquals(List.of(pki.servingKey("node-a"), pki.servingCert("node-a")), again);
    assertEquals(caBefore, Files.readString(pki.caCert()));
    assertEquals(adminBefore, Files.readString(pki.adminCert()));
    cert(pki.servingCert("node-a")).verify(cert(pki.caCert()).getPublicKey());
    // a new node is added without touching the other certificates; the kubeconfig gains its context
    List<Path> added = pki.generate(List.of("node-a", "node-d"), List.of(), Map.of());
    assertEquals(Set.of(pki.servingCert("node-d"), pki.servingKey("node-d"), pki.proxyClientCert("node-d"),
        pki.proxyClientKey("node-d"), pki.kubeconfig(), dir.resolve("README.md")), Set.copyOf(added));
    assertTrue(Files.readString(pki.kubeconfig()).contains("node-d"));
    assertEquals(List.of(), pki.generate(List.of("node-a", "node-d"), List.of(), Map.of()));
    // a regenerated CA re-issues what it signs (and the kubeconfig), not the front-proxy side
    Files.delete(pki.caCert());
    Files.delete(dir.resolve("ca.key"));
    Set<Path> reissued = Set.copyOf(pki.generate(NODES, List.of(), Map.of()));
    assertTrue(reissued.containsAll(Set.of(pki.caCert(), pki.adminCert(), pki.servingCert("node-a"),
        pki.servingCert("node-c"), pki.kubeconfig())), reissued.toString());
    assertFalse(reissued.contains(pki.proxyClientCert("node-a")));
    cert(pki.adminCert()).verify(cert(pki.caCert()).getPublicKey());
    Files.delete(pki.frontProxyCaCert());
    assertThrows(IllegalStateException.class, () -> pki.generate(NODES, List.of(), Map.of()));
  }

  /** A fleet started again on other ports (the rehearsal's runs) gets a kubeconfig naming them, not the last run's. */
  @Test
  void explicitServerUrlsRewriteAKubeconfigNamingOthers(@TempDir Path dir) throws Exception {
    DevPki pki = new DevPki(dir);
    Map<String, String> first = Map.of("node-a", "https://127.0.0.1:20001", "node-b", "https://127.0.0.1:20002",
        "node-c", "https://127.0.0.1:20003");
    pki.generate(NODES, List.of(), first);
    assertEquals(List.of(), pki.generate(NODES, List.of(), first), "same URLs: nothing written");
    assertEquals(List.of(), pki.generate(NODES, List.of(), Map.of()), "no URLs asked: the file is kept");
    Map<String, String> second = Map.of("node-a", "https://127.0.0.1:30001", "node-b", "https://127.0.0.1:30002",
        "node-c", "https://127.0.0.1:20003");
    assertTrue(pki.generate(NODES, List.of(), second).contains(pki.kubeconfig()));
    String text = Files.readString(pki.kubeconfig());
    assertTrue(text.contains("server: \"https://127.0.0.1:30001\"") && text.contains("https://127.0.0.1:30002")
        && !text.contains("20001"), text);
  }

  @Test
  void rejectsBadInput(@TempDir Path dir) {
    DevPki pki = new DevPki(dir);
    assertThrows(IllegalArgumentException.class, () -> pki.generate(List.of(), List.of(), Map.of()));
    assertThrows(IllegalArgumentException.class, () -> pki.generate(List.of("Node_A"), List.of(), Map.of()));
    assertThrows(IllegalArgumentException.class, () -> pki.generate(List.of("admin"), List.of(), Map.of()));
    assertThrows(IllegalArgumentException.class, () -> pki.generate(List.of("a", "a"), List.of(), Map.of()));
    assertThrows(IllegalArgumentException.class, () -> pki.generate(List.of("a"), List.of("bad name!"), Map.of()));
    assertThrows(IllegalArgumentException.class, () -> pki.generate(List.of("a"), List.of("10.0.0.256"), Map.of()));
    assertThrows(IllegalArgumentException.class, () -> pki.generate(List.of("a"), List.of("fe80::zz"), Map.of()));
    assertThrows(IllegalArgumentException.class,
        () -> new DevPki.Options(List.of("a"), null, null, Duration.ZERO));
  }

  @Test
  @SuppressWarnings("unchecked")
  void kubeconfigHasOneContextPerNode(@TempDir Path dir) throws Exception {
    DevPki pki = new DevPki(dir);
    pki.generate(NODES, List.of(), Map.of("node-b", "https://10.0.0.2:443"));
    Map<String, Object> kc = new Yaml().load(Files.readString(pki.kubeconfig()));
    assertEquals("Config", kc.get("kind"));
    assertEquals("node-a", kc.get("current-context"));
    List<Map<String, Object>> contexts = (List<Map<String, Object>>) kc.get("contexts");
    assertEquals(NODES, contexts.stream().map(c -> c.get("name")).toList());
    List<Map<String, Object>> clusters = (List<Map<String, Object>>) kc.get("clusters");
    List<Object> servers = clusters.stream().map(c -> ((Map<String, Object>) c.get("cluster")).get("server")).toList();
    assertEquals(List.of("https://127.0.0.1:6443", "https://10.0.0.2:443", "https://127.0.0.1:6445"), servers);
    String caData = (String) ((Map<String, Object>) clusters.get(0).get("cluster")).get("certificate-authority-data");
    assertEquals(Files.readString(pki.caCert()), new String(Base64.getDecoder().decode(caData),
        StandardCharsets.US_ASCII));
    Map<String, Object> user = (Map<String, Object>) ((List<Map<String, Object>>) kc.get("users")).get(0).get("user");
    assertEquals(Files.readString(pki.adminKey()),
        new String(Base64.getDecoder().decode((String) user.get("client-key-data")), StandardCharsets.US_ASCII));

    if (onPath("kubectl")) {
      Process p = new ProcessBuilder("kubectl", "config", "get-contexts", "-o", "name", "--kubeconfig",
          pki.kubeconfig().toString()).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(p.waitFor(30, TimeUnit.SECONDS));
      assertEquals(0, p.exitValue(), out);
      assertEquals(NODES, out.lines().toList());
    }
  }

  static X509Certificate cert(Path p) {
    return Pem.readCertificates(p, p.toString()).get(0);
  }

  static boolean onPath(String exe) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(d, exe))) {
        return true;
      }
    }
    return false;
  }
}
