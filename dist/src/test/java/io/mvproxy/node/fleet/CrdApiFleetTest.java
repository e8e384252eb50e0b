package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * CustomResourceDefinitions through the API on a 2-node fleet (memory storage), with the real kubectl: a CRD of
 * {@code shared/testdata/crds} applied through node-a becomes Established (every node serves it), its objects are
 * created and listed through node-b, deleting the CRD deletes them and the resource leaves discovery on both nodes;
 * creates right after the delete are never stored; the name of a plugin's CRD is refused with 409 and a plugin jar
 * serving the API-created name is FAILED; node-b
 * answers 503, never 404, between the create and serving it. Skipped when kubectl or the shared test data is missing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("fleet")
class CrdApiFleetTest {
  static final String CRD = "foos.samplecontroller.k8s.io";
  FleetHarness fleet;
  Path tmp;
  String kubectl;
  Path crdFile;

  @BeforeAll
  void start() throws Exception {
    kubectl = KubectlFleetTest.which("kubectl");
    Assumptions.assumeTrue(kubectl != null, "kubectl is not on PATH");
    Assumptions.assumeTrue(TestData.shared().isPresent(), "shared/testdata is missing");
    crdFile = TestData.shared().get().resolve("testdata/crds/samplecontroller-foos.yaml");
    tmp = Files.createTempDirectory("mvproxy-crdapi-test");
    Map<String, Map<String, List<Path>>> plugins = new LinkedHashMap<>();
    plugins.put("node-a", new LinkedHashMap<>(Map.of("widgets-old",
        List.of(TestData.example("widgets-old").resolve("widgets.yaml")))));
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
  void applyEstablishServeEverywhereDeleteWithObjects() throws Exception {
    long t0 = System.nanoTime();
    KubectlFleetTest.Result applied = kubectl("node-a", "apply", "-f", crdFile.toString());
    assertEquals(0, applied.code(), applied.all());
    assertTrue(applied.out().contains("customresourcedefinition.apiextensions.k8s.io/" + CRD + " created"),
        applied.all());
    // through node-b, from the moment the create returned: 503 (stored, not served yet) or 200, never 404
    HttpsClient admin = fleet.admin();
    String listPath = "/apis/samplecontroller.k8s.io/v1alpha1/namespaces/default/foos";
    List<Integer> seen = new ArrayList<>();
    long[] servedAt = {0};
    AssertionError timedOut = null;
    try {
      // a fine pace: the time to the first 200 is a figure
      FleetTest.await("node-b serves foos", 10_000, Long.getLong("crdapi.pollMs", 20), () -> {
        int code = admin.get(fleet.node("node-b").url(), listPath).status();
        seen.add(code);
        if (code == 200) {
          servedAt[0] = System.nanoTime();
        }
        return code == 200;
      });
    } catch (AssertionError notServed) {
      timedOut = notServed;  // judged below, with every answer seen
    }
    if (servedAt[0] == 0 || seen.contains(404)) {
      throw new AssertionError("node-b answered " + new java.util.TreeMap<>(seen.stream()
          .collect(java.util.stream.Collectors.groupingBy(c -> c, java.util.stream.Collectors.counting()))), timedOut);
    }
    long servedMs = (servedAt[0] - t0) / 1_000_000;
    // kubectl wait through the OTHER node: Established means every live node serves it
    KubectlFleetTest.Result established = kubectl("node-b", "wait", "--for=condition=Established", "crd/" + CRD,
        "--timeout=30s");
    assertEquals(0, established.code(), established.all());
    long establishedMs = (System.nanoTime() - t0) / 1_000_000;
    JsonObject crd = new JsonObject(kubectl("node-a", "get", "crd", CRD, "-o", "json").out());
    assertEquals("True", condition(crd, "NamesAccepted").getString("status"), crd.encodePrettily());
    assertEquals("NoConflicts", condition(crd, "NamesAccepted").getString("reason"));
    assertEquals("InitialNamesAccepted", condition(crd, "Established").getString("reason"));
    // samplecontroller.k8s.io is a protected group: its "unapproved, ..." annotation passes, and is reported
    KubectlFleetTest.Result approval = kubectl("node-a", "wait",
        "--for=condition=KubernetesAPIApprovalPolicyConformant=False", "crd/" + CRD, "--timeout=30s");
    assertEquals(0, approval.code(), approval.all());
    assertEquals("UnapprovedAnnotation", condition(new JsonObject(kubectl("node-a", "get", "crd", CRD, "-o", "json")
        .out()), "KubernetesAPIApprovalPolicyConformant").getString("reason"));
    assertEquals(new JsonArray().add("v1alpha1"), crd.getJsonObject("status").getJsonArray("storedVersions"));
    assertEquals("Foo", crd.getJsonObject("status").getJsonObject("acceptedNames").getString("kind"));
    for (String node : List.of("node-a", "node-b")) {
      KubectlFleetTest.Result res = kubectl(node, "api-resources", "--api-group=samplecontroller.k8s.io");
      assertTrue(res.out().contains("foos"), node + ":\n" + res.all());
    }

    Path foo = tmp.resolve("foo.yaml");
    for (int i = 0; i < 3; i++) {
      Files.writeString(foo, """
          apiVersion: samplecontroller.k8s.io/v1alpha1
          kind: Foo
          metadata:
            name: foo-%d
            namespace: default
          spec:
            deploymentName: d%d
            replicas: 2
          """.formatted(i, i));
      KubectlFleetTest.Result made = kubectl("node-b", "apply", "-f", foo.toString());
      assertEquals(0, made.code(), made.all());
    }
    KubectlFleetTest.Result bad = kubectl("node-b", "patch", "foo", "foo-0", "--type=merge", "-p",
        "{\"spec\":{\"replicas\":11}}");
    assertTrue(bad.code() != 0 && bad.err().contains("spec.replicas"), "the CRD's schema applies:\n" + bad.all());
    for (String node : List.of("node-a", "node-b")) {
      KubectlFleetTest.Result list = kubectl(node, "get", "foos", "-o", "name");
      assertEquals(0, list.code(), list.all());
      assertEquals(3, list.out().lines().filter(l -> l.startsWith("foo.samplecontroller.k8s.io/foo-")).count(),
          node + ":\n" + list.all());
    }

    // a client-side apply that changes the spec: generation 2, every node swaps its source (the short name appears)
    Path changed = tmp.resolve("foos-changed.yaml");
    Files.writeString(changed, Files.readString(crdFile).replace("    plural: foos", "    plural: foos\n    shortNames: [fo]"));
    KubectlFleetTest.Result configured = kubectl("node-a", "apply", "-f", changed.toString());
    assertEquals(0, configured.code(), configured.all());
    assertTrue(configured.out().contains("configured"), configured.all());
    assertEquals(2L, new JsonObject(kubectl("node-a", "get", "crd", CRD, "-o", "json").out())
        .getJsonObject("metadata").getLong("generation"));
    for (String node : List.of("node-a", "node-b")) {
      FleetTest.await("short name fo on " + node, 20_000, () -> kubectl(node, "get", "fo", "-o", "name").out()
          .lines().filter(l -> l.startsWith("foo.samplecontroller.k8s.io/foo-")).count() == 3);
    }

    // a plugin's CRD name: the plugin wins, the API refuses
    KubectlFleetTest.Result pluginName = kubectl("node-b", "label", "crd", "widgets.demo.mvproxy.io", "x=y");
    assertTrue(pluginName.code() != 0 && pluginName.err().contains("provided by plugins of the nodes node-a"),
        pluginName.all());

    // a plugin jar serving the API-created name is refused on load, with the reason
    Path jar = tmp.resolve("foos-plugin.jar");
    new io.mvproxy.node.plugin.PluginPacker().pack(jar, "foos-plugin", "1", List.of(crdFile));
    Files.move(jar, fleet.dir().resolve("plugins-node-b").resolve("foos-plugin.jar"));
    FleetTest.await("foos-plugin FAILED on node-b", 20_000, () -> pluginError("foos-plugin") != null);
    assertTrue(pluginError("foos-plugin").contains("CustomResourceDefinition " + CRD + " was created through the API"),
        pluginError("foos-plugin"));
    assertEquals(200, admin.get(fleet.node("node-a").url(), listPath).status());

    long d0 = System.nanoTime();
    KubectlFleetTest.Result deleted = kubectl("node-a", "delete", "crd", CRD, "--timeout=60s");
    assertEquals(0, deleted.code(), deleted.all());
    long deletedMs = (System.nanoTime() - d0) / 1_000_000;
    // creates through node-a right after the delete, while its withdrawn source still drains (breakit: one was
    // stored, 201, and came back with the CRD created again below): never stored
    String late = "{\"apiVersion\":\"samplecontroller.k8s.io/v1alpha1\",\"kind\":\"Foo\",\"metadata\":{\"name\":"
        + "\"late-%d\"},\"spec\":{\"replicas\":1}}";
    List<Integer> lateCodes = new ArrayList<>();
    long lateUntil = System.nanoTime() + 3_000_000_000L;
    for (int i = 0; System.nanoTime() < lateUntil; i++) {
      lateCodes.add(admin.send(io.vertx.core.http.HttpMethod.POST, fleet.node("node-a").url(), listPath,
          Map.of("Content-Type", "application/json"), late.formatted(i)).status());
    }
    assertTrue(!lateCodes.contains(201), "a Foo was created after its CRD was deleted: " + lateCodes);
    for (String node : List.of("node-a", "node-b")) {
      FleetTest.await("foos gone from " + node + "'s discovery", 20_000, () -> {
        KubectlFleetTest.Result res = kubectl(node, "api-resources", "--api-group=samplecontroller.k8s.io");
        return res.code() == 0 && !res.out().contains("foos");
      });
    }
    // the objects went with it: the same CRD created again has none
    KubectlFleetTest.Result again = kubectl("node-b", "apply", "--server-side", "-f", crdFile.toString());
    assertEquals(0, again.code(), again.all());
    KubectlFleetTest.Result established2 = kubectl("node-a", "wait", "--for=condition=Established", "crd/" + CRD,
        "--timeout=30s");
    assertEquals(0, established2.code(), established2.all());
    KubectlFleetTest.Result empty = kubectl("node-a", "get", "foos", "-A", "-o", "name");
    assertEquals(0, empty.code(), empty.all());
    assertEquals("", empty.out().trim(), empty.all());
    System.out.printf("CrdApiFleetTest: apply to served through node-b %d ms (answers before: %s), to Established"
        + " on node-b %d ms; kubectl delete crd (3 objects) %d ms%n", servedMs, seen, establishedMs, deletedMs);
  }

  private String pluginError(String name) throws Exception {
    HttpsClient.Resp r = fleet.admin().get(fleet.node("node-b").url(), "/apis/mvproxy.io/v1alpha1/plugins");
    for (Object o : r.json().getJsonArray("items")) {
      JsonObject p = (JsonObject) o;
      if (name.equals(p.getJsonObject("metadata").getString("name"))
          && "FAILED".equals(p.getJsonObject("status").getString("state"))) {
        return p.getJsonObject("status").getString("error");
      }
    }
    return null;
  }

  private static JsonObject condition(JsonObject crd, String type) {
    for (Object o : crd.getJsonObject("status").getJsonArray("conditions")) {
      if (type.equals(((JsonObject) o).getString("type"))) {
        return (JsonObject) o;
      }
    }
    throw new AssertionError("no " + type + " condition: " + crd.encodePrettily());
  }

  private KubectlFleetTest.Result kubectl(String node, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(kubectl, "--kubeconfig", fleet.pki().kubeconfig().toString(),
        "--context", node, "--cache-dir", tmp.resolve("kube-cache-" + node).toString(), "--request-timeout=20s"));
    cmd.addAll(List.of(args));
    return KubectlFleetTest.run(cmd, 90);
  }
}
