package io.mvproxy.crd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.registry.impl.CrdSourceOptions;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PfxOptions;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A CRD with {@code conversion.strategy: Webhook} served over HTTP by one node, against a real HTTPS conversion
 * webhook on 127.0.0.1 renaming v1 {@code spec.size} to v2 {@code spec.diameter}: objects stored in v1 whatever
 * version they are written in, read, listed (one ConversionReview per list) and watched in either version, updated
 * and patched in v2; a webhook that cannot be reached answers kube's 500 and stores nothing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("unit")
class ConversionWebhookRestTest {
  static final String V1 = "/apis/conv.example.com/v1/namespaces/ns1/gizmos";
  static final String V2 = "/apis/conv.example.com/v2/namespaces/ns1/gizmos";
  @AutoClose
  TestNode node;
  Http http;
  Vertx hookVertx;
  HttpServer hook;
  final List<JsonObject> reviews = new CopyOnWriteArrayList<>();
  int downPort;

  @BeforeAll
  void start() throws Exception {
    hookVertx = Vertx.vertx();
    Path store = selfSigned("conv");
    String ca = Base64.getEncoder().encodeToString(Files.readAllBytes(store.resolveSibling("conv.pem")));
    hook = hookVertx.createHttpServer(new HttpServerOptions().setSsl(true).setKeyCertOptions(new PfxOptions()
            .setPath(store.toString()).setPassword("changeit")))
        .requestHandler(req -> req.body().onSuccess(b -> {
          JsonObject review = b.toJsonObject();
          reviews.add(review);
          JsonObject r = review.getJsonObject("request");
          String desired = r.getString("desiredAPIVersion");
          JsonArray out = new JsonArray();
          for (Object o : r.getJsonArray("objects")) {
            JsonObject c = ((JsonObject) o).copy();
            JsonObject spec = c.getJsonObject("spec", new JsonObject());
            if (desired.endsWith("/v2") && spec.containsKey("size")) {
              spec.put("diameter", spec.remove("size"));
            } else if (desired.endsWith("/v1") && spec.containsKey("diameter")) {
              spec.put("size", spec.remove("diameter"));
            }
            out.add(c.put("apiVersion", desired));
          }
          req.response().putHeader("Content-Type", "application/json").end(new JsonObject()
              .put("apiVersion", "apiextensions.k8s.io/v1").put("kind", "ConversionReview")
              .put("response", new JsonObject().put("uid", r.getString("uid")).put("convertedObjects", out)
                  .put("result", new JsonObject().put("status", "Success"))).encode());
        }))
        .listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      downPort = s.getLocalPort();
    }
    node = TestNode.withOwnMember(CrdSourceOptions.DEFAULTS.withBookmarkIntervalMs(300));
    node.add(crd("gizmos", "Gizmo", "https://127.0.0.1:" + hook.actualPort() + "/convert", ca));
    node.add(crd("brokens", "Broken", "https://127.0.0.1:" + downPort + "/convert", ca));
    http = new Http(node.base());
  }

  @AfterAll
  void stop() throws Exception {
    hookVertx.close().await(10, TimeUnit.SECONDS);
  }

  static JsonObject crd(String plural, String kind, String url, String ca) {
    JsonObject v1 = new JsonObject().put("openAPIV3Schema", new JsonObject().put("type", "object")
        .put("properties", new JsonObject().put("spec", new JsonObject().put("type", "object")
            .put("properties", new JsonObject().put("size", new JsonObject().put("type", "integer"))))));
    JsonObject v2 = new JsonObject().put("openAPIV3Schema", new JsonObject().put("type", "object")
        .put("properties", new JsonObject().put("spec", new JsonObject().put("type", "object")
            .put("properties", new JsonObject().put("diameter", new JsonObject().put("type", "integer"))))));
    return new JsonObject().put("apiVersion", "apiextensions.k8s.io/v1").put("kind", "CustomResourceDefinition")
        .put("metadata", new JsonObject().put("name", plural + ".conv.example.com"))
        .put("spec", new JsonObject().put("group", "conv.example.com").put("scope", "Namespaced")
            .put("names", new JsonObject().put("plural", plural).put("kind", kind))
            .put("versions", new JsonArray()
                .add(new JsonObject().put("name", "v1").put("served", true).put("storage", true).put("schema", v1))
                .add(new JsonObject().put("name", "v2").put("served", true).put("storage", false).put("schema", v2)))
            .put("conversion", new JsonObject().put("strategy", "Webhook").put("webhook", new JsonObject()
                .put("conversionReviewVersions", new JsonArray().add("v1"))
                .put("clientConfig", new JsonObject().put("url", url).put("caBundle", ca)))));
  }

  static Path selfSigned(String name) throws Exception {
    Path dir = Files.createTempDirectory("mvproxy-conversion-tls");
    Path p12 = dir.resolve(name + ".p12");
    String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    for (List<String> cmd : List.of(
        List.of(keytool, "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
            "CN=" + name, "-ext", "san=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore",
            p12.toString(), "-storepass", "changeit", "-keypass", "changeit"),
        List.of(keytool, "-exportcert", "-rfc", "-alias", name, "-keystore", p12.toString(), "-storepass",
            "changeit", "-file", dir.resolve(name + ".pem").toString()))) {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(cmd + ": " + out);
      }
    }
    return p12;
  }

  static JsonObject gizmo(String apiVersion, String name, String field, int value) {
    return new JsonObject().put("apiVersion", apiVersion).put("kind", "Gizmo")
        .put("metadata", new JsonObject().put("name", name))
        .put("spec", new JsonObject().put(field, value));
  }

  @Test
  void writtenInEitherVersionStoredInV1ReadInBoth() throws Exception {
    Http.Res c1 = http.post(V1, gizmo("conv.example.com/v1", "g1", "size", 3));
    assertEquals(201, c1.code(), c1.body());
    Http.Res g2 = http.get(V2 + "/g1");
    assertEquals(200, g2.code(), g2.body());
    assertEquals("conv.example.com/v2", g2.json().getString("apiVersion"));
    assertEquals(new JsonObject().put("diameter", 3), g2.json().getJsonObject("spec"));
    assertEquals(c1.json().getJsonObject("metadata"), g2.json().getJsonObject("metadata"));

    Http.Res c2 = http.post(V2, gizmo("conv.example.com/v2", "g2", "diameter", 5));
    assertEquals(201, c2.code(), c2.body());
    assertEquals("conv.example.com/v2", c2.json().getString("apiVersion"));
    assertEquals(new JsonObject().put("diameter", 5), c2.json().getJsonObject("spec"));
    JsonObject stored = node.sources.get(0).get("ns1", "g2").await(10, TimeUnit.SECONDS);
    assertEquals("conv.example.com/v1", stored.getString("apiVersion"));
    assertEquals(new JsonObject().put("size", 5), stored.getJsonObject("spec"));
    assertEquals(new JsonObject().put("size", 5), http.get(V1 + "/g2").json().getJsonObject("spec"));

    reviews.clear();
    Http.Res l = http.get(V2);
    assertEquals(200, l.code(), l.body());
    assertEquals("conv.example.com/v2", l.json().getString("apiVersion"));
    assertTrue(l.json().getJsonArray("items").stream().allMatch(i -> ((JsonObject) i).getJsonObject("spec")
        .containsKey("diameter") && "conv.example.com/v2".equals(((JsonObject) i).getString("apiVersion"))));
    assertEquals(1, reviews.size(), "one ConversionReview per list");
    assertEquals(l.json().getJsonArray("items").size(), reviews.get(0).getJsonObject("request")
        .getJsonArray("objects").size());
  }

  @Test
  void updateAndPatchInV2() throws Exception {
    assertEquals(201, http.post(V1, gizmo("conv.example.com/v1", "u1", "size", 1)).code());
    JsonObject cur = http.get(V2 + "/u1").json();
    cur.getJsonObject("spec").put("diameter", 9);
    Http.Res u = http.put(V2 + "/u1", cur);
    assertEquals(200, u.code(), u.body());
    assertEquals(9, u.json().getJsonObject("spec").getInteger("diameter"));
    assertEquals(new JsonObject().put("size", 9), http.get(V1 + "/u1").json().getJsonObject("spec"));
    Http.Res p = http.patch(V2 + "/u1", "application/merge-patch+json", "{\"spec\":{\"diameter\":10}}");
    assertEquals(200, p.code(), p.body());
    assertEquals(new JsonObject().put("diameter", 10), p.json().getJsonObject("spec"));
    assertEquals(new JsonObject().put("size", 10), http.get(V1 + "/u1").json().getJsonObject("spec"));
    String rv = http.get(V1 + "/u1").json().getJsonObject("metadata").getString("resourceVersion");
    Http.Res same = http.patch(V2 + "/u1", "application/merge-patch+json", "{\"spec\":{\"diameter\":10}}");
    assertEquals(rv, same.json().getJsonObject("metadata").getString("resourceVersion"), "no change, no write");
    Http.Res d = http.delete(V2 + "/u1");
    assertEquals(200, d.code(), d.body());
    assertEquals(404, http.get(V1 + "/u1").code());
  }

  @Test
  void watchInV2() throws Exception {
    assertEquals(201, http.post(V1, gizmo("conv.example.com/v1", "w1", "size", 2)).code());
    try (Http.Watch w = http.watch(V2 + "?watch=true&fieldSelector=metadata.name%3Dw1")) {
      JsonObject added = w.nextNonBookmark(30);
      assertEquals("ADDED", added.getString("type"));
      assertEquals("conv.example.com/v2", added.getJsonObject("object").getString("apiVersion"));
      assertEquals(2, added.getJsonObject("object").getJsonObject("spec").getInteger("diameter"));
      assertEquals(200, http.patch(V1 + "/w1", "application/merge-patch+json", "{\"spec\":{\"size\":4}}").code());
      JsonObject modified = w.nextNonBookmark(30);
      assertEquals("MODIFIED", modified.getString("type"));
      assertEquals(4, modified.getJsonObject("object").getJsonObject("spec").getInteger("diameter"));
    }
  }

  @Test
  void webhookDownIs500AndStoresNothing() throws Exception {
    String b2 = "/apis/conv.example.com/v2/namespaces/ns1/brokens";
    Http.Res r = http.post(b2, gizmo("conv.example.com/v2", "b1", "diameter", 1).put("kind", "Broken"));
    assertEquals(500, r.code(), r.body());
    assertEquals("InternalError", r.json().getString("reason"));
    assertEquals("Internal error occurred: conversion webhook for conv.example.com/v2, Kind=Broken failed: Post "
        + "\"https://127.0.0.1:" + downPort + "/convert?timeout=30s\": dial tcp 127.0.0.1:" + downPort
        + ": connect: connection refused", r.json().getString("message"));
    Http.Res g = http.get("/apis/conv.example.com/v1/namespaces/ns1/brokens/b1");
    assertEquals(404, g.code(), g.body());
    // stored in v1 (no conversion needed), then read in v2: 500 with the stored version's kind
    assertEquals(201, http.post("/apis/conv.example.com/v1/namespaces/ns1/brokens",
        gizmo("conv.example.com/v1", "b2", "size", 1).put("kind", "Broken")).code());
    Http.Res read = http.get(b2 + "/b2");
    assertEquals(500, read.code(), read.body());
    assertTrue(read.json().getString("message").startsWith("Internal error occurred: conversion webhook for "
        + "conv.example.com/v1, Kind=Broken failed: Post"), read.body());
    Http.Res list = http.get(b2);
    assertEquals(500, list.code(), list.body());
    assertTrue(list.json().getString("message").startsWith("Internal error occurred: conversion webhook for "
        + "conv.example.com/v1, Kind=BrokenList failed: Post"), list.body());
    assertFalse(http.get("/apis/conv.example.com/v1/namespaces/ns1/brokens").body().contains("\"b1\""));
    // a watch in v2 ends with the 500 as an ERROR event
    try (Http.Watch w = http.watch(b2 + "?watch=true")) {
      JsonObject e = w.nextNonBookmark(40);
      assertEquals("ERROR", e.getString("type"), e.encode());
      assertEquals(500, e.getJsonObject("object").getInteger("code"));
      assertTrue(e.getJsonObject("object").getString("message").startsWith("Internal error occurred: conversion "
          + "webhook for conv.example.com/v1, Kind=Broken"), e.encode());
    }
  }
}
