package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * APIServices through the API on a 2-node fleet (memory storage), with the real kubectl and the wardle sample API
 * server the demo uses (started in this JVM with the fleet's front-proxy CA): the wardle APIService applied through
 * node-a becomes {@code Available} ({@code kubectl wait} through node-b), flunders are created and listed through
 * both nodes, {@code kubectl get apiservices} lists it beside a plugin's APIService (read-only: 409 naming its
 * node), an invalid one is refused 422; the backend stopped: {@code Available=False FailedDiscoveryCheck} within
 * seconds, flunders answer 503 on both nodes and {@code /apis} stays fast; the APIService deleted: the group leaves
 * discovery on both nodes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("fleet")
class ApiServiceApiFleetTest {
  static final String NAME = "v1alpha1.wardle.example.com";
  FleetHarness fleet;
  Path tmp;
  String kubectl;
  io.vertx.core.Vertx vertx;
  io.vertx.core.http.HttpServer backend;

  @BeforeAll
  void start() throws Exception {
    kubectl = KubectlFleetTest.which("kubectl");
    Assumptions.assumeTrue(kubectl != null, "kubectl is not on PATH");
    tmp = Files.createTempDirectory("mvproxy-apiserviceapi-test");
    Path pluginApiService = tmp.resolve("other-apiservice.yaml");
    Files.writeString(pluginApiService, """
        apiVersion: apiregistration.k8s.io/v1
        kind: APIService
        metadata:
          name: v1.other.example.com
        spec:
          group: other.example.com
          version: v1
          groupPriorityMinimum: 900
          versionPriority: 10
          insecureSkipTLSVerify: true
          service:
            namespace: other
            name: api
        """);
    Map<String, Map<String, List<Path>>> plugins = new LinkedHashMap<>();
    plugins.put("node-a", new LinkedHashMap<>(Map.of("other-api", List.of(pluginApiService))));
    plugins.put("node-b", new LinkedHashMap<>());
    fleet = new FleetHarness(tmp.resolve("fleet"), plugins);
    vertx = io.vertx.core.Vertx.vertx();
    var pki = fleet.pki();
    backend = io.mvproxy.example.wardle.SampleApiServer.start(vertx,
            new io.mvproxy.example.wardle.SampleApiServerOptions(0, "127.0.0.1", pki.servingCert("node-b").toString(),
                pki.servingKey("node-b").toString(), pki.frontProxyCaCert().toString(), false))
        .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    fleet.configureAll(new JsonObject().put("serviceResolution",
        new JsonObject().put("wardle/api:443", "https://127.0.0.1:" + backend.actualPort())));
    fleet.startAllAndAwaitReady(120_000);
  }

  @AfterAll
  void stop() {
    if (fleet != null) {
      fleet.close();
    }
    if (vertx != null) {
      vertx.close();
    }
  }

  @Test
  void applyAvailableServeEverywhereBackendDownDelete() throws Exception {
    Path file = tmp.resolve("wardle.yaml");
    Files.writeString(file, """
        apiVersion: apiregistration.k8s.io/v1
        kind: APIService
        metadata:
          name: v1alpha1.wardle.example.com
        spec:
          insecureSkipTLSVerify: true
          group: wardle.example.com
          groupPriorityMinimum: 1000
          versionPriority: 15
          service:
            name: api
            namespace: wardle
          version: v1alpha1
        """);
    long t0 = System.nanoTime();
    KubectlFleetTest.Result applied = kubectl("node-a", "apply", "-f", file.toString());
    assertEquals(0, applied.code(), applied.all());
    assertTrue(applied.out().contains("apiservice.apiregistration.k8s.io/" + NAME + " created"), applied.all());
    KubectlFleetTest.Result available = kubectl("node-b", "wait", "--for=condition=Available", "apiservice/" + NAME,
        "--timeout=30s");
    assertEquals(0, available.code(), available.all());
    long availableMs = (System.nanoTime() - t0) / 1_000_000;
    JsonObject stored = new JsonObject(kubectl("node-b", "get", "apiservice", NAME, "-o", "json").out());
    JsonObject cond = condition(stored);
    assertEquals("Passed", cond.getString("reason"), stored.encodePrettily());
    assertEquals("all checks passed", cond.getString("message"));
    assertEquals(443, stored.getJsonObject("spec").getJsonObject("service").getInteger("port"), "port defaulted");

    // flunders through both nodes (the whole group-version is proxied by every node)
    for (String node : List.of("node-a", "node-b")) {
      Path flunder = tmp.resolve("flunder-" + node + ".yaml");
      Files.writeString(flunder, """
          apiVersion: wardle.example.com/v1alpha1
          kind: Flunder
          metadata:
            name: f-%s
            namespace: default
          """.formatted(node));
      KubectlFleetTest.Result[] last = {null};
      try {
        FleetTest.await("flunders served by " + node, 20_000, () -> (last[0] = kubectl(node, "apply", "-f",
            flunder.toString())).code() == 0);
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + "\n" + last[0].all() + "\n" + kubectl(node, "get", "--raw",
            "/apis/wardle.example.com/v1alpha1").all() + "\n" + kubectl(node, "get", "apiservices", "-o", "yaml").all(), e);
      }
    }
    for (String node : List.of("node-a", "node-b")) {
      KubectlFleetTest.Result list = kubectl(node, "get", "flunders", "-o", "name");
      assertEquals(0, list.code(), list.all());
      assertTrue(list.out().contains("flunder.wardle.example.com/f-node-a")
          && list.out().contains("flunder.wardle.example.com/f-node-b"), node + ":\n" + list.all());
    }

