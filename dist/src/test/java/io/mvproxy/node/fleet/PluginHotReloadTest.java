package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.testkit.CodePluginJar;
import io.mvproxy.node.plugin.PluginPacker;
import io.mvproxy.node.plugin.PluginVerticle;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Hot plugin loading in a running 3-node fleet (separate processes): a jar dropped into node-a's folder is served
 * through node-c within a second; replacement and removal converge the same way; broken jars are FAILED and reported
 * through the mvproxy.io API while everything else keeps serving; a plugin swapped under a steady stream of requests
 * causes no 5xx.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("fleet")
class PluginHotReloadTest {
  static final String V2 = FleetTest.V2;
  static final String SPROCKETS = "/apis/sprockets.mvproxy.io/%s/namespaces/default/sprockets";
  FleetHarness fleet;
  HttpsClient admin;
  Path tmp;

  @BeforeAll
  void start() throws Exception {
    tmp = Files.createTempDirectory("mvproxy-hot-reload-test");
    fleet = new FleetHarness(tmp.resolve("fleet"), FleetHarness.oldNewNew());
    admin = new HttpsClient(fleet.pki().caCert(), fleet.pki().adminCert(), fleet.pki().adminKey());
    fleet.startAllAndAwaitReady(admin, 120_000);
  }

  @AfterAll
  void stop() {
    if (admin != null) {
      admin.close();
    }
    if (fleet != null) {
      fleet.close();
    }
  }

  Path pluginDir(String node) {
    return fleet.dir().resolve("plugins-" + node);
  }

  /** Writes a CRD for sprockets serving the given versions (first one is storage). */
  Path sprocketsJar(String name, String... versions) throws Exception {
    StringBuilder v = new StringBuilder();
    for (int i = 0; i < versions.length; i++) {
      v.append("""
            - name: %s
              served: true
              storage: %s
              schema:
                openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
          """.formatted(versions[i], i == 0));
    }
    Path yaml = tmp.resolve(name + ".yaml");
    Files.writeString(yaml, """
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata:
          name: sprockets.sprockets.mvproxy.io
        spec:
          group: sprockets.mvproxy.io
          scope: Namespaced
          names: {plural: sprockets, singular: sprocket, kind: Sprocket}
          versions:
        """ + v);
    Path jar = tmp.resolve(name + ".jar");
    new PluginPacker().pack(jar, "sprockets", name, List.of(yaml));
    return jar;
  }

  boolean lists(FleetHarness.NodeProc n, String gv) throws Exception {
    HttpsClient.Resp r = admin.send(HttpMethod.GET, n.url(), "/apis", Map.of("Accept", V2), null);
    for (Object g : r.json().getJsonArray("items")) {
      JsonObject group = (JsonObject) g;
      for (Object ver : group.getJsonArray("versions")) {
        String name = group.getJsonObject("metadata").getString("name") + "/" + ((JsonObject) ver).getString("version");
        if (name.equals(gv) && !"Stale".equals(((JsonObject) ver).getString("freshness"))) {
          return true;
        }
      }
    }
    return false;
  }

  static final java.util.regex.Pattern STAGE = java.util.regex.Pattern.compile(
      "convergence (\\S+) origin=(\\S+) etag=(\\S+) at=(\\d+)");

  /**
   * The convergence stages ({@code io.mvproxy.node.fleet.Convergence}) of a change on {@code origin} as seen by
   * {@code peer}, from their logs: the first of each stage at or after {@code wall0}, in ms after it.
   */
  static String stages(long wall0, FleetHarness.NodeProc origin, FleetHarness.NodeProc peer) {
    Map<String, Long> at = new java.util.LinkedHashMap<>();
    for (String stage : List.of("file-event", "applied", "announced")) {
      at.put(stage, null);
    }
    for (String stage : List.of("announce-received", "fetched", "merged")) {
      at.put(stage, null);
    }
    scan(origin.log(), wall0, at, List.of("file-event", "applied", "announced"), null);
    scan(peer.log(), wall0, at, List.of("announce-received", "fetched", "merged"), origin.name);
    StringBuilder b = new StringBuilder();
    Long prev = wall0;
    for (Map.Entry<String, Long> e : at.entrySet()) {
      b.append(e.getKey()).append(' ').append(e.getValue() == null ? "?" : (e.getValue() - wall0)
          + (prev == null ? "" : " (+" + (e.getValue() - prev) + ")")).append(", ");
      prev = e.getValue();
    }
    return b.substring(0, b.length() - 2);
  }

