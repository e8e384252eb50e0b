package io.mvproxy.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.RequestOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Peer-hop trust (breaker F11): a service record can point a node's proxy at any address, so the peer-hop client
 * ({@link TlsOptions#peerClient}) must send nothing to an address whose serving certificate is not signed by
 * {@code --peer-ca-file}. Real TLS on loopback: a server with the fleet's serving cert gets the request; a server
 * with a serving cert of another CA (same names and SANs) and one presenting the fleet's own proxy-client cert never
 * see a request.
 */
@Tag("unit")
class PeerHopTrustTest {
  @Test
  void onlyServersWithACertificateOfThePeerCaGetProxiedRequests(@TempDir Path dir) throws Exception {
    DevPki fleet = new DevPki(dir.resolve("fleet"));
    fleet.generate(List.of("n1", "n2"), List.of(), Map.of());
    DevPki rogue = new DevPki(dir.resolve("rogue"));
    rogue.generate(List.of("n1", "n2"), List.of(), Map.of());
    Vertx vertx = Vertx.vertx();
    try {
      HttpClient client = vertx.createHttpClient(TlsOptions.peerClient(fleet.caCert().toString(),
          fleet.proxyClientCert("n1").toString(), fleet.proxyClientKey("n1").toString()), TlsOptions.peerPool());
      AtomicInteger genuineSeen = new AtomicInteger();
      AtomicInteger rogueSeen = new AtomicInteger();
      AtomicInteger clientCertSeen = new AtomicInteger();
      int genuine = listen(vertx, fleet.servingCert("n2"), fleet.servingKey("n2"), fleet, genuineSeen);
      int fake = listen(vertx, rogue.servingCert("n2"), rogue.servingKey("n2"), fleet, rogueSeen);
      int wrongUsage = listen(vertx, fleet.proxyClientCert("n2"), fleet.proxyClientKey("n2"), fleet, clientCertSeen);

      assertEquals(200, sendUntilAnswered(client, genuine).statusCode(), "the genuine peer answers");
      assertEquals(1, genuineSeen.get());
      for (int port : new int[] {fake, wrongUsage}) {
        Throwable e = sendFailure(client, port);
        assertTrue(String.valueOf(e).contains("SSL") || String.valueOf(e).contains("certificate")
            || e instanceof javax.net.ssl.SSLException, "refused in the handshake: " + e);
      }
      assertEquals(0, rogueSeen.get(), "a server with another CA's certificate got a proxied request");
      assertEquals(0, clientCertSeen.get(), "a server with a client-only certificate got a proxied request");
    } finally {
      vertx.close().await(20, TimeUnit.SECONDS);
    }
  }

  private static int listen(Vertx vertx, Path cert, Path key, DevPki fleet, AtomicInteger seen) throws Exception {
    HttpServer s = vertx.createHttpServer(TlsOptions.server(cert.toString(), key.toString(), null,
        fleet.frontProxyCaCert().toString()).setHost("127.0.0.1").setPort(0))
        .requestHandler(r -> {
          seen.incrementAndGet();
          r.response().end("ok");
        });
    return s.listen().await(20, TimeUnit.SECONDS).actualPort();
  }

  private static HttpClientResponse send(HttpClient client, int port) throws Exception {
    return client.request(new RequestOptions().setMethod(HttpMethod.GET).setHost("127.0.0.1").setPort(port)
        .setURI("/api/v1/namespaces/default/secrets")).compose(r -> r.send()).await(20, TimeUnit.SECONDS);
  }

  /** The first handshake of a cold JVM on a loaded machine can pass the 5 s peer handshake timeout: try again. */
  private static HttpClientResponse sendUntilAnswered(HttpClient client, int port) throws Exception {
    long end = System.currentTimeMillis() + 60_000;
    while (true) {
      try {
        return send(client, port);
      } catch (Exception e) {
        if (System.currentTimeMillis() > end) {
          throw e;
        }
      }
    }
  }

  private static Throwable sendFailure(HttpClient client, int port) {
    try {
      send(client, port);
    } catch (Exception e) {
      return e.getCause() != null ? e.getCause() : e;
    }
    throw new AssertionError("a request to port " + port + " was answered");
  }
}