    // kubectl get apiservices: the API-created one and the plugin's, with kube's columns
    KubectlFleetTest.Result table = kubectl("node-b", "get", "apiservices");
    assertEquals(0, table.code(), table.all());
    String header = table.out().lines().findFirst().orElse("");
    assertTrue(header.matches("NAME\\s+SERVICE\\s+AVAILABLE\\s+AGE\\s*"), table.all());
    assertTrue(table.out().lines().anyMatch(l -> l.matches(NAME.replace(".", "\\.") + "\\s+wardle/api\\s+True\\s+.*")),
        table.all());
    try {
      FleetTest.await("the plugin's APIService ServiceNotFound", 20_000, () -> kubectl("node-b", "get", "apiservices")
          .out().lines().anyMatch(l -> l.matches("v1\\.other\\.example\\.com\\s+other/api\\s+False \\(ServiceNotFound\\)"
              + "\\s+.*")));
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + kubectl("node-b", "get", "apiservices").all() + "\n"
          + kubectl("node-b", "get", "apiservices", "-o", "yaml").all(), e);
    }
    KubectlFleetTest.Result pluginWrite = kubectl("node-b", "label", "apiservice", "v1.other.example.com", "x=y");
    assertTrue(pluginWrite.code() != 0 && pluginWrite.err().contains("provided by plugins of the nodes node-a"),
        pluginWrite.all());
    Path bad = tmp.resolve("bad.yaml");
    Files.writeString(bad, """
        apiVersion: apiregistration.k8s.io/v1
        kind: APIService
        metadata:
          name: v1.wrong.example.com
        spec:
          group: bad.example.com
          version: v1
          groupPriorityMinimum: 30000
          versionPriority: 15
          service: {namespace: x, name: y, port: 70000}
        """);
    KubectlFleetTest.Result invalid = kubectl("node-a", "apply", "-f", bad.toString());
    assertTrue(invalid.code() != 0 && invalid.err().contains("is invalid") && invalid.err().contains("metadata.name")
        && invalid.err().contains("spec.groupPriorityMinimum") && invalid.err().contains("spec.service.port"),
        invalid.all());
    assertEquals(404, fleet.admin().get(fleet.node("node-a").url(),
        "/apis/apiregistration.k8s.io/v1/apiservices/v1.wrong.example.com").status(), "never stored");

    // backend down: Available=False within seconds, requests 503 (never 404), /apis fast
    long s0 = System.nanoTime();
    backend.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    FleetTest.await("Available=False", 15_000, () -> {
      JsonObject o = new JsonObject(kubectl("node-a", "get", "apiservice", NAME, "-o", "json").out());
      return "False".equals(condition(o).getString("status"));
    });
    long unavailableMs = (System.nanoTime() - s0) / 1_000_000;
    JsonObject down = condition(new JsonObject(kubectl("node-a", "get", "apiservice", NAME, "-o", "json").out()));
    assertEquals("FailedDiscoveryCheck", down.getString("reason"), down.encode());
    assertTrue(down.getString("message").startsWith("failing or missing response from https://127.0.0.1:"),
        down.encode());
    for (String node : List.of("node-a", "node-b")) {
      HttpsClient.Resp r = fleet.admin().get(fleet.node(node).url(),
          "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders");
      assertEquals(503, r.status(), node + ": " + r.text());
      long a0 = System.nanoTime();
      assertEquals(200, fleet.admin().get(fleet.node(node).url(), "/apis").status());
      long apisMs = (System.nanoTime() - a0) / 1_000_000;
      // never waits on the unavailable service; the bound leaves room for a pause of a loaded CI machine
      assertTrue(apisMs < 3000, node + " /apis took " + apisMs + " ms");
    }

    // delete: the group leaves discovery on both nodes
    KubectlFleetTest.Result deleted = kubectl("node-b", "delete", "apiservice", NAME);
    assertEquals(0, deleted.code(), deleted.all());
    for (String node : List.of("node-a", "node-b")) {
      FleetTest.await("wardle gone from " + node + "'s discovery", 20_000, () -> {
        HttpsClient.Resp r = fleet.admin().get(fleet.node(node).url(), "/apis");
        return r.status() == 200 && !r.text().contains("wardle.example.com");
      });
      // the withdrawn group-version may answer 503 for a moment while the nodes drain it (make before break)
      FleetTest.await("flunders answer 404 on " + node, 20_000, () -> fleet.admin().get(fleet.node(node).url(),
          "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders").status() == 404);
    }
    System.out.printf("ApiServiceApiFleetTest: apply to Available (kubectl wait on node-b) %d ms; backend stop to"
        + " Available=False %d ms%n", availableMs, unavailableMs);
  }

  private static JsonObject condition(JsonObject apiService) {
    for (Object o : apiService.getJsonObject("status", new JsonObject()).getJsonArray("conditions",
        new io.vertx.core.json.JsonArray())) {
      if ("Available".equals(((JsonObject) o).getString("type"))) {
        return (JsonObject) o;
      }
    }
    return new JsonObject().put("status", "Missing");
  }

  private KubectlFleetTest.Result kubectl(String node, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(kubectl, "--kubeconfig", fleet.pki().kubeconfig().toString(),
        "--context", node, "--cache-dir", tmp.resolve("kube-cache-" + node).toString(), "--request-timeout=20s"));
    cmd.addAll(List.of(args));
    return KubectlFleetTest.run(cmd, 90);
  }
}