  private static void scan(String log, long wall0, Map<String, Long> at, List<String> stages, String origin) {
    java.util.regex.Matcher m = STAGE.matcher(log);
    while (m.find()) {
      long t = Long.parseLong(m.group(4));
      if (t >= wall0 && stages.contains(m.group(1)) && at.get(m.group(1)) == null
          && (origin == null || origin.equals(m.group(2)))) {
        at.put(m.group(1), t);
      }
    }
  }

  long waitMs(long t0, String what, FleetTest.Check check) throws Exception {
    FleetTest.await(what, 10_000, check);
    return (System.nanoTime() - t0) / 1_000_000;
  }

  @Test
  @Order(1)
  void droppedJarIsUsableThroughEveryNodeWithinASecond() throws Exception {
    Path jar = sprocketsJar("sprockets-1", "v1");
    FleetHarness.NodeProc b = fleet.node("node-b");
    FleetHarness.NodeProc c = fleet.node("node-c");
    long wall0 = System.currentTimeMillis();
    long t0 = System.nanoTime();
    Files.move(jar, pluginDir("node-a").resolve("sprockets.jar"), StandardCopyOption.ATOMIC_MOVE);
    long onB = waitMs(t0, "node-b lists sprockets v1", () -> lists(b, "sprockets.mvproxy.io/v1"));
    long onC = waitMs(t0, "node-c lists sprockets v1", () -> lists(c, "sprockets.mvproxy.io/v1"));
    Map<String, Integer> seen = new java.util.TreeMap<>();
    long proxied = waitMs(t0, "request through node-c proxied to node-a", () -> {
      HttpsClient.Resp r = admin.get(c.url(), SPROCKETS.formatted("v1"));
      seen.merge(r.status() + (r.status() == 200 ? "" : " " + r.json().getString("message", "")), 1, Integer::sum);
      return r.status() == 200;
    });
    System.out.printf("FIGURE drop: node-b discovery %d ms, node-c discovery %d ms, proxied request via node-c %d ms"
        + " (answers before: %s)%n", onB, onC, proxied, seen);
    System.out.println("FIGURE drop stages (ms after the move): " + stages(wall0, fleet.node("node-a"), c));
    JsonObject s = new JsonObject().put("apiVersion", "sprockets.mvproxy.io/v1").put("kind", "Sprocket")
        .put("metadata", new JsonObject().put("name", "s1")).put("teeth", 12);
    assertEquals(201, admin.send(HttpMethod.POST, c.url(), SPROCKETS.formatted("v1"),
        Map.of("Content-Type", "application/json"), s.encode()).status());
  }

  @Test
  @Order(2)
  void replacedJarConverges() throws Exception {
    Path jar = sprocketsJar("sprockets-2", "v1", "v2");
    FleetHarness.NodeProc c = fleet.node("node-c");
    long t0 = System.nanoTime();
    Files.move(jar, pluginDir("node-a").resolve("sprockets.jar"), StandardCopyOption.ATOMIC_MOVE,
        StandardCopyOption.REPLACE_EXISTING);
    long onC = waitMs(t0, "node-c lists sprockets v2", () -> lists(c, "sprockets.mvproxy.io/v2"));
    long proxied = waitMs(t0, "v2 through node-c", () -> admin.get(c.url(), SPROCKETS.formatted("v2")).status() == 200);
    System.out.printf("FIGURE replace: node-c discovery %d ms, proxied request via node-c %d ms%n", onC, proxied);
    JsonObject list = admin.get(c.url(), SPROCKETS.formatted("v2")).json();
    assertEquals("s1", list.getJsonArray("items").getJsonObject(0).getJsonObject("metadata").getString("name"),
        "objects stored before the swap are still there");
  }

