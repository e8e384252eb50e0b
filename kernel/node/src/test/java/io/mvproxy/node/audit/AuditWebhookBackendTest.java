package io.mvproxy.node.audit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The webhook backend against a real HTTP receiver: EventList batches by size and by wait, the kubeconfig's token,
 * retries of 5xx, drops counted; kubeconfig reading.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("unit")
class AuditWebhookBackendTest {
  Vertx vertx;
  HttpServer server;
  final List<JsonObject> received = new CopyOnWriteArrayList<>();
  final List<String> auth = new CopyOnWriteArrayList<>();
  final AtomicInteger failNext = new AtomicInteger();

  @BeforeAll
  void start() throws Exception {
    vertx = Vertx.vertx();
    server = vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(b -> {
      auth.add(String.valueOf(req.getHeader("Authorization")));
      if (failNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        req.response().setStatusCode(503).end();
        return;
      }
      received.add(b.toJsonObject());
      req.response().setStatusCode(200).end("{}");
    })).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @AfterAll
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @BeforeEach
  void clear() {
    received.clear();
    auth.clear();
    failNext.set(0);
  }

  AuditWebhookBackend.Kubeconfig kubeconfig(Path dir) throws Exception {
    Path kc = Files.writeString(dir.resolve("webhook.kubeconfig"), """
        apiVersion: v1
        kind: Config
        current-context: audit
        clusters:
        - name: other
          cluster: {server: "https://192.0.2.1:1/nowhere"}
        - name: sink
          cluster: {server: "http://127.0.0.1:%d/audit?x=1"}
        users:
        - name: auditor
          user: {token: "s3cret"}
        contexts:
        - name: audit
          context: {cluster: sink, user: auditor}
        """.formatted(server.actualPort()));
    return AuditWebhookBackend.Kubeconfig.load(kc);
  }

