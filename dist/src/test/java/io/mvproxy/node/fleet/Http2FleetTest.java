package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * HTTP/2 on the ingress and both TLS engines, on two real nodes: node-a ({@code --tls-engine=openssl}, ingress and
 * peer hop on BoringSSL) proxies widgets v2 to node-b (JDK TLS). curl negotiates h2 and http/1.1 through ALPN, plain
 * HTTP is answered 400 as Go does, node-a's peer hop speaks h2 ({@code --peer-http2}), a bad request on an h2 connection leaves the connection to the next request, and
 * kubectl (Go's h2 transport, seen through {@code GODEBUG=http2debug=1}) watches widgets through the hop over h2 and
 * gets the event of a create.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("fleet")
class Http2FleetTest {
  static final String WIDGETS_V2 = "/apis/demo.mvproxy.io/v2/namespaces/default/widgets";
  FleetHarness fleet;
  Path tmp;
  String curl;
  String kubectl;

  @BeforeAll
  void start() throws Exception {
    curl = KubectlFleetTest.which("curl");
    kubectl = KubectlFleetTest.which("kubectl");
    Assumptions.assumeTrue(curl != null && kubectl != null, "curl or kubectl not on PATH");
    tmp = Files.createTempDirectory("mvproxy-h2-test");
    Map<String, Map<String, List<Path>>> plugins = FleetHarness.oldNewNew();
    plugins.remove("node-c");
    fleet = new FleetHarness(tmp.resolve("fleet"), plugins);
    // node-a's peer hop speaks h2 too (--peer-http2): kubectl -> h2 -> node-a -> h2 -> node-b
    fleet.configure("node-a", new JsonObject().put("tlsEngine", "openssl").put("peerHttp2", "true"));
    fleet.startAllAndAwaitReady(fleet.admin(), 120_000);
    FleetTest.await("node-a routes widgets v2", 60_000,
        () -> fleet.admin().get(fleet.node("node-a").url(), WIDGETS_V2).status() == 200);
  }

  @AfterAll
  void stop() {
    if (fleet != null) {
      fleet.close();
    }
  }

  List<String> curl(String... args) {
    var pki = fleet.pki();
    List<String> cmd = new ArrayList<>(List.of(curl, "-sS", "--cacert", pki.caCert().toString(), "--cert",
        pki.adminCert().toString(), "--key", pki.adminKey().toString(), "--max-time", "20"));
    cmd.addAll(List.of(args));
    return cmd;
  }

  @Test
  void curlNegotiatesH2AndHttp11OnBothEngines() throws Exception {
    for (String node : List.of("node-a", "node-b")) {
      String url = fleet.node(node).url() + "/version";
      KubectlFleetTest.Result h2 = KubectlFleetTest.run(curl("--http2", "-o", "/dev/null", "-w",
          "%{http_version} %{http_code}", url), 30);
      assertEquals("2 200", h2.out(), node + ": " + h2.all());
      KubectlFleetTest.Result h1 = KubectlFleetTest.run(curl("--http1.1", "-o", "/dev/null", "-w",
          "%{http_version} %{http_code}", url), 30);
      assertEquals("1.1 200", h1.out(), node + ": " + h1.all());
      KubectlFleetTest.Result plain = KubectlFleetTest.run(List.of(curl, "-sS", "-w", "%{http_code}",
          "http://127.0.0.1:" + fleet.node(node).port() + "/version"), 30);
      assertTrue(plain.out().startsWith("Client sent an HTTP request to an HTTPS server.") && plain.out().endsWith("400"),
          node + ": " + plain.all());
    }
  }

  @Test
  void badRequestOnH2LeavesTheConnectionToTheNextRequest() throws Exception {
    String base = fleet.node("node-a").url();
    // one curl, two requests on one h2 connection: the bad path is 400 and the next request reuses the connection
    KubectlFleetTest.Result r = KubectlFleetTest.run(curl("--http2", "-o", "/dev/null", "-o", "/dev/null", "-w",
        "%{http_version} %{http_code} %{num_connects}\\n", base + "/api/v1/namespaces/%zz/pods", base + WIDGETS_V2), 30);
    assertEquals("2 400 1\n2 200 0\n", r.out(), r.all());
  }

  /**
   * {@code HEAD} (curl -I) answers alike over h2 and http/1.1 on both engines, served and proxied (node-a's widgets
   * v2 go to node-b over its h2 peer hop): the GET's status and head, no body, and the body's length where the
   * handler wrote it in one piece. Vert.x's h2 response wrote the body as DATA frames and curl reset the stream
   * (exit 92).
   */
  @Test
  void headAnswersAlikeOverH2AndHttp11() throws Exception {
    // health checks serve every method (kube's NonGoRestfulMux), /version is a go-restful GET route (405)
    Map<String, Integer> paths = new java.util.LinkedHashMap<>();
    paths.put("/version", 405);
    paths.put("/healthz", 200);
    paths.put("/readyz/ping", 200);
    paths.put("/apis", 200);
    paths.put("/api/v1/namespaces/default", 200);
    paths.put(WIDGETS_V2, 200);
    paths.put("/api/v1/namespaces/no-such-namespace", 404);
    paths.put("/openapi/v2", 200);
    for (String node : List.of("node-a", "node-b")) {
      for (String path : paths.keySet()) {
        String url = fleet.node(node).url() + path;
        KubectlFleetTest.Result h1 = KubectlFleetTest.run(curl("--http1.1", "-I", "-o", "/dev/null", "-w",
            "%{http_code} %header{content-length}", url), 30);
        KubectlFleetTest.Result h2 = KubectlFleetTest.run(curl("--http2", "-I", "-o", "/dev/null", "-w",
            "%{http_version} %{http_code} %header{content-length}", url), 30);
        assertEquals(0, h2.code(), node + " " + path + ": " + h2.all());
        assertEquals(0, h1.code(), node + " " + path + ": " + h1.all());
        assertEquals("2 " + h1.out(), h2.out(), node + " " + path);
        assertTrue(h1.out().startsWith(paths.get(path) + " "), node + " " + path + ": " + h1.out());
        assertTrue(h1.out().matches("\\d{3} [1-9]\\d*"), node + " " + path + ": a length, got " + h1.out());
      }
    }
  }

  /**
   * Watches of built-in kinds whose first event is written before or right after the response head (the initial
   * objects, or one ERROR event for a too-old resourceVersion) end cleanly over h2: the storage may complete the
   * watch on another thread than the request's, and a response written from two threads once put the first DATA
   * frame on the wire before the HEADERS frame (Go: "received DATA before a HEADERS frame") or never answered.
   */
  @Test
  void watchesOfBuiltinKindsEndCleanlyOverH2() throws Exception {
    String kubeconfig = fleet.pki().kubeconfig().toString();
    for (String node : List.of("node-a", "node-b")) {
      for (int i = 0; i < 3; i++) {
        for (String path : List.of("/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            "/api/v1/namespaces", "/apis/rbac.authorization.k8s.io/v1/clusterroles")) {
          KubectlFleetTest.Result expired = KubectlFleetTest.run(List.of(kubectl, "--kubeconfig", kubeconfig,
              "--context", node, "get", "--raw", path + "?watch=true&resourceVersion=1&timeoutSeconds=5"), 30);
          assertEquals(0, expired.code(), node + " " + path + ": " + expired.all());
          assertTrue(expired.out().contains("\"type\":\"ERROR\"") && expired.out().contains("\"reason\":\"Expired\""),
              node + " " + path + ": " + expired.all());
          KubectlFleetTest.Result initial = KubectlFleetTest.run(List.of(kubectl, "--kubeconfig", kubeconfig,
              "--context", node, "get", "--raw", path + "?watch=true&timeoutSeconds=1"), 30);
          assertEquals(0, initial.code(), node + " " + path + ": " + initial.all());
          assertTrue(initial.out().startsWith("{\"type\":\"ADDED\""), node + " " + path + ": " + initial.all());
          // curl sends no Accept-Encoding: the uncompressed path, where the frames were seen out of order
          KubectlFleetTest.Result raw = KubectlFleetTest.run(curl("--http2", "-o", "/dev/null", "-w",
              "%{http_version} %{http_code}", fleet.node(node).url() + path + "?watch=true&timeoutSeconds=1"), 30);
          assertEquals("2 200", raw.out(), node + " " + path + ": " + raw.all());
        }
      }
    }
  }

  @Test
  void kubectlWatchesThroughTheHopOverH2() throws Exception {
    List<String> cmd = List.of(kubectl, "--kubeconfig", fleet.pki().kubeconfig().toString(), "--context", "node-a",
        "--cache-dir", tmp.resolve("kube-cache").toString(), "get", "widgets.v2.demo.mvproxy.io", "-w",
        "--output-watch-events", "-o", "name");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(tmp.resolve("watch.err").toFile());
    pb.environment().put("GODEBUG", "http2debug=1");
    Process watch = pb.start();
    List<String> lines = new CopyOnWriteArrayList<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(watch.getInputStream(), StandardCharsets.UTF_8))) {
        for (String l; (l = in.readLine()) != null; ) {
          lines.add(l);
        }
      } catch (java.io.IOException e) {
        // process ended
      }
    });
    reader.setDaemon(true);
    reader.start();
    try {
      String stderr = tmp.resolve("watch.err").toString();
      FleetTest.await("kubectl's watch request went out over h2", 30_000,
          () -> Files.readString(Path.of(stderr)).contains("watch=true"));
      Path w = Files.writeString(tmp.resolve("w.yaml"), "apiVersion: demo.mvproxy.io/v2\nkind: Widget\n"
          + "metadata: {name: h2-watched, namespace: default}\nspec: {size: 3}\n");
      KubectlFleetTest.Result created = KubectlFleetTest.run(List.of(kubectl, "--kubeconfig",
          fleet.pki().kubeconfig().toString(), "--context", "node-a", "--cache-dir", tmp.resolve("kube-cache").toString(),
          "create", "-f", w.toString()), 60);
      assertEquals(0, created.code(), created.all());
      // Go's h2 transport logs every DATA frame it receives: the event arrived on the watch's h2 stream
      FleetTest.await("the watch delivered the create over h2", 15_000, () -> Files.readAllLines(Path.of(stderr))
          .stream().anyMatch(l -> l.contains("http2: Transport received DATA") && l.contains("ADDED")
              && l.contains("h2-watched")));
      String err = Files.readString(tmp.resolve("watch.err"));
      assertTrue(err.contains("http2: Transport") && err.contains("watch=true"), "kubectl did not use h2:\n" + err);
      assertTrue(watch.isAlive(), "kubectl's watch ended: " + lines);
    } finally {
      watch.destroy();
      watch.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
