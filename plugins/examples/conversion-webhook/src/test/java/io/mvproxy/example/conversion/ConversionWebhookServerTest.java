package io.mvproxy.example.conversion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.mvproxy.security.DevPki;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemTrustOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The sample conversion webhook over real HTTPS on 127.0.0.1 (a DevPki serving certificate, its CA trusted). */
@Tag("unit")
class ConversionWebhookServerTest {

  static JsonObject gizmo(String apiVersion, String field, int value) {
    return new JsonObject().put("apiVersion", apiVersion).put("kind", "Gizmo")
        .put("metadata", new JsonObject().put("name", "g1").put("uid", "u1"))
        .put("spec", new JsonObject().put(field, value).put("color", "red"));
  }

  @Test
  void convertsBothWaysOverHttps() throws Exception {
    Path dir = Files.createTempDirectory("conversion-webhook-pki");
    DevPki pki = new DevPki(dir);
    pki.generate(List.of("hook"), List.of(), Map.of());
    Vertx vertx = Vertx.vertx();
    try {
      HttpServer s = ConversionWebhookServer.start(vertx, "127.0.0.1", 0, pki.servingCert("hook").toString(),
          pki.servingKey("hook").toString()).await(30, TimeUnit.SECONDS);
      HttpClient c = vertx.createHttpClient(new HttpClientOptions().setSsl(true).setVerifyHost(true)
          .setTrustOptions(new PemTrustOptions().addCertPath(pki.caCert().toString())));
      JsonObject review = new JsonObject().put("apiVersion", "apiextensions.k8s.io/v1").put("kind", "ConversionReview")
          .put("request", new JsonObject().put("uid", "abc").put("desiredAPIVersion", "demo.mvproxy.io/v2")
              .put("objects", new JsonArray().add(gizmo("demo.mvproxy.io/v1", "size", 3))
                  .add(gizmo("demo.mvproxy.io/v2", "diameter", 4))));
      JsonObject answer = c.request(new RequestOptions().setMethod(HttpMethod.POST)
              .setAbsoluteURI("https://127.0.0.1:" + s.actualPort() + "/convert?timeout=30s"))
          .compose(r -> r.send(review.toBuffer()).compose(x -> x.body())).await(30, TimeUnit.SECONDS).toJsonObject();
      JsonObject resp = answer.getJsonObject("response");
      assertEquals("ConversionReview", answer.getString("kind"));
      assertEquals("abc", resp.getString("uid"));
      assertEquals("Success", resp.getJsonObject("result").getString("status"));
      JsonObject first = resp.getJsonArray("convertedObjects").getJsonObject(0);
      assertEquals("demo.mvproxy.io/v2", first.getString("apiVersion"));
      assertEquals(3, first.getJsonObject("spec").getInteger("diameter"));
      assertFalse(first.getJsonObject("spec").containsKey("size"));
      assertEquals("red", first.getJsonObject("spec").getString("color"));
      assertEquals(4, resp.getJsonArray("convertedObjects").getJsonObject(1).getJsonObject("spec")
          .getInteger("diameter"));
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void backToV1AndUnknownVersionsFail() {
    JsonObject v1 = ConversionWebhookServer.convert(gizmo("demo.mvproxy.io/v2", "diameter", 7), "demo.mvproxy.io/v1");
    assertEquals(7, v1.getJsonObject("spec").getInteger("size"));
    JsonObject failed = ConversionWebhookServer.review(new JsonObject().put("apiVersion", "apiextensions.k8s.io/v1")
        .put("request", new JsonObject().put("uid", "x").put("desiredAPIVersion", "demo.mvproxy.io/v9")
            .put("objects", new JsonArray().add(gizmo("demo.mvproxy.io/v1", "size", 1)))));
    JsonObject result = failed.getJsonObject("response").getJsonObject("result");
    assertEquals("Failure", result.getString("status"));
    assertEquals("unexpected conversion from demo.mvproxy.io/v1 to demo.mvproxy.io/v9", result.getString("message"));
  }
}
