package io.mvproxy.registry.impl.conversion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.storage.StorageException;
import io.mvproxy.registry.impl.admission.WebhookClient;
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
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The converter against a real HTTPS conversion webhook on 127.0.0.1 (self-signed, itself the caBundle): a correct
 * webhook (URL and service through the resolver), one ConversionReview per call, and each of upstream's answer checks
 * with its text (wrong uid, count, groupVersion, kind, name, failure result, metadata other than labels and
 * annotations restored), an unknown authority and a refused connection.
 */
@Tag("unit")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WebhookConverterTest {
  Vertx vertx;
  HttpServer server;
  String caBundle;
  WebhookClient http;
  final List<JsonObject> reviews = new CopyOnWriteArrayList<>();

  @BeforeAll
  void start() throws Exception {
    vertx = Vertx.vertx();
    Path store = selfSigned("conversion");
    caBundle = Base64.getEncoder().encodeToString(Files.readAllBytes(store.resolveSibling("conversion.pem")));
    server = vertx.createHttpServer(new HttpServerOptions().setSsl(true).setKeyCertOptions(new PfxOptions()
            .setPath(store.toString()).setPassword("changeit")))
        .requestHandler(req -> req.body().onSuccess(b -> {
          JsonObject review = b.toJsonObject();
          reviews.add(review);
          String mode = req.path().substring(1);
          JsonObject r = review.getJsonObject("request");
          String desired = r.getString("desiredAPIVersion");
          JsonArray out = new JsonArray();
          for (Object o : r.getJsonArray("objects")) {
            JsonObject c = ((JsonObject) o).copy().put("apiVersion", mode.equals("version") ? "x.io/v9" : desired);
            JsonObject spec = c.getJsonObject("spec");
            if (spec.containsKey("size")) {
              spec.put("diameter", spec.remove("size"));
            } else if (spec.containsKey("diameter")) {
              spec.put("size", spec.remove("diameter"));
            }
            JsonObject md = c.getJsonObject("metadata");
            switch (mode) {
              case "kind" -> c.put("kind", "Other");
              case "name" -> md.put("name", "renamed");
              case "meta" -> md.put("labels", new JsonObject().put("converted", "yes")).put("generation", 99)
                  .put("finalizers", new JsonArray().add("x/y"));
              default -> { }
            }
            out.add(c);
          }
          if (mode.equals("count")) {
            out.add(out.getValue(0));
          }
          JsonObject resp = new JsonObject().put("uid", mode.equals("uid") ? "other" : r.getString("uid"))
              .put("result", new JsonObject().put("status", mode.equals("failure") ? "Failure" : "Success"))
              .put("convertedObjects", out);
          if (mode.equals("failure")) {
            resp.getJsonObject("result").put("message", "cannot convert gizmos today");
          }
          req.response().putHeader("Content-Type", "application/json").end(new JsonObject()
              .put("apiVersion", review.getString("apiVersion")).put("kind", "ConversionReview")
              .put("response", resp).encode());
        }))
        .listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    http = new WebhookClient(vertx, (ns, name, port) -> "conv".equals(name) && port == 8443
        ? Optional.of("https://127.0.0.1:" + server.actualPort()) : Optional.empty());
  }

  /** A PKCS#12 key store with a self-signed certificate for IP 127.0.0.1 (JDK keytool), and its PEM beside it. */
  static Path selfSigned(String name) throws Exception {
    Path dir = Files.createTempDirectory("mvproxy-conversion-tls");
    Path p12 = dir.resolve(name + ".p12");
    String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    run(List.of(keytool, "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
        "CN=" + name, "-ext", "san=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore",
        p12.toString(), "-storepass", "changeit", "-keypass", "changeit"));
    run(List.of(keytool, "-exportcert", "-rfc", "-alias", name, "-keystore", p12.toString(), "-storepass",
        "changeit", "-file", dir.resolve(name + ".pem").toString()));
    return p12;
  }

  private static void run(List<String> cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException(cmd + ": " + out);
    }
  }

  @AfterAll
  void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  WebhookConverter converter(String path, String ca) {
    JsonObject cc = new JsonObject().put("url", "https://127.0.0.1:" + server.actualPort() + "/" + path);
    if (ca != null) {
      cc.put("caBundle", ca);
    }
    return new WebhookConverter(http, new CrdConversion(CrdConversion.WEBHOOK, cc, List.of("v1")), "gizmos.x.io");
  }

  static JsonObject gizmo(String name, String apiVersion, String field, int value) {
    return new JsonObject().put("apiVersion", apiVersion).put("kind", "Gizmo")
        .put("metadata", new JsonObject().put("name", name).put("namespace", "ns1").put("uid", "uid-" + name)
            .put("resourceVersion", "7").put("generation", 1).put("labels", new JsonObject().put("a", "b")))
        .put("spec", new JsonObject().put(field, value));
  }

  String failure(WebhookConverter c, List<JsonObject> objs, boolean list) throws Exception {
    Throwable t = c.convert(objs, "x.io/v2", "x.io/v1, Kind=" + (list ? "GizmoList" : "Gizmo"), list)
        .map(r -> (Throwable) null).otherwise(e -> e).await(40, TimeUnit.SECONDS);
    StorageException se = assertInstanceOf(StorageException.class, t);
    assertEquals(500, se.code());
    return se.getMessage();
  }

  @Test
  void convertsAListInOneReviewSkippingObjectsAlreadyInTheVersion() throws Exception {
    reviews.clear();
    List<JsonObject> out = converter("ok", caBundle).convert(List.of(gizmo("a", "x.io/v1", "size", 1),
        gizmo("b", "x.io/v2", "diameter", 2), gizmo("c", "x.io/v1", "size", 3)), "x.io/v2", "x.io/v1, Kind=GizmoList",
        true).await(40, TimeUnit.SECONDS);
    assertEquals(1, reviews.size());
    JsonObject review = reviews.get(0);
    assertEquals("apiextensions.k8s.io/v1", review.getString("apiVersion"));
    assertEquals("ConversionReview", review.getString("kind"));
    assertEquals("x.io/v2", review.getJsonObject("request").getString("desiredAPIVersion"));
    assertEquals(2, review.getJsonObject("request").getJsonArray("objects").size());
    assertEquals(List.of(1, 2, 3), out.stream().map(o -> o.getJsonObject("spec").getInteger("diameter")).toList());
    assertTrue(out.stream().allMatch(o -> "x.io/v2".equals(o.getString("apiVersion"))));
    reviews.clear();
    converter("ok", caBundle).convert(List.of(gizmo("b", "x.io/v2", "diameter", 2)), "x.io/v2", "x", false)
        .await(40, TimeUnit.SECONDS);
    assertEquals(0, reviews.size(), "nothing to convert: no call");
  }

  @Test
  void serviceResolvedAndV1beta1Reviews() throws Exception {
    reviews.clear();
    JsonObject cc = new JsonObject().put("caBundle", caBundle).put("service", new JsonObject().put("namespace", "d")
        .put("name", "conv").put("port", 8443).put("path", "/ok"));
    List<JsonObject> out = new WebhookConverter(http, new CrdConversion(CrdConversion.WEBHOOK, cc,
        List.of("v2alpha9", "v1beta1", "v1")), "gizmos.x.io").convert(List.of(gizmo("a", "x.io/v2", "diameter", 4)),
        "x.io/v1", "x.io/v2, Kind=Gizmo", false).await(40, TimeUnit.SECONDS);
    assertEquals(4, out.get(0).getJsonObject("spec").getInteger("size"));
    assertEquals("apiextensions.k8s.io/v1beta1", reviews.get(0).getString("apiVersion"));
    JsonObject unresolved = cc.copy().put("service", cc.getJsonObject("service").copy().put("name", "nope"));
    String m = failure(new WebhookConverter(http, new CrdConversion(CrdConversion.WEBHOOK, unresolved,
        List.of("v1")), "gizmos.x.io"), List.of(gizmo("a", "x.io/v1", "size", 1)), false);
    assertEquals("Internal error occurred: conversion webhook for x.io/v1, Kind=Gizmo failed: service "
        + "\"d/nope:8443\" has no address in --service-resolution", m);
  }

  @Test
  void metadataOtherThanLabelsAndAnnotationsIsRestored() throws Exception {
    JsonObject out = converter("meta", caBundle).convert(List.of(gizmo("a", "x.io/v1", "size", 1)), "x.io/v2", "x",
        false).await(40, TimeUnit.SECONDS).get(0);
    JsonObject md = out.getJsonObject("metadata");
    assertEquals(new JsonObject().put("converted", "yes"), md.getJsonObject("labels"));
    assertEquals(1, md.getInteger("generation"));
    assertEquals("7", md.getString("resourceVersion"));
    assertTrue(!md.containsKey("finalizers"));
  }

  @Test
  void upstreamChecksAndTexts() throws Exception {
    String p = "Internal error occurred: conversion webhook for x.io/v1, Kind=Gizmo ";
    List<JsonObject> one = List.of(gizmo("a", "x.io/v1", "size", 1));
    String uid = failure(converter("uid", caBundle), one, false);
    assertTrue(uid.startsWith(p + "failed: expected response.uid=\""), uid);
    assertEquals(p + "returned 2 objects, expected 1", failure(converter("count", caBundle), one, false));
    assertEquals(p + "returned invalid object at index 0: invalid groupVersion (expected x.io/v2, received x.io/v9)",
        failure(converter("version", caBundle), one, false));
    assertEquals(p + "returned invalid object at index 0: invalid kind (expected Gizmo, received Other)",
        failure(converter("kind", caBundle), one, false));
    assertEquals(p + "returned invalid object: must have the same name: a != renamed",
        failure(converter("name", caBundle), one, false));
    assertEquals(p + "failed: cannot convert gizmos today", failure(converter("failure", caBundle), one, false));
    assertEquals("Internal error occurred: conversion webhook for x.io/v1, Kind=GizmoList returned invalid converted "
        + "object at index 1: must have the same name: a != renamed", failure(converter("name", caBundle), one, true));
    assertEquals(p + "failed: Post \"https://127.0.0.1:" + server.actualPort() + "/ok?timeout=30s\": tls: failed to "
        + "verify certificate: x509: certificate signed by unknown authority", failure(converter("ok", null), one,
        false));
  }

  @Test
  void refusedConnection() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    WebhookConverter c = new WebhookConverter(http, new CrdConversion(CrdConversion.WEBHOOK, new JsonObject()
        .put("url", "https://127.0.0.1:" + port + "/convert"), List.of("v1")), "gizmos.x.io");
    assertEquals("Internal error occurred: conversion webhook for x.io/v1, Kind=Gizmo failed: Post "
        + "\"https://127.0.0.1:" + port + "/convert?timeout=30s\": dial tcp 127.0.0.1:" + port
        + ": connect: connection refused", failure(c, List.of(gizmo("a", "x.io/v1", "size", 1)), false));
  }
}