  @Test
  @Order(3)
  void removedJarConvergesAndTheApiIsGone() throws Exception {
    FleetHarness.NodeProc c = fleet.node("node-c");
    long wall0 = System.currentTimeMillis();
    long t0 = System.nanoTime();
    Files.delete(pluginDir("node-a").resolve("sprockets.jar"));
    long onC = waitMs(t0, "node-c drops sprockets", () -> !lists(c, "sprockets.mvproxy.io/v1"));
    long gone = waitMs(t0, "404 through node-c", () -> admin.get(c.url(), SPROCKETS.formatted("v1")).status() == 404);
    System.out.printf("FIGURE remove: node-c discovery %d ms, 404 via node-c %d ms%n", onC, gone);
    System.out.println("FIGURE remove stages (ms after the delete): " + stages(wall0, fleet.node("node-a"), c));
  }

  @Test
  @Order(4)
  void brokenJarsAreFailedAndReportedWhileTheNodeKeepsServing() throws Exception {
    FleetHarness.NodeProc b = fleet.node("node-b");
    Path dir = pluginDir("node-b");
    Files.write(dir.resolve("corrupt.jar"), "not a zip".getBytes());
    // plugin pack refuses invalid CRDs, so this jar is built by hand, as another tool might
    CodePluginJar.rawManifestJar(tmp.resolve("invalid.jar"), """
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: wrong-name}
        spec:
          group: bad.mvproxy.io
          scope: Sideways
          names: {plural: bads, kind: Bad}
          versions: [{name: v1, served: true, storage: true}]
        """);
    Files.move(tmp.resolve("invalid.jar"), dir.resolve("invalid.jar"));
    new PluginPacker().pack(tmp.resolve("dup.jar"), "dup", "1",
        List.of(TestData.example("widgets-new").resolve("widgets.yaml")));
    Files.move(tmp.resolve("dup.jar"), dir.resolve("zz-duplicate-widgets.jar"));
    // the same CustomResourceDefinition name with another version and scope: one CRD per <plural>.<group>
    Path v3 = tmp.resolve("widgets-v3.yaml");
    Files.writeString(v3, """
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: widgets.demo.mvproxy.io}
        spec:
          group: demo.mvproxy.io
          scope: Cluster
          names: {plural: widgets, singular: widget, kind: Widget}
          versions: [{name: v3, served: true, storage: true, schema: {openAPIV3Schema: {type: object,
            x-kubernetes-preserve-unknown-fields: true}}}]
        """);
    new PluginPacker().pack(tmp.resolve("v3.jar"), "v3", "1", List.of(v3));
    Files.move(tmp.resolve("v3.jar"), dir.resolve("zz-widgets-v3.jar"));
    CodePluginJar.build(tmp.resolve("throws.jar"), tmp.resolve("throws-src"), "demo.t.GreetingProvider",
        CodePluginJar.greetingPlugin("demo.t", "throws.mvproxy.io", true));
    Files.move(tmp.resolve("throws.jar"), dir.resolve("throws.jar"));
    FleetTest.await("five FAILED plugins on node-b", 10_000, () -> failed(b).size() == 5);
    Map<String, String> failed = failed(b);
    assertTrue(failed.get("corrupt").contains("cannot read jar"), failed.toString());
    assertTrue(failed.get("invalid").contains("Invalid") || failed.get("invalid").contains("invalid"), failed.toString());
    assertTrue(failed.get("zz-duplicate-widgets").contains("already served"), failed.toString());
    assertTrue(failed.get("throws").contains("refuses to start"), failed.toString());
    assertTrue(failed.get("zz-widgets-v3").contains("CustomResourceDefinition widgets.demo.mvproxy.io is already "
        + "served by plugin"), failed.toString());
    assertEquals(200, admin.get(b.url(), "/readyz").status());
    assertEquals(200, admin.get(b.url(), FleetTest.WIDGETS_V2).status());
    assertEquals(200, admin.get(fleet.node("node-a").url(), FleetTest.WIDGETS_V2).status());
    JsonObject nodes = admin.get(b.url(), "/apis/mvproxy.io/v1alpha1/apiservernodes").json();
    assertEquals(3, nodes.getJsonArray("items").size(), nodes.encodePrettily());
  }

