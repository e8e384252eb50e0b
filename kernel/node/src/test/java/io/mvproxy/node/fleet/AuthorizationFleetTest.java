package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Authorization in the chain of a real 3-node mixed fleet: node-a (widgets v1, RBAC) and node-c (widgets v1,
 * AlwaysAllow) proxy widgets v2 to node-b (widgets v2+v1, RBAC). alice (token, group dev, no bindings) is denied
 * locally and before forwarding (node-b never sees it); through the AlwaysAllow node the serving peer denies her
 * itself; discovery stays open to her; impersonation is authorized by the impersonate verb.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuthorizationFleetTest {
  static final String WIDGETS_V1 = "/apis/demo.mvproxy.io/v1/namespaces/default/widgets";
  static final String WIDGETS_V2 = "/apis/demo.mvproxy.io/v2/namespaces/default/widgets";
  static final Map<String, String> ALICE = Map.of("Authorization", "Bearer alice-token");

  FleetHarness fleet;
  HttpsClient admin;
  HttpsClient anon;

  @BeforeAll
  void start() throws Exception {
    Path tmp = Files.createTempDirectory("mvproxy-authz-test");
    Map<String, Map<String, List<Path>>> plugins = FleetHarness.oldNewNew();
    plugins.put("node-c", plugins.get("node-a"));
    fleet = new FleetHarness(tmp.resolve("fleet"), plugins);
    Path tokens = tmp.resolve("tokens.csv");
    Files.writeString(tokens, "alice-token,alice,uid-alice,\"dev\"\n");
    for (FleetHarness.NodeProc n : fleet.nodes()) {
      fleet.configure(n.name, new JsonObject().put("tokenAuthFile", tokens.toString()));
    }
    fleet.configure("node-c", new JsonObject().put("authorizationMode", "AlwaysAllow"));
    admin = new HttpsClient(fleet.pki().caCert(), fleet.pki().adminCert(), fleet.pki().adminKey());
    anon = new HttpsClient(fleet.pki().caCert(), null, null);
    fleet.startAllAndAwaitReady(admin, 120_000);
    for (String n : List.of("node-a", "node-c")) {
      FleetTest.await(n + " routes widgets v2", 60_000,
          () -> admin.get(fleet.node(n).url(), WIDGETS_V2).status() == 200);
    }
  }

  @AfterAll
  void stop() {
    if (admin != null) {
      admin.close();
      anon.close();
    }
    if (fleet != null) {
      fleet.close();
    }
  }

  HttpsClient.Resp alice(HttpMethod m, String node, String path, String body) throws Exception {
    return anon.send(m, fleet.node(node).url(), path, body == null ? ALICE
        : Map.of("Authorization", "Bearer alice-token", "Content-Type", "application/json"), body);
  }

  static long forbiddenWidgetsV2(String metrics) {
    return metrics.lines().filter(l -> l.startsWith("apiserver_request_total{") && l.contains("code=\"403\"")
        && l.contains("resource=\"widgets\"") && l.contains("version=\"v2\"")).count();
  }

  @Test
  void deniedLocallyWithKubeApiserversText() throws Exception {
    HttpsClient.Resp r = alice(HttpMethod.GET, "node-a", WIDGETS_V1, null);
    assertEquals(403, r.status(), r.text());
    assertEquals("widgets.demo.mvproxy.io is forbidden: User \"alice\" cannot list resource \"widgets\" in API group "
        + "\"demo.mvproxy.io\" in the namespace \"default\"", r.json().getString("message"));
    assertEquals("Forbidden", r.json().getString("reason"));
    assertEquals(new JsonObject().put("group", "demo.mvproxy.io").put("kind", "widgets"), r.json().getJsonObject("details"));
    HttpsClient.Resp post = alice(HttpMethod.POST, "node-a", WIDGETS_V1,
        "{\"apiVersion\":\"demo.mvproxy.io/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"w\"}}");
    assertEquals(403, post.status());
    HttpsClient.Resp del = alice(HttpMethod.DELETE, "node-b", WIDGETS_V2 + "/w1", null);
    assertEquals("widgets.demo.mvproxy.io \"w1\" is forbidden: User \"alice\" cannot delete resource \"widgets\" in API "
        + "group \"demo.mvproxy.io\" in the namespace \"default\"", del.json().getString("message"));
    assertEquals(200, admin.get(fleet.node("node-a").url(), WIDGETS_V1).status(), "system:masters unaffected");
  }

  @Test
  void deniedBeforeForwardingAndAgainAtTheServingPeer() throws Exception {
    String b = fleet.node("node-b").url();
    long before = forbiddenWidgetsV2(admin.get(b, "/metrics").text());
    HttpsClient.Resp r = alice(HttpMethod.GET, "node-a", WIDGETS_V2, null);
    assertEquals(403, r.status(), r.text());
    assertFalse(r.headers().contains("X-Kubernetes-Peer-Proxied"));
    String aMetrics = admin.get(fleet.node("node-a").url(), "/metrics").text();
    assertTrue(aMetrics.lines().anyMatch(l -> l.startsWith("apiserver_request_total{") && l.contains("code=\"403\"")
        && l.contains("served=\"none\"") && l.contains("version=\"v2\"")), aMetrics);
    assertFalse(aMetrics.contains("apiserver_rerouted_request_total{code=\"403\""), "never forwarded");
    assertEquals(before, forbiddenWidgetsV2(admin.get(b, "/metrics").text()), "node-b never saw the request");
    // node-c authorizes everything (AlwaysAllow) and forwards; node-b authorizes the forwarded identity again
    HttpsClient.Resp viaC = alice(HttpMethod.GET, "node-c", WIDGETS_V2, null);
    assertEquals(403, viaC.status(), viaC.text());
    assertTrue(viaC.json().getString("message").startsWith("widgets.demo.mvproxy.io is forbidden: User \"alice\""));
    FleetTest.await("node-b counted the forwarded 403", 5_000,
        () -> forbiddenWidgetsV2(admin.get(b, "/metrics").text()) > before);
    assertEquals(200, alice(HttpMethod.GET, "node-c", WIDGETS_V1, null).status(), "AlwaysAllow serves locally");
  }

  @Test
  void discoveryAndPublicPathsStayOpen() throws Exception {
    assertEquals(200, alice(HttpMethod.GET, "node-a", "/apis", null).status());
    assertEquals(200, alice(HttpMethod.GET, "node-a", "/api", null).status());
    assertEquals(200, alice(HttpMethod.GET, "node-a", "/openapi/v3", null).status());
    assertEquals(200, anon.get(fleet.node("node-a").url(), "/readyz").status());
    HttpsClient.Resp m = alice(HttpMethod.GET, "node-a", "/metrics", null);
    assertEquals(403, m.status());
    assertEquals("forbidden: User \"alice\" cannot get path \"/metrics\"", m.json().getString("message"));
    assertEquals(401, anon.get(fleet.node("node-a").url(), "/apis").status());
  }

  @Test
  void impersonationIsAuthorized() throws Exception {
    String a = fleet.node("node-a").url();
    HttpsClient.Resp asAlice = admin.send(HttpMethod.GET, a, WIDGETS_V2, Map.of("Impersonate-User", "alice"), null);
    assertEquals(403, asAlice.status(), asAlice.text());
    assertTrue(asAlice.json().getString("message").contains("User \"alice\" cannot list"));
    HttpsClient.Resp asAdmins = admin.send(HttpMethod.GET, a, WIDGETS_V2,
        Map.of("Impersonate-User", "carol", "Impersonate-Group", "system:masters"), null);
    assertEquals(200, asAdmins.status(), "impersonated identity is forwarded, not the headers");
    HttpsClient.Resp bad = alice(HttpMethod.GET, "node-a", WIDGETS_V1, null);
    HttpsClient.Resp imp = anon.send(HttpMethod.GET, a, WIDGETS_V1,
        Map.of("Authorization", "Bearer alice-token", "Impersonate-User", "bob"), null);
    assertEquals(403, bad.status());
    assertEquals("users \"bob\" is forbidden: User \"alice\" cannot impersonate resource \"users\" in API group \"\" at "
        + "the cluster scope", imp.json().getString("message"));
    HttpsClient.Resp groupOnly = admin.send(HttpMethod.GET, a, WIDGETS_V1, Map.of("Impersonate-Group", "g"), null);
    assertEquals(400, groupOnly.status());
  }

  /** kubectl 1.27 (beside the resolved kubectl) and the one on PATH. */
  List<String> kubectls() throws Exception {
    String k = KubectlFleetTest.which("kubectl");
    org.junit.jupiter.api.Assumptions.assumeTrue(k != null, "kubectl is not on PATH: real-client tests skipped");
    List<String> out = new java.util.ArrayList<>(List.of(k));
    Path old = Path.of(k).toRealPath().getParent().resolve("kubectl.1.27");
    if (Files.isExecutable(old)) {
      out.add(old.toString());
    }
    return out;
  }

  KubectlFleetTest.Result kubectl(String bin, String node, String token, String... args) throws Exception {
    Path empty = fleet.dir().resolve("empty-kubeconfig");
    if (!Files.exists(empty)) {
      Files.writeString(empty, "apiVersion: v1\nkind: Config\n");
    }
    List<String> cmd = new java.util.ArrayList<>(List.of(bin, "--kubeconfig", empty.toString(), "--server",
        fleet.node(node).url(), "--certificate-authority", fleet.pki().caCert().toString(),
        "--request-timeout=20s", "--cache-dir", fleet.dir().resolve("kube-cache-" + Path.of(bin).getFileName()).toString()));
    if (token != null) {
      cmd.addAll(List.of("--token", token));
    } else {
      cmd.addAll(List.of("--client-certificate", fleet.pki().adminCert().toString(), "--client-key",
          fleet.pki().adminKey().toString()));
    }
    cmd.addAll(List.of(args));
    return KubectlFleetTest.run(cmd, 60);
  }

  @Test
  void kubectlAuthCommands() throws Exception {
    for (String k : kubectls()) {
      for (String node : List.of("node-a", "node-b")) {
        String what = k + " via " + node;
        KubectlFleetTest.Result who = kubectl(k, node, "alice-token", "auth", "whoami");
        assertEquals(0, who.code(), what + who.all());
        assertTrue(who.out().contains("alice") && who.out().contains("[dev system:authenticated]"), what + who.all());
        KubectlFleetTest.Result no = kubectl(k, node, "alice-token", "auth", "can-i", "list", "widgets.demo.mvproxy.io",
            "-n", "default");
        assertEquals(1, no.code(), what + no.all());
        assertTrue(no.out().startsWith("no"), what + no.all());
        KubectlFleetTest.Result yes = kubectl(k, node, null, "auth", "can-i", "delete", "widgets.demo.mvproxy.io",
            "-n", "default");
        assertEquals(0, yes.code(), what + yes.all());
        assertEquals("yes", yes.out().strip(), what + yes.all());
        KubectlFleetTest.Result as = kubectl(k, node, null, "auth", "can-i", "get", "widgets.demo.mvproxy.io", "--as",
            "alice", "-n", "default");
        assertEquals(1, as.code(), what + as.all());
        KubectlFleetTest.Result list = kubectl(k, node, "alice-token", "auth", "can-i", "--list", "-n", "default");
        assertEquals(0, list.code(), what + list.all());
        assertTrue(list.out().contains("selfsubjectaccessreviews.authorization.k8s.io") && list.out().contains("[/api/*]"),
            what + list.all());
        KubectlFleetTest.Result path = kubectl(k, node, "alice-token", "auth", "can-i", "get", "/apis");
        assertEquals("yes", path.out().strip(), what + path.all());
      }
    }
  }
}
