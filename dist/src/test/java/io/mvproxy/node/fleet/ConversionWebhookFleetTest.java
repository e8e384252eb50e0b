package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.example.conversion.ConversionWebhookServer;
import io.mvproxy.node.plugin.PluginPacker;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * CRD conversion webhooks on two real nodes: node-b serves the demo's {@code gizmos.demo.mvproxy.io} (v1 storage,
 * v2, {@code conversion.strategy: Webhook} naming the service {@code demo/gizmo-converter:443}, found through
 * node-b's {@code serviceResolution}), converted by the sample conversion webhook of
 * {@code plugins/examples/conversion-webhook} (v1 {@code spec.size} is v2 {@code spec.diameter}); node-a lacks gizmos
 * and proxies them to node-b. Objects written in v1 are read in v2 and back, through the serving and the proxying
 * node, and through kubectl; with the webhook down a write in v2 and a read in v2 answer kube's 500 through either
 * node and nothing is stored; once it is back everything converts again. A CRD created through the API with a
 * webhook {@code url} is served by both nodes and converts on each; an invalid {@code spec.conversion} is refused
 * with kube's 422.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("fleet")
class ConversionWebhookFleetTest {
  static final String V1 = "/apis/demo.mvproxy.io/v1/namespaces/default/gizmos";
  static final String V2 = "/apis/demo.mvproxy.io/v2/namespaces/default/gizmos";
  FleetHarness fleet;
  HttpsClient admin;
  Vertx vertx;
  HttpServer webhook;
  int webhookPort;
  Path tmp;

  @BeforeAll
  void start() throws Exception {
    tmp = Files.createTempDirectory("mvproxy-conversion-test");
    Map<String, Map<String, List<Path>>> plugins = FleetHarness.oldNewNew();
    plugins.remove("node-c");
    fleet = new FleetHarness(tmp.resolve("fleet"), plugins);
    // the demo's gizmos manifest with the fleet CA as caBundle, as bin/mvproxy demo packs it
    String ca = Base64.getEncoder().encodeToString(Files.readAllBytes(fleet.pki().caCert()));
    Path gizmos = Files.writeString(tmp.resolve("gizmos.yaml"), Files.readString(TestData.example("gizmos")
        .resolve("gizmos.yaml")).replace("caBundle: \"\"", "caBundle: " + ca));
    new PluginPacker().pack(fleet.dir().resolve("plugins-node-b").resolve("gizmos.jar"), "gizmos", "test",
        List.of(gizmos));
    vertx = Vertx.vertx();
    // below the ephemeral range: the webhook is started again on this port later, and no outgoing connection of a
    // node or client may have taken it meanwhile
    webhook = startWebhook(io.mvproxy.testkit.TestPorts.belowEphemeral());
    webhookPort = webhook.actualPort();
    fleet.configure("node-b", new JsonObject().put("serviceResolution", new JsonObject()
        .put("demo/gizmo-converter:443", "https://127.0.0.1:" + webhookPort)));
    admin = fleet.admin();
    fleet.startAllAndAwaitReady(admin, 300_000);
    FleetTest.await("node-a routes gizmos v2", 60_000,
        () -> admin.get(fleet.node("node-a").url(), V2).status() == 200);
  }

  HttpServer startWebhook(int port) throws Exception {
    return ConversionWebhookServer.start(vertx, "127.0.0.1", port, fleet.pki().servingCert("node-b").toString(),
        fleet.pki().servingKey("node-b").toString()).await(30, TimeUnit.SECONDS);
  }

