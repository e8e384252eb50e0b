package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
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
 * Issue 18's proof with real operator CRD bundles and two kubectl versions on a 2-node fleet without plugins:
 * every CRD of {@code shared/testdata/crds} (cert-manager, knative, prometheus-operator's 600 KiB Alertmanager,
 * sample-controller) applied in one {@code kubectl apply -f DIR} through node-a with kubectl 1.27 (the oldest
 * supported; the Alertmanager CRD is refused there as by kube-apiserver, its last-applied annotation being over
 * 256 KiB, and goes in with {@code apply --server-side} as prometheus-operator's docs say) and awaited {@code Established} through node-b with the newest kubectl; the upstream example objects
 * created through node-b while a {@code kubectl get -w} through node-a sees them; listed through both nodes with
 * both kubectls; then the Alertmanager CRD deleted with its objects through node-b: the objects go first, then the
 * CRD, and the resource leaves both nodes' discovery. Skipped when kubectl is missing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("fleet")
class SharedCrdBundlesFleetTest {
  static final List<String> CRDS = List.of("certificaterequests.cert-manager.io",
      "consumergroups.internal.kafka.eventing.knative.dev", "alertmanagers.monitoring.coreos.com",
      "foos.samplecontroller.k8s.io");
  FleetHarness fleet;
  Path tmp;
  String newest;
  String oldest;
  Path data;

  @BeforeAll
  void start() throws Exception {
    newest = KubectlFleetTest.which("kubectl");
    Assumptions.assumeTrue(newest != null, "kubectl is not on PATH");
    Path old = Path.of(newest).toRealPath().getParent().resolve("kubectl.1.27");
    oldest = Files.isExecutable(old) ? old.toString() : newest;
    Assumptions.assumeTrue(TestData.shared().isPresent(), "shared/testdata is missing");
    data = TestData.shared().get().resolve("testdata");
    tmp = Files.createTempDirectory("mvproxy-bundles-test");
    Map<String, Map<String, List<Path>>> plugins = new LinkedHashMap<>();
    plugins.put("node-a", new LinkedHashMap<>());
    plugins.put("node-b", new LinkedHashMap<>());
    fleet = new FleetHarness(tmp.resolve("fleet"), plugins);
    fleet.startAllAndAwaitReady(120_000);
  }

  @AfterAll
  void stop() {
    if (fleet != null) {
      fleet.close();
    }
  }

  @Test
  void operatorBundlesThroughOneNodeServedByEvery() throws Exception {
    long t0 = System.currentTimeMillis();
    // client-side apply stores the whole manifest in the last-applied annotation: the 600 KiB Alertmanager CRD is
    // refused as kube-apiserver refuses it (prometheus-operator's docs say: apply it with --server-side)
    KubectlFleetTest.Result applied = kubectl(oldest, "node-a", "apply", "-f", data.resolve("crds").toString());
    assertEquals(1, applied.code(), applied.all());
    assertTrue(applied.err().contains("The CustomResourceDefinition \"alertmanagers.monitoring.coreos.com\" is "
        + "invalid: metadata.annotations: Too long: may not be more than 262144 bytes"), applied.all());
    for (String crd : CRDS) {
      assertEquals(!crd.startsWith("alertmanagers."),
          applied.out().contains("customresourcedefinition.apiextensions.k8s.io/" + crd + " created"), applied.all());
    }
    KubectlFleetTest.Result ssa = kubectl(oldest, "node-a", "apply", "--server-side", "-f",
        data.resolve("crds/prometheus-operator-alertmanagers.yaml").toString());
    assertEquals(0, ssa.code(), ssa.all());
    assertTrue(ssa.out().contains("customresourcedefinition.apiextensions.k8s.io/alertmanagers.monitoring.coreos.com"
        + " serverside-applied"), ssa.all());
    List<String> wait = new ArrayList<>(List.of("wait", "--for=condition=Established", "--timeout=60s"));
    CRDS.forEach(c -> wait.add("crd/" + c));
    KubectlFleetTest.Result established = kubectl(newest, "node-b", wait.toArray(String[]::new));
    assertEquals(0, established.code(), established.all());
    long establishedMs = System.currentTimeMillis() - t0;

    // Established means every live node serves them: a watch through node-a sees what node-b creates
    Path watchOut = tmp.resolve("watch.out");
    Process watch = new ProcessBuilder(cmd(newest, "node-a", "get", "alertmanagers", "-n", "default", "--watch",
        "-o", "name")).redirectOutput(watchOut.toFile()).redirectError(tmp.resolve("watch.err").toFile()).start();
    try {
      FleetTest.await("the watch through node-a is established", 30_000,
          () -> kubectl(newest, "node-a", "get", "alertmanagers", "-n", "default").code() == 0);
      KubectlFleetTest.Result made = kubectl(newest, "node-b", "apply", "-n", "default", "-f",
          data.resolve("objects/prometheus-operator-alertmanager-example.yaml").toString());
      assertEquals(0, made.code(), made.all());
      assertTrue(made.out().contains("alertmanager.monitoring.coreos.com/example created"), made.all());
      KubectlFleetTest.Result foo = kubectl(oldest, "node-b", "apply", "-n", "default", "-f",
          data.resolve("objects/samplecontroller-example-foo.yaml").toString());
      assertEquals(0, foo.code(), foo.all());
      FleetTest.await("node-a's kubectl watch saw the Alertmanager created through node-b", 30_000,
          () -> Files.readString(watchOut, StandardCharsets.UTF_8).contains("alertmanager.monitoring.coreos.com/"
              + "example"));
    } finally {
      watch.destroy();
      watch.waitFor(10, TimeUnit.SECONDS);
    }
    for (String node : List.of("node-a", "node-b")) {
      for (String client : List.of(oldest, newest)) {
        KubectlFleetTest.Result am = kubectl(client, node, "get", "am", "example", "-n", "default");
        assertEquals(0, am.code(), node + " " + client + ": " + am.all());
        assertTrue(am.out().contains("example"), am.all());
        KubectlFleetTest.Result foos = kubectl(client, node, "get", "foos", "-n", "default", "-o", "name");
        assertEquals(0, foos.code(), foos.all());
        assertEquals("foo.samplecontroller.k8s.io/example-foo", foos.out().trim(), foos.all());
        KubectlFleetTest.Result scale = kubectl(client, node, "get", "--raw",
            "/apis/monitoring.coreos.com/v1/namespaces/default/alertmanagers/example/scale");
        assertEquals(0, scale.code(), scale.all());
        assertTrue(scale.out().contains("\"replicas\":3"), scale.all());
      }
    }

    // deleting a CRD with objects: the objects first (customresourcecleanup finalizer), then the CRD, everywhere
    long d0 = System.currentTimeMillis();
    KubectlFleetTest.Result deleted = kubectl(newest, "node-b", "delete", "crd", "alertmanagers.monitoring.coreos.com",
        "--timeout=60s");
    assertEquals(0, deleted.code(), deleted.all());
    for (String node : List.of("node-a", "node-b")) {
      FleetTest.await("alertmanagers gone from " + node + "'s discovery", 30_000, () -> {
        KubectlFleetTest.Result res = kubectl(newest, node, "api-resources", "--api-group=monitoring.coreos.com");
        return res.code() == 0 && !res.out().contains("alertmanagers");
      });
      KubectlFleetTest.Result gone = kubectl(newest, node, "get", "crd", "alertmanagers.monitoring.coreos.com");
      assertTrue(gone.code() != 0 && gone.err().contains("NotFound"), gone.all());
      KubectlFleetTest.Result others = kubectl(oldest, node, "get", "crd", "-o", "name");
      assertEquals(0, others.code(), others.all());
      for (String crd : CRDS) {
        assertEquals(!crd.startsWith("alertmanagers."), others.out().contains(crd), others.all());
      }
    }
    HttpsClient.Resp raw = fleet.admin().get(fleet.node("node-a").url(),
        "/apis/monitoring.coreos.com/v1/namespaces/default/alertmanagers/example");
    assertEquals(404, raw.status(), raw.text());
    System.out.printf("FIGURE shared CRD bundles: %d CRDs applied (kubectl 1.27) to Established on node-b %d ms;"
        + " CRD with an object deleted everywhere in %d ms%n", CRDS.size(), establishedMs,
        System.currentTimeMillis() - d0);
  }

  private List<String> cmd(String binary, String node, String... args) {
    List<String> cmd = new ArrayList<>(List.of(binary, "--kubeconfig", fleet.pki().kubeconfig().toString(),
        "--context", node, "--cache-dir", tmp.resolve("kube-cache-" + node + "-" + Path.of(binary).getFileName())
            .toString(), "--request-timeout=30s"));
    cmd.addAll(List.of(args));
    return cmd;
  }

  private KubectlFleetTest.Result kubectl(String binary, String node, String... args) throws Exception {
    return KubectlFleetTest.run(cmd(binary, node, args), 90);
  }
}
