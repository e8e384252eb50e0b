package io.mvproxy.crd;

import io.mvproxy.registry.impl.CrdSourceOptions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Real kubectl binaries (1.27 and 1.33 when found beside {@code kubectl} on the PATH, else the default one; skipped
 * when none) against a node serving the widgets CRD: apply (create, configure), get (Table, wide, name, chunked),
 * scale, label, JSON patch, server-side apply, watch, delete.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("fleet")
class KubectlTest {
  @AutoClose
  TestNode node;
  @TempDir
  Path tmp;

  @BeforeAll
  void start() throws Exception {
    node = TestNode.withOwnMember(CrdSourceOptions.DEFAULTS);
    node.addAll(CrdRestTest.widgetManifests());
  }

  static Stream<String> kubectls() {
    Path dir = null;
    for (String p : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path k = Path.of(p, "kubectl");
      if (Files.isExecutable(k)) {
        try {
          dir = k.toRealPath().getParent();
        } catch (java.io.IOException e) {
          dir = null;
        }
        break;
      }
    }
    if (dir == null) {
      return Stream.of("absent");
    }
    List<String> out = new ArrayList<>();
    for (String v : new String[] {"kubectl.1.27", "kubectl.1.33"}) {
      if (Files.isExecutable(dir.resolve(v))) {
        out.add(dir.resolve(v).toString());
      }
    }
    if (out.isEmpty()) {
      out.add(dir.resolve("kubectl").toString());
    }
    return out.stream();
  }

  record Run(int rc, String out) {
  }

  Run kubectl(String bin, String ns, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(bin, "-s", node.base(), "--cache-dir",
        tmp.resolve("cache-" + ns).toString(), "-n", ns));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("KUBECONFIG", tmp.resolve("kubeconfig-none").toString());
    pb.environment().put("HOME", tmp.toString());
    Process p = pb.start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("kubectl timed out: " + cmd);
    }
    return new Run(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
  }

  Path yaml(String name, String body) throws Exception {
    Path f = tmp.resolve(name);
    Files.writeString(f, body);
    return f;
  }

  static String widget(String name, int replicas, String extra) {
    return "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: " + name + "\n" + extra
        + "spec:\n  replicas: " + replicas + "\n  color: red\n";
  }

  @ParameterizedTest
  @MethodSource("kubectls")
  void kubectlEndToEnd(String bin) throws Exception {
    Assumptions.assumeFalse("absent".equals(bin), "kubectl not found on the PATH: skipped");
    Files.writeString(tmp.resolve("kubeconfig-none"), "apiVersion: v1\nkind: Config\n");
    String ns = "k" + Path.of(bin).getFileName().toString().replaceAll("[^0-9]", "");
    Path w1 = yaml(ns + "-w1.yaml", widget("w1", 1, ""));
    Run r = kubectl(bin, ns, "apply", "--validate=false", "-f", w1.toString());
    assertEquals(0, r.rc(), r.out());
    assertTrue(r.out().contains("widget.example.com/w1 created"), r.out());

    r = kubectl(bin, ns, "get", "widgets");
    assertEquals(0, r.rc(), r.out());
    assertTrue(r.out().matches("(?s)NAME\\s+REPLICAS\\s+AGE\\s+w1\\s+1\\s+\\d+s\\s*"), r.out());
    r = kubectl(bin, ns, "get", "wd", "-o", "wide");
    assertTrue(r.out().contains("COLOR") && r.out().contains("red"), r.out());

    Path w1b = yaml(ns + "-w1b.yaml", widget("w1", 2, ""));
    r = kubectl(bin, ns, "apply", "--validate=false", "-f", w1b.toString());
    assertTrue(r.out().contains("widget.example.com/w1 configured"), r.out());
    assertEquals("2", kubectl(bin, ns, "get", "widget", "w1", "-o", "jsonpath={.spec.replicas}").out());

    r = kubectl(bin, ns, "scale", "widget", "w1", "--replicas=4");
    assertTrue(r.out().contains("scaled"), r.out());
    assertEquals("4", kubectl(bin, ns, "get", "widget", "w1", "-o", "jsonpath={.spec.replicas}").out());

    r = kubectl(bin, ns, "label", "widget", "w1", "team=blue");
    assertTrue(r.out().contains("labeled"), r.out());
    assertEquals("widget.example.com/w1", kubectl(bin, ns, "get", "widgets", "-l", "team=blue", "-o", "name")
        .out().trim());
    r = kubectl(bin, ns, "patch", "widget", "w1", "--type=json",
        "-p", "[{\"op\":\"replace\",\"path\":\"/spec/color\",\"value\":\"green\"}]");
    assertTrue(r.out().contains("patched"), r.out());

    Path w3 = yaml(ns + "-w3.yaml", widget("w3", 3, ""));
    r = kubectl(bin, ns, "apply", "--server-side", "--validate=false", "-f", w3.toString());
    assertEquals(0, r.rc(), r.out());
    assertTrue(r.out().contains("serverside-applied"), r.out());
    r = kubectl(bin, ns, "get", "widgets", "--chunk-size=1", "-o", "name");
    assertEquals("widget.example.com/w1\nwidget.example.com/w3", r.out().trim());

    List<String> cmd = List.of(bin, "-s", node.base(), "--cache-dir", tmp.resolve("cache-w" + ns).toString(),
        "-n", ns, "get", "widgets", "--watch-only");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(tmp.resolve(ns + "-watch.out").toFile());
    pb.environment().put("KUBECONFIG", tmp.resolve("kubeconfig-none").toString());
    int watches = node.sources.get(0).watchCount();
    Process watch = pb.start();
    try {
      // kubectl's watch is open before the object it should see is created
      Awaitility.await().pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(20)).atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertTrue(node.sources.get(0).watchCount() > watches, "kubectl's watch is open"));
      kubectl(bin, ns, "apply", "--validate=false", "-f", yaml(ns + "-w4.yaml", widget("w4", 1, "")).toString());
      Path out = tmp.resolve(ns + "-watch.out");
      Awaitility.await().pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(100)).atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
        String seen = Files.readString(out);
        assertTrue(seen.matches("(?s).*w4\\s+1\\s+\\d+s.*"), "a Table row: " + seen);
      });
    } finally {
      watch.destroyForcibly();
    }

    r = kubectl(bin, ns, "delete", "widget", "w1");
    assertTrue(r.out().contains("\"w1\" deleted"), r.out());
    r = kubectl(bin, ns, "get", "widget", "w1");
    assertEquals(1, r.rc());
    assertTrue(r.out().contains("NotFound") || r.out().contains("not found"), r.out());
    r = kubectl(bin, ns, "delete", "widgets", "--all");
    assertEquals(0, r.rc(), r.out());
    r = kubectl(bin, ns, "get", "widgets");
    assertFalse(r.out().contains("w3"), r.out());
  }
}