  /** Polls a condition every 10 ms for up to 10 s; a time-out fails with "condition not met in 10 s". */
  static ConditionFactory within10s() {
    return await("condition not met in 10 s").pollInSameThread().pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(10)).atMost(Duration.ofSeconds(10));
  }

  @Test
  void batchesBySizeAndWaitAsEventListsWithTheToken(@TempDir Path dir) throws Exception {
    // a batch wait no pause of this thread between two events on a loaded machine reaches (the split is exact)
    AuditWebhookBackend b = new AuditWebhookBackend(vertx, kubeconfig(dir), 100, 3, Duration.ofSeconds(2),
        Duration.ofMillis(20), new SimpleMeterRegistry());
    for (int i = 0; i < 7; i++) {
      assertTrue(b.process(new JsonObject().put("kind", "Event").put("auditID", "id-" + i)));
    }
    within10s().until(() -> received.stream().mapToInt(l -> l.getJsonArray("items").size()).sum() == 7);
    assertEquals(List.of(3, 3, 1), received.stream().map(l -> l.getJsonArray("items").size()).toList());
    JsonObject first = received.get(0);
    assertEquals("EventList", first.getString("kind"));
    assertEquals("audit.k8s.io/v1", first.getString("apiVersion"));
    assertEquals("id-0", first.getJsonArray("items").getJsonObject(0).getString("auditID"));
    assertEquals("id-6", received.get(2).getJsonArray("items").getJsonObject(0).getString("auditID"));
    assertTrue(auth.stream().allMatch("Bearer s3cret"::equals), auth.toString());
    b.close();
    assertEquals(0, b.errors());
  }

  @Test
  void retriesServerErrorsThenDropsAndCounts(@TempDir Path dir) throws Exception {
    AuditWebhookBackend b = new AuditWebhookBackend(vertx, kubeconfig(dir), 100, 10, Duration.ofMillis(50),
        Duration.ofMillis(20), new SimpleMeterRegistry());
    failNext.set(2);
    b.process(new JsonObject().put("auditID", "retried"));
    within10s().until(() -> received.size() == 1);
    assertEquals(3, auth.size(), "two 503s, then delivered");
    failNext.set(100);
    b.process(new JsonObject().put("auditID", "lost"));
    b.process(new JsonObject().put("auditID", "lost-too"));
    within10s().until(() -> b.errors() == 2);
    assertEquals(1, received.size());
    b.close();
  }

  /**
   * Real mutual TLS: the receiver requires a client certificate from the development PKI's CA; the kubeconfig names
   * the CA and the client key pair by relative path. A receiver whose certificate the kubeconfig's CA did not sign gets
   * nothing (counted as errors).
   */
  @Test
  void mutualTlsFromTheKubeconfig(@TempDir Path dir) throws Exception {
    io.mvproxy.security.DevPki pki = new io.mvproxy.security.DevPki(dir.resolve("pki"));
    pki.generate(List.of("hook"), List.of(), java.util.Map.of());
    List<JsonObject> got = new CopyOnWriteArrayList<>();
    HttpServer tls = vertx.createHttpServer(new io.vertx.core.http.HttpServerOptions().setSsl(true)
            .setKeyCertOptions(new io.vertx.core.net.PemKeyCertOptions().setCertPath(pki.servingCert("hook").toString())
                .setKeyPath(pki.servingKey("hook").toString()))
            .setTrustOptions(new io.vertx.core.net.PemTrustOptions().addCertPath(pki.caCert().toString()))
            .setClientAuth(io.vertx.core.http.ClientAuth.REQUIRED))
        .requestHandler(req -> req.body().onSuccess(b -> {
          got.add(b.toJsonObject());
          req.response().end("{}");
        })).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    Path kc = Files.writeString(dir.resolve("kc.yaml"), "clusters:\n- name: c\n  cluster: {server: \"https://127.0.0.1:"
        + tls.actualPort() + "/\", certificate-authority: pki/ca.crt}\nusers:\n- name: u\n"
        + "  user: {client-certificate: pki/admin.crt, client-key: pki/admin.key}\n");
    AuditWebhookBackend b = new AuditWebhookBackend(vertx, AuditWebhookBackend.Kubeconfig.load(kc), 10, 10,
        Duration.ofMillis(10), Duration.ofMillis(10), new SimpleMeterRegistry());
    b.process(new JsonObject().put("auditID", "over-tls"));
    within10s().until(() -> got.size() == 1);
    assertEquals("over-tls", got.get(0).getJsonArray("items").getJsonObject(0).getString("auditID"));
    b.close();

    io.mvproxy.security.DevPki other = new io.mvproxy.security.DevPki(dir.resolve("other"));
    other.generate(List.of("x"), List.of(), java.util.Map.of());
    Path wrongCa = Files.writeString(dir.resolve("kc2.yaml"), Files.readString(kc).replace("pki/ca.crt", "other/ca.crt"));
    AuditWebhookBackend untrusted = new AuditWebhookBackend(vertx, AuditWebhookBackend.Kubeconfig.load(wrongCa), 10,
        10, Duration.ofMillis(10), Duration.ofMillis(10), new SimpleMeterRegistry());
    untrusted.process(new JsonObject().put("auditID", "never"));
    within10s().until(() -> untrusted.errors() == 1);
    assertEquals(1, got.size());
    untrusted.close();
    tls.close();
  }

  @Test
  void kubeconfigFilesAndDataAndErrors(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("ca.crt"), "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
    Path kc = Files.writeString(dir.resolve("kc.yaml"), """
        clusters:
        - name: c
          cluster: {server: "https://audit.example:8443/events", certificate-authority: ca.crt}
        users:
        - name: u
          user: {client-certificate-data: "%s", client-key-data: "%s"}
        """.formatted(java.util.Base64.getEncoder().encodeToString("CERT".getBytes()),
        java.util.Base64.getEncoder().encodeToString("KEY".getBytes())));
    AuditWebhookBackend.Kubeconfig k = AuditWebhookBackend.Kubeconfig.load(kc);
    assertEquals("https://audit.example:8443/events", k.server().toString());
    assertTrue(k.ca().toString().contains("BEGIN CERTIFICATE"));
    assertEquals("CERT", k.cert().toString());
    assertEquals("KEY", k.key().toString());
    Path bad = Files.writeString(dir.resolve("bad.yaml"), "clusters:\n- name: c\n  cluster: {server: \"ftp://x\"}\n");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> AuditWebhookBackend.Kubeconfig.load(bad));
    assertTrue(e.getMessage().contains("is not an http(s) URL"), e.getMessage());
  }
}