  /** @return true when the node's plugins API lists {@code widgets-new.jar} ACTIVE at {@code version} */
  boolean runs(FleetHarness.NodeProc n, String version) throws Exception {
    for (Object o : admin.get(n.url(), "/apis/mvproxy.io/v1alpha1/plugins").json().getJsonArray("items")) {
      JsonObject p = (JsonObject) o;
      if (p.getJsonObject("metadata").getString("name").equals("widgets-new")
          && version.equals(p.getJsonObject("spec").getString("version"))
          && "ACTIVE".equals(p.getJsonObject("status").getString("state"))) {
        return true;
      }
    }
    return false;
  }

  Map<String, String> failed(FleetHarness.NodeProc n) throws Exception {
    Map<String, String> out = new LinkedHashMap<>();
    HttpsClient.Resp r = admin.get(n.url(), "/apis/mvproxy.io/v1alpha1/plugins");
    for (Object o : r.json().getJsonArray("items")) {
      JsonObject p = (JsonObject) o;
      if ("FAILED".equals(p.getJsonObject("status").getString("state"))) {
        out.put(p.getJsonObject("metadata").getString("name"), p.getJsonObject("status").getString("error"));
      }
    }
    return out;
  }

  @Test
  @Order(5)
  void swapUnderSteadyTrafficCausesNo5xx() throws Exception {
    FleetHarness.NodeProc a = fleet.node("node-a");
    AtomicBoolean run = new AtomicBoolean(true);
    AtomicInteger ok = new AtomicInteger();
    List<String> bad = new java.util.concurrent.CopyOnWriteArrayList<>();
    Thread load = new Thread(() -> {
      // a safety bound: the swaps below pace on conditions, which a loaded machine makes slower
      long end = System.currentTimeMillis() + 240_000;
      while (run.get() && System.currentTimeMillis() < end) {
        try {
          HttpsClient.Resp r = admin.get(a.url(), FleetTest.WIDGETS_V2);
          if (r.status() >= 500 || r.status() == 404) {
            bad.add(r.status() + " " + r.text());
          } else {
            ok.incrementAndGet();
          }
        } catch (Exception e) {
          bad.add(e.toString());
        }
      }
    });
    load.start();
    List<Path> newSet = TestData.newWidgets();
    Map<String, Integer> closedBefore = new LinkedHashMap<>();
    for (String node : List.of("node-b", "node-c")) {
      closedBefore.put(node, PluginRollbackTest.count(fleet.node(node).log(), PluginVerticle.CLOSED_LOG));
    }
    for (int i = 0; i < 3; i++) {
      for (String node : List.of("node-b", "node-c")) {
        Path jar = tmp.resolve("swap-" + node + i + ".jar");
        new PluginPacker().pack(jar, "widgets-new", "swap-" + i, newSet);
        Files.move(jar, pluginDir(node).resolve("widgets-new.jar"), StandardCopyOption.REPLACE_EXISTING,
            StandardCopyOption.ATOMIC_MOVE);
        // the next swap once this one is ACTIVE: its predecessor is still draining, so swaps overlap
        String version = "swap-" + i;
        FleetTest.await(node + " runs widgets-new " + version, 30_000, () -> runs(fleet.node(node), version));
      }
    }
    // every swapped-out version drained and closed under the traffic too (PluginVerticle logs each close)
    FleetTest.await("node-b and node-c closed the 3 versions each swapped out", 60_000,
        () -> closedBefore.entrySet().stream().allMatch(e -> PluginRollbackTest.count(fleet.node(e.getKey()).log(),
            PluginVerticle.CLOSED_LOG) >= e.getValue() + 3));
    int afterSwaps = ok.get();
    // keep the traffic going until it has done some requests after the last swap (a loaded machine is slow)
    FleetTest.await("requests after the last swap", 60_000, () -> ok.get() > Math.max(20, afterSwaps + 5));
    run.set(false);
    load.join();
    System.out.printf("FIGURE swap under traffic: %d requests ok, %d bad%n", ok.get(), bad.size());
    assertTrue(ok.get() > 20, "too few requests: " + ok.get());
    assertEquals(new ArrayList<String>(), bad);
  }
}
