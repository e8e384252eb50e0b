package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The real kubectl binary against a 3-node fleet, always through node-a, which LACKS widgets v2 and every CRD of
 * {@code shared/testdata/crds} (served by node-b only). Skipped, with the reason, when kubectl is not on PATH.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("fleet")
class KubectlFleetTest {
  FleetHarness fleet;
  Path tmp;
  String kubectl;
  io.vertx.core.Vertx vertx;
  io.vertx.core.http.HttpServer backend;

  @BeforeAll
  void start() throws Exception {
    kubectl = which("kubectl");
    Assumptions.assumeTrue(kubectl != null, "kubectl is not on PATH: real-client tests skipped");
    tmp = Files.createTempDirectory("mvproxy-kubectl-test");
    Map<String, Map<String, List<Path>>> plugins = FleetHarness.oldNewNew();
    Map<String, List<Path>> bPlugins = plugins.get("node-b");
    TestData.shared().ifPresent(shared -> {
      try (Stream<Path> s = Files.list(shared.resolve("testdata/crds"))) {
        s.sorted().forEach(crd -> bPlugins.put(crd.getFileName().toString().replace(".yaml", ""), List.of(crd)));
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    });
    bPlugins.put("wardle", List.of(TestData.example("wardle").resolve("apiservice.yaml")));
    bPlugins.put("gateway-api-gatewayclasses", List.of(GATEWAY_CLASSES));
    fleet = new FleetHarness(tmp.resolve("fleet"), plugins);
    // the wardle APIService on node-b points at the sample extension API server, started here
    vertx = io.vertx.core.Vertx.vertx();
    var pki = fleet.pki();
    backend = io.mvproxy.example.wardle.SampleApiServer.start(vertx, new io.mvproxy.example.wardle.SampleApiServerOptions(
            0, "127.0.0.1", pki.servingCert("node-b").toString(), pki.servingKey("node-b").toString(),
            pki.frontProxyCaCert().toString(), false))
        .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    fleet.configure("node-b", new io.vertx.core.json.JsonObject().put("serviceResolution",
        new io.vertx.core.json.JsonObject().put("wardle/api:443", "https://127.0.0.1:" + backend.actualPort())));
    for (FleetHarness.NodeProc n : fleet.nodes()) {
      fleet.start(n.name);
    }
    for (FleetHarness.NodeProc n : fleet.nodes()) {
      fleet.awaitStarted(n.name, 120_000);
    }
    Awaitility.await().pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(200))
        .atMost(Duration.ofSeconds(90)).untilAsserted(() -> assertTrue(
        kubectl("get", "--raw", "/readyz").out.contains("ok") && kubectl("api-resources").out.contains("flunders"),
        "fleet not ready"));
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
  @Order(1)
  void apiResourcesThroughTheOldNodeListsTheFleetsUnion() throws Exception {
    Result r = kubectl("api-resources");
    assertEquals(0, r.code, r.all());
    for (String res : List.of("widgets", "gadgets")) {
      assertTrue(r.out.contains(res), r.all());
    }
    assertTrue(r.out.contains("demo.mvproxy.io/v2"), "preferred version is the fleet's v2:\n" + r.all());
    if (TestData.shared().isPresent()) {
      for (String res : List.of("foos", "certificaterequests", "alertmanagers", "consumergroups")) {
        assertTrue(r.out.contains(res), res + " missing:\n" + r.all());
      }
    }
  }

  @Test
  @Order(2)
  void applyGetUpdateDeleteOfWidgetsV2ThroughANodeLackingIt() throws Exception {
    Path w = tmp.resolve("widget.yaml");
    Files.writeString(w, """
        apiVersion: demo.mvproxy.io/v2
        kind: Widget
        metadata:
          name: gear
          namespace: default
        spec:
          size: 1
          color: green
          shape: round
        """);
    Result created = kubectl("apply", "-f", w.toString());
    assertEquals(0, created.code, created.all());
    assertTrue(created.out.contains("widget.demo.mvproxy.io/gear created"), created.all());
    Files.writeString(w, Files.readString(w).replace("size: 1", "size: 4"));
    Result configured = kubectl("apply", "-f", w.toString());
    assertEquals(0, configured.code, configured.all());
    assertTrue(configured.out.contains("configured"), configured.all());
    Result get = kubectl("get", "widgets.v2.demo.mvproxy.io", "gear", "-o", "yaml");
    assertEquals(0, get.code, get.all());
    assertTrue(get.out.contains("size: 4") && get.out.contains("apiVersion: demo.mvproxy.io/v2"), get.all());
    Result table = kubectl("get", "widgets");
    assertEquals(0, table.code, table.all());
    assertTrue(table.out.contains("gear") && table.out.contains("SIZE"), table.all());
    Result del = kubectl("delete", "-f", w.toString());
    assertEquals(0, del.code, del.all());
    assertTrue(del.out.contains("deleted"), del.all());
    Result gone = kubectl("get", "widgets", "gear");
    assertTrue(gone.code != 0 && gone.err.contains("NotFound"), gone.all());
  }

  @Test
  @Order(3)
  void realWorldCrdsFromSharedTestdata() throws Exception {
    Assumptions.assumeTrue(TestData.shared().isPresent(), "shared/testdata not found beside the checkout");
    Path objects = TestData.shared().get().resolve("testdata/objects");
    Path foo = objects.resolve("samplecontroller-example-foo.yaml");
    Result created = kubectl("apply", "-n", "default", "-f", foo.toString());
    assertEquals(0, created.code, created.all());
    Result yaml = kubectl("get", "-n", "default", "foos", "example-foo", "-o", "yaml");
    assertEquals(0, yaml.code, yaml.all());
    assertTrue(yaml.out.contains("deploymentName: example-foo"), yaml.all());
    Path am = objects.resolve("prometheus-operator-alertmanager-example.yaml");
    Result amCreated = kubectl("apply", "-n", "default", "-f", am.toString());
    assertEquals(0, amCreated.code, amCreated.all());
    Result amGet = kubectl("get", "-n", "default", "alertmanagers");
    assertEquals(0, amGet.code, amGet.all());
    assertTrue(amGet.out.contains("example"), amGet.all());
    assertEquals(0, kubectl("delete", "-n", "default", "-f", foo.toString()).code);
  }

  @Test
  @Order(4)
  void aggregatedApiThroughANodeLackingIt() throws Exception {
    Path f = tmp.resolve("flunder.yaml");
    Files.writeString(f, """
        apiVersion: wardle.example.com/v1alpha1
        kind: Flunder
        metadata:
          name: my-flunder
          namespace: default
        spec:
          reference: hello
        """);
    // kubectl 1.27+ lists CustomResourceDefinitions to check this aggregated kind (it is not one); the create
    // itself goes node-a -> node-b -> backend
    Result created = kubectl("create", "-f", f.toString());
    assertEquals(0, created.code, created.all());
    Result yaml = kubectl("get", "flunders", "my-flunder", "-o", "yaml");
    assertEquals(0, yaml.code, yaml.all());
    assertTrue(yaml.out.contains("created-by: admin"), "identity kept across node-a -> node-b -> backend:\n"
        + yaml.all());
    Result plugins = kubectl("--context", "node-b", "get", "plugins", "wardle", "-o", "yaml");
    assertTrue(plugins.out.contains("type: Available") && plugins.out.contains("reason: Passed"), plugins.all());
  }

  @Test
  @Order(5)
  void customResourceDefinitionsListTheFleetsMergedCrds() throws Exception {
    Result table = kubectl("get", "crd");
    assertEquals(0, table.code, table.all());
    assertTrue(table.out.startsWith("NAME") && table.out.contains("CREATED AT")
        && table.out.contains("widgets.demo.mvproxy.io") && table.out.contains("gadgets.demo.mvproxy.io")
        && table.out.contains("alertmanagers.monitoring.coreos.com") == TestData.shared().isPresent(), table.all());
    // node-a loads widgets v1 only, node-b and node-c v2 + v1: the stored CRD is their union, and says who serves what
    Result served = kubectl("get", "crd", "widgets.demo.mvproxy.io", "-o",
        "jsonpath={.spec.versions[*].name} {.spec.versions[*].served} {.metadata.annotations.mvproxy\\.io/served-by}"
        + " {.status.conditions[?(@.type==\"Established\")].status}");
    assertEquals(0, served.code, served.all());
    assertTrue(served.out.contains("true true") && served.out.contains("\"node-a\":[\"v1\"]")
        && served.out.contains("\"node-b\":[\"v2\",\"v1\"]") && served.out.endsWith("True"), served.all());
    assertTrue(served.out.startsWith("v2 v1") || served.out.startsWith("v1 v2"), served.all());
    Result gadgets = kubectl("--context", "node-c", "get", "crd", "gadgets.demo.mvproxy.io", "-o",
        "jsonpath={.metadata.annotations.mvproxy\\.io/served-by}");
    assertTrue(gadgets.out.contains("node-b") && gadgets.out.contains("node-c") && !gadgets.out.contains("node-a"),
        gadgets.all());
    // a plugin's CRD is read-only through the API: 409 naming the nodes whose plugins provide it
    Result delete = kubectl("delete", "crd", "gadgets.demo.mvproxy.io");
    assertEquals(1, delete.code, delete.all());
    assertTrue(delete.err.contains("Conflict") && delete.err.contains("provided by plugins of the nodes node-b, node-c"),
        delete.all());
    Result explain = kubectl("explain", "crd.spec.names");
    assertEquals(0, explain.code, explain.all());
    assertTrue(explain.out.contains("listKind"), explain.all());
  }

  @Test
  @Order(6)
  void rawDiscoveryIsPeerAware() throws Exception {
    Result apis = kubectl("get", "--raw", "/apis");
    assertEquals(0, apis.code, apis.all());
    assertTrue(apis.out.contains("\"APIGroupList\"") && apis.out.contains("demo.mvproxy.io/v2"), apis.all());
    Result gv = kubectl("get", "--raw", "/apis/demo.mvproxy.io/v2");
    assertEquals(0, gv.code, gv.all());
    assertTrue(gv.out.contains("\"APIResourceList\"") && gv.out.contains("widgets"), gv.all());
  }

  @Test
  @Order(7)
  void sharedConformanceScriptPasses() throws Exception {
    Assumptions.assumeTrue(TestData.shared().isPresent(), "shared/ not found beside the checkout");
    Path script = TestData.shared().get().resolve("conformance/discovery-check.sh");
    Assumptions.assumeTrue(Files.exists(script), "no conformance script");
    Assumptions.assumeTrue(which("jq") != null && which("curl") != null, "jq or curl missing");
    List<String> cmd = new ArrayList<>(List.of("bash", script.toString(), "--ca", fleet.pki().caCert().toString(),
        "--cert", fleet.pki().adminCert().toString(), "--key", fleet.pki().adminKey().toString()));
    fleet.nodes().forEach(n -> cmd.add(n.url()));
    Result r = run(cmd, 300);
    System.out.println(r.out);
    assertEquals(0, r.code, r.all());
  }

  /** The gateway-api GatewayClass CRD (CEL transition rule, defaults on status), served by node-b only. */
  static final Path GATEWAY_CLASSES = Path.of("../kernel/registry/src/test/resources/schema-crds/"
      + "gateway-api-gatewayclasses.yaml").toAbsolutePath().normalize();

  @Test
  @Order(8)
  void schemaDefaultsAndTransitionRulesThroughANodeLackingTheCrd() throws Exception {
    Path gc = tmp.resolve("gc.yaml");
    Files.writeString(gc, "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata:\n  name: gc1\n"
        + "spec:\n  controllerName: example.com/one\n");
    Result applied = kubectl("apply", "--server-side", "--field-manager=tester", "-f", gc.toString());
    assertEquals(0, applied.code, applied.all());
    // the schema's status default is served (defaulting on read), through node-a -> node-b
    Result yaml = kubectl("get", "gatewayclass", "gc1", "-o", "yaml");
    assertEquals(0, yaml.code, yaml.all());
    assertTrue(yaml.out.contains("message: Waiting for controller") && yaml.out.contains("type: Accepted"), yaml.out);
    // x-kubernetes-validations self == oldSelf on spec.controllerName, as kube-apiserver words it
    Files.writeString(gc, Files.readString(gc).replace("example.com/one", "example.com/two"));
    Result changed = kubectl("apply", "--server-side", "--field-manager=tester", "--force-conflicts", "-f",
        gc.toString());
    assertEquals(1, changed.code, changed.all());
    // kubectl renders the 422 Status from its details (kind, name, causes)
    assertTrue(changed.err.contains("The GatewayClass \"gc1\" is invalid: spec.controllerName: Invalid value: "
        + "\"string\": field is immutable"), changed.all());
    Result patched = kubectl("patch", "gatewayclass", "gc1", "--type=merge", "-p",
        "{\"spec\":{\"controllerName\":\"bad\"}}");
    assertEquals(1, patched.code, patched.all());
    assertTrue(patched.err.contains("spec.controllerName: Invalid value: \"bad\": spec.controllerName in body should "
        + "match '"), patched.all());
  }

  /**
   * F16: gadgets (demo.mvproxy.io/v1) are served by node-b and node-c only, in a group-version node-a serves too.
   * Through node-a, kubectl's client-side validation (OpenAPI v3; kubectl 1.27 too) and {@code explain} find the kind
   * in node-a's peer-merged OpenAPI.
   */
  @Test
  @Order(8)
  void applyAndExplainAKindOnlyPeersServeInASharedGroupVersion() throws Exception {
    List<String> clients = newestAnd127();
    // node-a merges the peers' documents asynchronously
    Awaitility.await().pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(200))
        .atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertTrue(
        kubectl("get", "--raw", "/openapi/v3/apis/demo.mvproxy.io/v1").out.contains("/gadgets/{name}"),
        "node-a's OpenAPI never listed gadgets"));
    for (String client : clients) {
      String name = "g-" + Path.of(client).getFileName().toString().replace('.', '-');
      Path g = tmp.resolve(name + ".yaml");
      Files.writeString(g, "apiVersion: demo.mvproxy.io/v1\nkind: Gadget\nmetadata:\n  name: " + name
          + "\nspec:\n  teeth: 3\n");
      Result applied = kubectlWith(client, "apply", "-f", g.toString());
      assertEquals(0, applied.code, client + ": " + applied.all());
      assertTrue(applied.out.contains("gadget.demo.mvproxy.io/" + name + " created"), applied.all());
      Result explained = kubectlWith(client, "explain", "gadgets");
      assertEquals(0, explained.code, client + ": " + explained.all());
      assertTrue(explained.out.contains("Gadget") && explained.out.contains("demo.mvproxy.io"), explained.all());
      assertEquals(0, kubectlWith(client, "delete", "gadget", name).code);
    }
  }

  /**
   * An aggregated API's OpenAPI is its backend's (kube-aggregator's openapi controllers): node-b downloads the sample
   * server's documents of wardle.example.com/v1alpha1 after its discovery check, and {@code kubectl explain
   * flunders} (OpenAPI v3, kubectl 1.27 too) describes the backend's fields through node-b and, from node-b's
   * documents, through node-a, which does not serve the APIService.
   */
  @Test
  @Order(8)
  void explainAnAggregatedApisKindFromItsBackendsOpenApi() throws Exception {
    List<String> clients = newestAnd127();
    Awaitility.await().pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(200))
        .atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertTrue(
        kubectl("get", "--raw", "/openapi/v3").out.contains("apis/wardle.example.com/v1alpha1"),
        "node-a's OpenAPI root never listed wardle.example.com/v1alpha1"));
    for (String client : clients) {
      for (String node : List.of("node-a", "node-b")) {
        Result explained = kubectlWith(client, "--context", node, "explain", "flunders.spec");
        assertEquals(0, explained.code, client + " " + node + ": " + explained.all());
        assertTrue(explained.out.contains("Flunder") && explained.out.contains("referenceType"), explained.all());
      }
    }
    Result v2 = kubectl("--context", "node-b", "get", "--raw", "/openapi/v2");
    assertTrue(v2.out.contains("\"/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders\""),
        "the backend's Swagger paths are in /openapi/v2");
  }

  /**
   * kube-apiserver's {@code APIResponseCompression}: a list over 128 KiB of widgets v2, which node-a lacks, comes
   * gzip-compressed through the hop to a client offering gzip (the serving node compresses, node-a relays the bytes),
   * and kubectl (whose Go transport offers gzip and decompresses on its own) reads it; without the offer it is plain.
   */
  @Test
  @Order(9)
  void largeListsComeGzippedThroughTheHopAndKubectlReadsThem() throws Exception {
    assertEquals(0, kubectl("create", "namespace", "compressed").code);
    java.util.Random random = new java.util.Random(7);
    StringBuilder yaml = new StringBuilder();
    List<String> colors = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      StringBuilder color = new StringBuilder();
      for (int k = 0; k < 60_000; k++) {
        color.append((char) ('a' + random.nextInt(26)));
      }
      colors.add(color.toString());
      yaml.append("---\napiVersion: demo.mvproxy.io/v2\nkind: Widget\nmetadata:\n  name: big-").append(i)
          .append("\n  namespace: compressed\nspec:\n  size: ").append(i).append("\n  color: ").append(color)
          .append('\n');
    }
    Path file = tmp.resolve("big-widgets.yaml");
    Files.writeString(file, yaml);
    Result created = kubectl("create", "-f", file.toString());
    assertEquals(0, created.code, created.all());
    Result got = kubectl("get", "widgets.v2.demo.mvproxy.io", "-n", "compressed", "-o", "json");
    assertEquals(0, got.code, got.err);
    io.vertx.core.json.JsonArray items = new io.vertx.core.json.JsonObject(got.out).getJsonArray("items");
    assertEquals(3, items.size());
    for (int i = 0; i < 3; i++) {
      assertEquals(colors.get(i), items.getJsonObject(i).getJsonObject("spec").getString("color"));
    }
    String path = "/apis/demo.mvproxy.io/v2/namespaces/compressed/widgets";
    HttpsClient admin = fleet.admin();
    HttpsClient.Resp gz = admin.send(io.vertx.core.http.HttpMethod.GET, fleet.node("node-a").url(), path,
        Map.of("Accept-Encoding", "gzip"), null);
    assertEquals(200, gz.status(), gz.text());
    assertEquals("gzip", gz.headers().get("Content-Encoding"));
    assertEquals("Accept-Encoding", gz.headers().get("Vary"));
    String body;
    try (java.util.zip.GZIPInputStream in = new java.util.zip.GZIPInputStream(
        new java.io.ByteArrayInputStream(gz.body().getBytes()))) {
      body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertTrue(gz.body().length() < body.length() * 3 / 4, gz.body().length() + " of " + body.length());
    assertEquals(3, new io.vertx.core.json.JsonObject(body).getJsonArray("items").size());
    HttpsClient.Resp plain = admin.get(fleet.node("node-a").url(), path);
    assertEquals(null, plain.headers().get("Content-Encoding"));
    assertEquals(3, plain.json().getJsonArray("items").size());
    assertEquals(0, kubectl("delete", "namespace", "compressed", "--wait=false").code);
  }

  record Result(int code, String out, String err) {
    String all() {
      return "exit " + code + "\nstdout:\n" + out + "\nstderr:\n" + err;
    }
  }

  /** @return kubectl and, when it sits beside it, kubectl 1.27 (the oldest client served) */
  private List<String> newestAnd127() throws Exception {
    Path old = Path.of(kubectl).toRealPath().getParent().resolve("kubectl.1.27");
    List<String> clients = new ArrayList<>(List.of(kubectl));
    if (Files.isExecutable(old)) {
      clients.add(old.toString());
    }
    return clients;
  }

  Result kubectl(String... args) throws Exception {
    return kubectlWith(kubectl, args);
  }

  /** Runs one kubectl binary against node-a. */
  Result kubectlWith(String binary, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(binary, "--kubeconfig", fleet.pki().kubeconfig().toString(),
        "--context", "node-a", "--cache-dir", tmp.resolve("kube-cache").toString(), "--request-timeout=20s"));
    cmd.addAll(List.of(args));
    return run(cmd, 60);
  }

  static Result run(List<String> cmd, int timeoutS) throws Exception {
    Path out = Files.createTempFile("mvproxy-cmd", ".out");
    Path err = Files.createTempFile("mvproxy-cmd", ".err");
    Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(timeoutS, TimeUnit.SECONDS)) {
      p.destroyForcibly();
    }
    Result r = new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
    Files.deleteIfExists(out);
    Files.deleteIfExists(err);
    return r;
  }

  static String which(String name) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path p = Path.of(dir, name);
      if (Files.isExecutable(p)) {
        return p.toString();
      }
    }
    return null;
  }
}