  @AfterAll
  void stop() throws Exception {
    if (fleet != null) {
      fleet.close();
    }
    if (vertx != null) {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  HttpsClient.Resp send(HttpMethod m, String node, String path, String body) throws Exception {
    return admin.send(m, fleet.node(node).url(), path, body == null ? Map.of()
        : Map.of("Content-Type", m == HttpMethod.PATCH ? "application/merge-patch+json" : "application/json"), body);
  }

  static String gizmo(String version, String name, String field, int value) {
    return "{\"apiVersion\":\"demo.mvproxy.io/" + version + "\",\"kind\":\"Gizmo\",\"metadata\":{\"name\":\"" + name
        + "\"},\"spec\":{\"" + field + "\":" + value + ",\"color\":\"red\"}}";
  }

  @Test
  void writtenInV1ReadInV2AndBackThroughBothNodes() throws Exception {
    HttpsClient.Resp c = send(HttpMethod.POST, "node-a", V1, gizmo("v1", "g1", "size", 3));
    assertEquals(201, c.status(), c.text());
    for (String node : List.of("node-a", "node-b")) {
      HttpsClient.Resp v2 = send(HttpMethod.GET, node, V2 + "/g1", null);
      assertEquals(200, v2.status(), v2.text());
      assertEquals("demo.mvproxy.io/v2", v2.json().getString("apiVersion"));
      assertEquals(new JsonObject().put("diameter", 3).put("color", "red"), v2.json().getJsonObject("spec"));
      HttpsClient.Resp v1 = send(HttpMethod.GET, node, V1 + "/g1", null);
      assertEquals(new JsonObject().put("size", 3).put("color", "red"), v1.json().getJsonObject("spec"));
    }
    // written in v2 through the proxying node, stored and read back in v1
    HttpsClient.Resp c2 = send(HttpMethod.POST, "node-a", V2, gizmo("v2", "g2", "diameter", 7));
    assertEquals(201, c2.status(), c2.text());
    assertEquals(7, c2.json().getJsonObject("spec").getInteger("diameter"));
    assertEquals(7, send(HttpMethod.GET, "node-b", V1 + "/g2", null).json().getJsonObject("spec")
        .getInteger("size"));
    HttpsClient.Resp p = send(HttpMethod.PATCH, "node-a", V2 + "/g2", "{\"spec\":{\"diameter\":8}}");
    assertEquals(200, p.status(), p.text());
    assertEquals(8, send(HttpMethod.GET, "node-a", V1 + "/g2", null).json().getJsonObject("spec")
        .getInteger("size"));
    HttpsClient.Resp list = send(HttpMethod.GET, "node-a", V2, null);
    assertEquals(200, list.status(), list.text());
    assertTrue(list.json().getJsonArray("items").stream().allMatch(i -> ((JsonObject) i).getJsonObject("spec")
        .containsKey("diameter")), list.text());
  }

  @Test
  void kubectlReadsEitherVersionThroughTheProxyingNode() throws Exception {
    String kubectl = KubectlFleetTest.which("kubectl");
    org.junit.jupiter.api.Assumptions.assumeTrue(kubectl != null, "kubectl is not on PATH");
    List<String> base = new ArrayList<>(List.of(kubectl, "--kubeconfig", fleet.pki().kubeconfig().toString(),
        "--context", "node-a", "--cache-dir", tmp.resolve("kube-cache").toString(), "--request-timeout=20s"));
    List<String> apply = new ArrayList<>(base);
    apply.addAll(List.of("apply", "-f", TestData.example("gizmo-sample.yaml").toString()));
    KubectlFleetTest.Result a = KubectlFleetTest.run(apply, 60);
    assertEquals(0, a.code(), a.all());
    List<String> get = new ArrayList<>(base);
    get.addAll(List.of("get", "gizmos.v2.demo.mvproxy.io", "small", "-o", "jsonpath={.spec.diameter}"));
    KubectlFleetTest.Result g = KubectlFleetTest.run(get, 60);
    assertEquals("3", g.out().trim(), g.all());
    get.set(get.indexOf("gizmos.v2.demo.mvproxy.io"), "gizmos.v1.demo.mvproxy.io");
    get.set(get.indexOf("small"), "big");
    get.set(get.size() - 1, "jsonpath={.spec.size}");
    KubectlFleetTest.Result b = KubectlFleetTest.run(get, 60);
    assertEquals("12", b.out().trim(), b.all());
  }

  static final String CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

  String apiCrd(JsonObject conversion) {
    JsonObject v1 = new JsonObject().put("openAPIV3Schema", new JsonObject().put("type", "object")
        .put("properties", new JsonObject().put("spec", new JsonObject().put("type", "object")
            .put("properties", new JsonObject().put("size", new JsonObject().put("type", "integer"))))));
    JsonObject v2 = new JsonObject().put("openAPIV3Schema", new JsonObject().put("type", "object")
        .put("properties", new JsonObject().put("spec", new JsonObject().put("type", "object")
            .put("properties", new JsonObject().put("diameter", new JsonObject().put("type", "integer"))))));
    return new JsonObject().put("apiVersion", "apiextensions.k8s.io/v1").put("kind", "CustomResourceDefinition")
        .put("metadata", new JsonObject().put("name", "doohickeys.conv.example.com"))
        .put("spec", new JsonObject().put("group", "conv.example.com").put("scope", "Namespaced")
            .put("names", new JsonObject().put("plural", "doohickeys").put("kind", "Doohickey"))
            .put("versions", new io.vertx.core.json.JsonArray()
                .add(new JsonObject().put("name", "v1").put("served", true).put("storage", true).put("schema", v1))
                .add(new JsonObject().put("name", "v2").put("served", true).put("storage", false).put("schema", v2)))
            .put("conversion", conversion)).encode();
  }

  @Test
  void apiCreatedCrdConvertsOnEveryNode() throws Exception {
    String ca = Base64.getEncoder().encodeToString(Files.readAllBytes(fleet.pki().caCert()));
    HttpsClient.Resp bad = send(HttpMethod.POST, "node-a", CRDS, apiCrd(new JsonObject().put("strategy", "Webhook")
        .put("webhook", new JsonObject().put("conversionReviewVersions", new io.vertx.core.json.JsonArray().add("v3"))
            .put("clientConfig", new JsonObject().put("url", "http://127.0.0.1/convert")))));
    assertEquals(422, bad.status(), bad.text());
    assertEquals("CustomResourceDefinition.apiextensions.k8s.io \"doohickeys.conv.example.com\" is invalid: "
        + "[spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the only "
        + "allowed URL scheme; desired format: https://host[/path], spec.conversion.conversionReviewVersions: Invalid value: []string{\"v3\"}: must "
        + "include at least one of v1, v1beta1]", bad.json().getString("message"));
    HttpsClient.Resp created = send(HttpMethod.POST, "node-a", CRDS, apiCrd(new JsonObject().put("strategy", "Webhook")
        .put("webhook", new JsonObject().put("conversionReviewVersions", new io.vertx.core.json.JsonArray().add("v1"))
            .put("clientConfig", new JsonObject().put("url", "https://127.0.0.1:" + webhookPort + "/convert")
                .put("caBundle", ca)))));
    assertEquals(201, created.status(), created.text());
    String d1 = "/apis/conv.example.com/v1/namespaces/default/doohickeys";
    String d2 = "/apis/conv.example.com/v2/namespaces/default/doohickeys";
    FleetTest.await("Established", 60_000, () -> send(HttpMethod.GET, "node-b", CRDS + "/doohickeys.conv.example.com",
        null).json().getJsonObject("status", new JsonObject()).getJsonArray("conditions",
        new io.vertx.core.json.JsonArray()).stream().anyMatch(c -> "Established".equals(((JsonObject) c)
        .getString("type")) && "True".equals(((JsonObject) c).getString("status"))));
    HttpsClient.Resp c = send(HttpMethod.POST, "node-a", d1, gizmo("v1", "h1", "size", 4)
        .replace("demo.mvproxy.io", "conv.example.com").replace("Gizmo", "Doohickey"));
    assertEquals(201, c.status(), c.text());
    for (String node : List.of("node-a", "node-b")) {
      HttpsClient.Resp r = send(HttpMethod.GET, node, d2 + "/h1", null);
      assertEquals(200, r.status(), r.text());
      assertEquals(new JsonObject().put("diameter", 4), r.json().getJsonObject("spec"));
    }
    HttpsClient.Resp c2 = send(HttpMethod.POST, "node-b", d2, gizmo("v2", "h2", "diameter", 6)
        .replace("demo.mvproxy.io", "conv.example.com").replace("Gizmo", "Doohickey"));
    assertEquals(201, c2.status(), c2.text());
    assertEquals(new JsonObject().put("size", 6), send(HttpMethod.GET, "node-a", d1 + "/h2", null).json()
        .getJsonObject("spec"));
  }

  @Test
  void webhookDownIs500ThroughBothNodesAndStoresNothing() throws Exception {
    assertEquals(201, send(HttpMethod.POST, "node-b", V1, gizmo("v1", "d1", "size", 1)).status());
    webhook.close().await(10, TimeUnit.SECONDS);
    try {
      String refused = "Post \"https://127.0.0.1:" + webhookPort + "/convert?timeout=30s\": dial tcp 127.0.0.1:"
          + webhookPort + ": connect: connection refused";
      for (String node : List.of("node-a", "node-b")) {
        HttpsClient.Resp w = send(HttpMethod.POST, node, V2, gizmo("v2", "down-" + node, "diameter", 1));
        assertEquals(500, w.status(), w.text());
        assertEquals("InternalError", w.json().getString("reason"));
        assertEquals("Internal error occurred: conversion webhook for demo.mvproxy.io/v2, Kind=Gizmo failed: "
            + refused, w.json().getString("message"));
        assertEquals(404, send(HttpMethod.GET, node, V1 + "/down-" + node, null).status(), "nothing stored");
        HttpsClient.Resp r = send(HttpMethod.GET, node, V2 + "/d1", null);
        assertEquals(500, r.status(), r.text());
        assertEquals("Internal error occurred: conversion webhook for demo.mvproxy.io/v1, Kind=Gizmo failed: "
            + refused, r.json().getString("message"));
        // the storage version needs no webhook
        assertEquals(200, send(HttpMethod.GET, node, V1 + "/d1", null).status());
      }
    } finally {
      webhook = startWebhook(webhookPort);
    }
    FleetTest.await("conversion works again", 30_000,
        () -> send(HttpMethod.GET, "node-a", V2 + "/d1", null).status() == 200);
  }
}
