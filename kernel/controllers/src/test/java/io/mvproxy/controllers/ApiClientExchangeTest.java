package io.mvproxy.controllers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.security.DevPki;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link ApiClient#exchange} over real TLS: the request goes out as given (no header of the client's own), the raw
 * response comes back (status, headers, non-JSON body), the client certificate is presented when given and not
 * otherwise, and a transport error fails the future.
 */
@Tag("unit")
class ApiClientExchangeTest {
  private static Vertx vertx;
  private static DevPki pki;
  private static HttpServer server;
  private static String url;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    pki = new DevPki(Files.createTempDirectory("apiclient-exchange"));
    pki.generate(List.of("node-a"), List.of(), Map.of());
    server = vertx.createHttpServer(new HttpServerOptions().setSsl(true).setHost("127.0.0.1")
            .setKeyCertOptions(new PemKeyCertOptions().setCertPath(pki.servingCert("node-a").toString())
                .setKeyPath(pki.servingKey("node-a").toString()))
            .setTrustOptions(new PemTrustOptions().addCertPath(pki.caCert().toString()))
            .setClientAuth(ClientAuth.REQUEST))
        .requestHandler(req -> req.body().onSuccess(body -> {
          String cn = "";
          try {
            cn = ((X509Certificate) req.connection().sslSession().getPeerCertificates()[0]).getSubjectX500Principal()
                .getName();
          } catch (Exception none) {
            // no client certificate
          }
          req.response().setStatusCode(418).putHeader("Content-Type", "text/plain")
              .putHeader("X-Seen", new JsonObject().put("method", req.method().name()).put("uri", req.uri())
                  .put("accept", req.getHeader("Accept")).put("agent", req.getHeader("User-Agent"))
                  .put("impersonate", req.getHeader("Impersonate-User")).put("cn", cn).encode())
              .end("not json: " + body);
        }))
        .listen(0).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    url = "https://127.0.0.1:" + server.actualPort();
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static HttpResponse<Buffer> exchange(ApiClient client, String server, Map<String, String> headers,
                                               String body) throws Exception {
    return client.exchange(server, HttpMethod.PATCH, "/api/v1/x?dryRun=All", headers,
        body == null ? null : Buffer.buffer(body), 5_000).toCompletionStage().toCompletableFuture()
        .get(15, TimeUnit.SECONDS);
  }

  @Test
  void sendsAsGivenAndAnswersTheRawResponse() throws Exception {
    try (ApiClient client = ApiClient.withCertificate(vertx, pki.caCert(), pki.adminCert(), pki.adminKey(), 5_000)) {
      HttpResponse<Buffer> r = exchange(client, url, Map.of("Impersonate-User", "bob"), "{\"a\":1}");
      assertEquals(418, r.statusCode());
      assertEquals("not json: {\"a\":1}", r.bodyAsString());
      JsonObject seen = new JsonObject(r.getHeader("X-Seen"));
      assertEquals("PATCH", seen.getString("method"));
      assertEquals("/api/v1/x?dryRun=All", seen.getString("uri"));
      assertEquals("bob", seen.getString("impersonate"));
      assertNull(seen.getString("accept"), "no Accept of the client's own");
      assertTrue(seen.getString("cn").contains("CN=admin"), seen.encode());
    }
  }

  @Test
  void withoutCertificateNoneIsPresented() throws Exception {
    try (ApiClient client = ApiClient.withCertificate(vertx, pki.caCert(), null, null, 5_000)) {
      JsonObject seen = new JsonObject(exchange(client, url, Map.of(), null).getHeader("X-Seen"));
      assertEquals("", seen.getString("cn"));
    }
  }

  @Test
  void aTransportErrorFailsTheFuture() throws Exception {
    int closed;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    try (ApiClient client = ApiClient.withCertificate(vertx, pki.caCert(), pki.adminCert(), pki.adminKey(), 5_000)) {
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> exchange(client, "https://127.0.0.1:" + closed, Map.of(), null));
      assertFalse(String.valueOf(e.getCause()).isEmpty());
    }
  }
}
