package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Authorization and the built-in APIs in a real 3-node mixed fleet: node-a (widgets v1, RBAC) and node-c (widgets v1,
 * AlwaysAllow) proxy widgets v2 to node-b (widgets v2+v1, RBAC). alice (token, group dev, no bindings) is denied
 * locally and before forwarding (node-b never sees it); through the AlwaysAllow node the serving peer denies her
 * itself; discovery stays open to her; impersonation is authorized by the impersonate verb.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("fleet")
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
    fleet.startAllAndAwaitReady(admin, 300_000);
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

  /** @return the sum of apiserver_request_total samples for 403 answers on widgets v2 */
  static double forbiddenWidgetsV2(String metrics) {
    return metrics.lines().filter(l -> l.startsWith("apiserver_request_total{") && l.contains("code=\"403\"")
        && l.contains("resource=\"widgets\"") && l.contains("version=\"v2\""))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
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
    double before = forbiddenWidgetsV2(admin.get(b, "/metrics").text());
    HttpsClient.Resp r = alice(HttpMethod.GET, "node-a", WIDGETS_V2, null);
    assertEquals(403, r.status(), r.text());
    assertFalse(r.headers().contains("X-Kubernetes-Peer-Proxied"));
    // the request is counted when its response has ended (an end handler), which may run after the client has it
    FleetTest.await("node-a counted the 403", 20_000, () -> admin.get(fleet.node("node-a").url(), "/metrics").text()
        .lines().anyMatch(l -> l.startsWith("apiserver_request_total{") && l.contains("code=\"403\"")
        && l.contains("served=\"none\"") && l.contains("version=\"v2\"")));
    String aMetrics = admin.get(fleet.node("node-a").url(), "/metrics").text();
    assertFalse(aMetrics.contains("apiserver_rerouted_request_total{code=\"403\""), "never forwarded");
    assertEquals(before, forbiddenWidgetsV2(admin.get(b, "/metrics").text()), "node-b never saw the request");
    // node-c authorizes everything (AlwaysAllow) and forwards; node-b authorizes the forwarded identity again
    HttpsClient.Resp viaC = alice(HttpMethod.GET, "node-c", WIDGETS_V2, null);
    assertEquals(403, viaC.status(), viaC.text());
    assertTrue(viaC.json().getString("message").startsWith("widgets.demo.mvproxy.io is forbidden: User \"alice\""));
    FleetTest.await("node-b counted the forwarded 403", 20_000,
        () -> forbiddenWidgetsV2(admin.get(b, "/metrics").text()) > before);
    assertEquals(200, alice(HttpMethod.GET, "node-c", WIDGETS_V1, null).status(), "AlwaysAllow serves locally");
  }

  @Test
  void discoveryAndPublicPathsStayOpen() throws Exception {
    assertEquals(200, alice(HttpMethod.GET, "node-a", "/apis", null).status());
    assertEquals(200, alice(HttpMethod.GET, "node-a", "/api", null).status());
    assertEquals(200, alice(HttpMethod.GET, "node-a", "/openapi/v3", null).status());
    assertEquals(200, anon.get(fleet.node("node-a").url(), "/readyz").status());
    // another method than GET is authorized first (requestinfo.go: verb "head"; system:public-info-viewer grants get)
    assertEquals(403, alice(HttpMethod.HEAD, "node-a", "/readyz", null).status());
    assertEquals(200, adminSend(HttpMethod.HEAD, "node-a", "/readyz", null).status());
    // discovery: another method than GET or HEAD is the go-restful routes' 405, not a 404
    for (String path : List.of("/api", "/api/v1", "/apis/demo.mvproxy.io/v1")) {
      HttpsClient.Resp post = adminSend(HttpMethod.POST, "node-a", path, "{}");
      assertEquals(405, post.status(), path + ": " + post.text());
      assertEquals("MethodNotAllowed", post.json().getString("reason"));
    }
    HttpsClient.Resp m = alice(HttpMethod.GET, "node-a", "/metrics", null);
    assertEquals(403, m.status());
    assertEquals("forbidden: User \"alice\" cannot get path \"/metrics\"", m.json().getString("message"));
    assertEquals(401, anon.get(fleet.node("node-a").url(), "/apis").status());
    // filters/cachecontrol.go: every answer, served, refused, proxied (node-a proxies widgets v2) or public
    for (HttpsClient.Resp r : List.of(alice(HttpMethod.GET, "node-a", "/apis", null), m,
        anon.get(fleet.node("node-a").url(), "/apis"), anon.get(fleet.node("node-a").url(), "/readyz"),
        adminSend(HttpMethod.GET, "node-a", WIDGETS_V2, null), adminSend(HttpMethod.GET, "node-a", "/nope", null))) {
      assertEquals(List.of("no-cache, private"), r.headers().getAll("Cache-Control"), r.status() + " " + r.text());
      java.time.Instant date = java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.parse(r.headers().get("Date"),
          java.time.Instant::from);
      assertTrue(Math.abs(java.time.Duration.between(date, java.time.Instant.now()).getSeconds()) < 120,
          "Date: " + r.headers().get("Date"));
    }
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

  static String configMap(String name, String value) {
    return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" + name
        + "\"},\"data\":{\"k\":\"" + value + "\"}}";
  }

  static String role(String name, String rules) {
    return "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"Role\",\"metadata\":{\"name\":\"" + name
        + "\"},\"rules\":" + rules + "}";
  }

  /**
   * A PUT as kube-apiserver's {@code store.go Update}: kinds whose strategy allows unconditional updates (ConfigMap,
   * RBAC) are updated without a resourceVersion, a Lease needs one (422); kinds that allow create on update (Role,
   * Lease) are created by a PUT of an absent object (201), which needs the {@code create} verb besides
   * {@code update}, as a server-side apply that creates does; {@code kubectl replace} of an absent Role creates it,
   * of an absent ConfigMap is NotFound.
   */
  @Test
  void putWithoutResourceVersionAndCreateOnPut() throws Exception {
    String ns = "putns";
    String rbac = "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns;
    String cms = "/api/v1/namespaces/" + ns + "/configmaps";
    assertEquals(201, adminSend(HttpMethod.POST, "node-a", "/api/v1/namespaces",
        "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" + ns + "\"}}").status());
    // alice may get, update and patch configmaps and roles in putns, not create them
    HttpsClient.Resp updater = adminSend(HttpMethod.POST, "node-b", rbac + "/roles", role("updater",
        "[{\"apiGroups\":[\"\",\"rbac.authorization.k8s.io\"],\"resources\":[\"configmaps\",\"roles\"],"
        + "\"verbs\":[\"get\",\"update\",\"patch\"]}]"));
    assertEquals(201, updater.status(), updater.text());
    HttpsClient.Resp rb = adminSend(HttpMethod.POST, "node-b", rbac + "/rolebindings",
        "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"RoleBinding\",\"metadata\":{\"name\":"
        + "\"alice-updater\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"Role\","
        + "\"name\":\"updater\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"alice\"}]}");
    assertEquals(201, rb.status(), rb.text());
    assertEquals(201, adminSend(HttpMethod.POST, "node-a", cms, configMap("c1", "v1")).status());
    for (String node : List.of("node-a", "node-b")) {
      FleetTest.await("alice may get configmaps in " + ns + " on " + node, 30_000,
          () -> alice(HttpMethod.GET, node, cms + "/c1", null).status() == 200);
    }
    HttpsClient.Resp put = alice(HttpMethod.PUT, "node-a", cms + "/c1", configMap("c1", "v2"));
    assertEquals(200, put.status(), "a ConfigMap updates unconditionally: " + put.text());
    assertEquals("v2", put.json().getJsonObject("data").getString("k"));
    HttpsClient.Resp zero = alice(HttpMethod.PUT, "node-b", cms + "/c1", configMap("c1", "v3")
        .replace("\"name\":\"c1\"", "\"name\":\"c1\",\"resourceVersion\":\"0\""));
    assertEquals(200, zero.status(), "resourceVersion 0 is none: " + zero.text());
    HttpsClient.Resp absentCm = alice(HttpMethod.PUT, "node-b", cms + "/c2", configMap("c2", "v1"));
    assertEquals(404, absentCm.status(), absentCm.text());
    assertEquals("configmaps \"c2\" not found", absentCm.json().getString("message"));
    HttpsClient.Resp noCreate = alice(HttpMethod.PUT, "node-a", rbac + "/roles/r1", role("r1", "[]"));
    assertEquals(403, noCreate.status(), "a PUT that creates needs create: " + noCreate.text());
    assertTrue(noCreate.json().getString("message").startsWith("roles.rbac.authorization.k8s.io \"r1\" is forbidden:"),
        noCreate.text());
    assertEquals(404, adminSend(HttpMethod.GET, "node-b", rbac + "/roles/r1", null).status(), "nothing created");
    HttpsClient.Resp applyCreate = anon.send(HttpMethod.PATCH, fleet.node("node-b").url(),
        cms + "/c3?fieldManager=alice", Map.of("Authorization", "Bearer alice-token", "Content-Type",
            "application/apply-patch+yaml"), configMap("c3", "v1"));
    assertEquals(403, applyCreate.status(), "an apply that creates needs create: " + applyCreate.text());
    assertTrue(applyCreate.json().getString("message").startsWith("configmaps \"c3\" is forbidden:"),
        applyCreate.text());
    // the admin may create: a PUT creates the Role (201), the next one updates it without a resourceVersion
    HttpsClient.Resp made = adminSend(HttpMethod.PUT, "node-b", rbac + "/roles/r1", role("r1", "[]"));
    assertEquals(201, made.status(), made.text());
    assertFalse(made.json().getJsonObject("metadata").getString("uid", "").isEmpty(), made.text());
    String rules = "[{\"apiGroups\":[\"\"],\"resources\":[\"secrets\"],\"verbs\":[\"get\"]}]";
    HttpsClient.Resp again = adminSend(HttpMethod.PUT, "node-a", rbac + "/roles/r1", role("r1", rules));
    assertEquals(200, again.status(), again.text());
    assertEquals(new io.vertx.core.json.JsonArray(rules), again.json().getJsonArray("rules"));
    // RBAC field rules beyond the schema (ValidateClusterRoleBinding), on a PUT that would create
    HttpsClient.Resp badCrb = adminSend(HttpMethod.PUT, "node-c",
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/crb-bad", "{\"apiVersion\":\"rbac.authorization.k8s.io"
        + "/v1\",\"kind\":\"ClusterRoleBinding\",\"metadata\":{\"name\":\"crb-bad\"},\"roleRef\":{\"kind\":"
        + "\"ClusterRole\",\"name\":\"view\"},\"subjects\":[{\"kind\":\"ServiceAccount\",\"name\":\"sa\"}]}");
    assertEquals(422, badCrb.status(), badCrb.text());
    assertEquals("ClusterRoleBinding.rbac.authorization.k8s.io \"crb-bad\" is invalid: subjects[0].namespace: "
        + "Required value", badCrb.json().getString("message"));
    // a Lease: created by a PUT, updated only with its resourceVersion
    String lease = "/apis/coordination.k8s.io/v1/namespaces/" + ns + "/leases/l1";
    String leaseBody = "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{\"name\":"
        + "\"l1\"},\"spec\":{\"holderIdentity\":\"a\"}}";
    HttpsClient.Resp leaseMade = adminSend(HttpMethod.PUT, "node-c", lease, leaseBody);
    assertEquals(201, leaseMade.status(), leaseMade.text());
    HttpsClient.Resp leaseNoRv = adminSend(HttpMethod.PUT, "node-a", lease, leaseBody.replace("\"a\"", "\"b\""));
    assertEquals(422, leaseNoRv.status(), leaseNoRv.text());
    assertEquals("leases.coordination.k8s.io \"l1\" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be "
        + "specified for an update", leaseNoRv.json().getString("message"));
    JsonObject withRv = leaseMade.json().copy();
    withRv.getJsonObject("spec").put("holderIdentity", "b");
    HttpsClient.Resp leaseUpdated = adminSend(HttpMethod.PUT, "node-a", lease, withRv.encode());
    assertEquals(200, leaseUpdated.status(), leaseUpdated.text());
    // a saved Role put back after it was deleted: its uid is a precondition (409), nothing is created
    HttpsClient.Resp saved = adminSend(HttpMethod.GET, "node-a", rbac + "/roles/r1", null);
    assertEquals(200, adminSend(HttpMethod.DELETE, "node-b", rbac + "/roles/r1", null).status());
    HttpsClient.Resp stale = adminSend(HttpMethod.PUT, "node-c", rbac + "/roles/r1", saved.text());
    assertEquals(409, stale.status(), stale.text());
    assertEquals("Operation cannot be fulfilled on roles.rbac.authorization.k8s.io \"r1\": Precondition failed: UID in "
        + "precondition: " + saved.json().getJsonObject("metadata").getString("uid") + ", UID in object meta: ",
        stale.json().getString("message"));
    assertEquals(404, adminSend(HttpMethod.GET, "node-a", rbac + "/roles/r1", null).status(), "nothing created");
    // kubectl replace sends an absent object without a resourceVersion
    String k = kubectls().get(0);
    Path dir = Files.createDirectories(fleet.dir().resolve("replace"));
    Path roleFile = dir.resolve("role.yaml");
    Files.writeString(roleFile, "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: r2\n"
        + "  namespace: " + ns + "\nrules: []\n");
    KubectlFleetTest.Result replaced = kubectl(k, "node-a", null, "replace", "-f", roleFile.toString());
    assertEquals(0, replaced.code(), replaced.all());
    assertTrue(replaced.out().contains("role.rbac.authorization.k8s.io/r2 replaced"), replaced.all());
    assertEquals(200, adminSend(HttpMethod.GET, "node-c", rbac + "/roles/r2", null).status());
    Path cmFile = dir.resolve("cm.yaml");
    Files.writeString(cmFile, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c9\n  namespace: " + ns
        + "\ndata:\n  k: v\n");
    KubectlFleetTest.Result cmReplaced = kubectl(k, "node-b", null, "replace", "-f", cmFile.toString());
    assertEquals(1, cmReplaced.code(), cmReplaced.all());
    assertTrue(cmReplaced.err().contains("configmaps \"c9\" not found"), cmReplaced.all());
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

  HttpsClient.Resp adminSend(HttpMethod m, String node, String path, String body) throws Exception {
    return admin.send(m, fleet.node(node).url(), path, body == null ? Map.of() : Map.of("Content-Type",
        "application/json"), body);
  }

  static String widget(String name) {
    return "{\"apiVersion\":\"demo.mvproxy.io/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"" + name
        + "\"},\"spec\":{}}";
  }

  @Test
  void namespacesAsKubeApiserver() throws Exception {
    for (String node : List.of("node-a", "node-c")) {
      HttpsClient.Resp list = adminSend(HttpMethod.GET, node, "/api/v1/namespaces", null);
      assertEquals(200, list.status(), list.text());
      for (String ns : List.of("default", "kube-system", "kube-public", "kube-node-lease")) {
        assertTrue(list.text().contains("\"name\":\"" + ns + "\""), node + " lists " + ns + ": " + list.text());
      }
    }
    HttpsClient.Resp missing = adminSend(HttpMethod.POST, "node-a", "/apis/demo.mvproxy.io/v1/namespaces/nope/widgets",
        widget("w"));
    assertEquals(404, missing.status(), missing.text());
    assertEquals("namespaces \"nope\" not found", missing.json().getString("message"));
    HttpsClient.Resp proxied = adminSend(HttpMethod.POST, "node-a", "/apis/demo.mvproxy.io/v2/namespaces/nope/widgets",
        widget("w").replace("/v1", "/v2"));
    assertEquals(404, proxied.status(), "checked at the serving peer: " + proxied.text());
    assertEquals(201, adminSend(HttpMethod.POST, "node-b", "/api/v1/namespaces",
        "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"doomed\"}}").status());
    HttpsClient.Resp got = adminSend(HttpMethod.GET, "node-a", "/api/v1/namespaces/doomed", null);
    assertEquals("Active", got.json().getJsonObject("status").getString("phase"));
    assertEquals("[\"kubernetes\"]", got.json().getJsonObject("spec").getJsonArray("finalizers").encode());
    assertEquals("doomed", got.json().getJsonObject("metadata").getJsonObject("labels")
        .getString("kubernetes.io/metadata.name"));
    // w1 carries a finalizer, so the namespace controller cannot empty doomed until it is released below
    FleetTest.await("doomed usable through node-c", 30_000, () -> adminSend(HttpMethod.POST, "node-c",
        "/apis/demo.mvproxy.io/v1/namespaces/doomed/widgets", widget("w1").replace("\"name\":\"w1\"",
            "\"name\":\"w1\",\"finalizers\":[\"example.com/hold\"]")).status() == 201);
    HttpsClient.Resp del = adminSend(HttpMethod.DELETE, "node-c", "/api/v1/namespaces/doomed", null);
    assertEquals(200, del.status(), del.text());
    assertEquals("Terminating", del.json().getJsonObject("status").getString("phase"));
    FleetTest.await("Terminating seen by node-a", 30_000, () -> adminSend(HttpMethod.POST, "node-a",
        "/apis/demo.mvproxy.io/v1/namespaces/doomed/widgets", widget("w2")).status() == 403);
    HttpsClient.Resp term = adminSend(HttpMethod.POST, "node-a", "/apis/demo.mvproxy.io/v1/namespaces/doomed/widgets",
        widget("w3"));
    assertEquals("widgets.demo.mvproxy.io \"w3\" is forbidden: unable to create new content in namespace doomed "
        + "because it is being terminated", term.json().getString("message"));
    assertEquals(409, adminSend(HttpMethod.DELETE, "node-a", "/api/v1/namespaces/doomed", null).status());
    assertEquals(200, admin.send(HttpMethod.PATCH, fleet.node("node-b").url(),
        "/apis/demo.mvproxy.io/v1/namespaces/doomed/widgets/w1", Map.of("Content-Type",
            "application/merge-patch+json"), "{\"metadata\":{\"finalizers\":null}}").status());
    FleetTest.await("doomed removed by the namespace controller", 20_000, () -> adminSend(HttpMethod.GET, "node-a",
        "/api/v1/namespaces/doomed", null).status() == 404);
    HttpsClient.Resp immortal = adminSend(HttpMethod.DELETE, "node-a", "/api/v1/namespaces/default", null);
    assertEquals(403, immortal.status());
    assertEquals("namespaces \"default\" is forbidden: this namespace may not be deleted",
        immortal.json().getString("message"));
  }

  @Test
  void roleBindingMadeThroughOneNodeTakesEffectEverywhere() throws Exception {
    for (String ns : List.of("ns1", "ns2")) {
      adminSend(HttpMethod.POST, "node-a", "/api/v1/namespaces",
          "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" + ns + "\"}}");
    }
    // widgets join edit through aggregation, as a plugin's ClusterRole would make them
    HttpsClient.Resp agg = adminSend(HttpMethod.POST, "node-a", "/apis/rbac.authorization.k8s.io/v1/clusterroles",
        "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"ClusterRole\",\"metadata\":{\"name\":"
        + "\"widgets-edit\",\"labels\":{\"rbac.authorization.k8s.io/aggregate-to-edit\":\"true\"}},\"rules\":"
        + "[{\"apiGroups\":[\"demo.mvproxy.io\"],\"resources\":[\"widgets\"],\"verbs\":[\"*\"]}]}");
    assertEquals(201, agg.status(), agg.text());
    String cm = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c1\"},\"data\":{\"k\":\"v\"}}";
    assertEquals(403, alice(HttpMethod.POST, "node-a", "/api/v1/namespaces/ns1/configmaps", cm).status());
    HttpsClient.Resp rb = adminSend(HttpMethod.POST, "node-b",
        "/apis/rbac.authorization.k8s.io/v1/namespaces/ns1/rolebindings",
        "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"RoleBinding\",\"metadata\":{\"name\":"
        + "\"alice-edit\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\","
        + "\"name\":\"edit\"},\"subjects\":[{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"User\","
        + "\"name\":\"alice\"}]}");
    assertEquals(201, rb.status(), rb.text());
    long t0 = System.nanoTime();
    for (String node : List.of("node-a", "node-b")) { // node-c allows everything (AlwaysAllow)
      FleetTest.await("alice may list widgets in ns1 on " + node, 20_000,
          () -> alice(HttpMethod.GET, node, "/apis/demo.mvproxy.io/v1/namespaces/ns1/widgets", null).status() == 200);
    }
    System.out.println("FIGURE RoleBinding made through node-b effective on the RBAC nodes after "
        + (System.nanoTime() - t0) / 1_000_000 + " ms");
    assertEquals(201, alice(HttpMethod.POST, "node-a", "/api/v1/namespaces/ns1/configmaps", cm).status());
    assertEquals(201, alice(HttpMethod.POST, "node-a", "/apis/demo.mvproxy.io/v2/namespaces/ns1/widgets",
        widget("wa").replace("/v1", "/v2")).status(), "proxied to node-b and authorized there too");
    assertEquals(403, alice(HttpMethod.POST, "node-a", "/api/v1/namespaces/ns2/configmaps", cm.replace("c1", "c2"))
        .status());
    assertEquals(403, alice(HttpMethod.GET, "node-b", "/apis/demo.mvproxy.io/v2/namespaces/ns2/widgets", null).status());
    // edit cannot grant admin (it may not even write rolebindings)
    HttpsClient.Resp esc = alice(HttpMethod.POST, "node-a", "/apis/rbac.authorization.k8s.io/v1/namespaces/ns1/rolebindings",
        "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"RoleBinding\",\"metadata\":{\"name\":"
        + "\"x\"},\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\",\"name\":"
        + "\"admin\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"alice\"}]}");
    assertEquals(403, esc.status(), esc.text());
    // the admin ClusterRole as stored carries the aggregated rules (widgets included)
    FleetTest.await("admin aggregated", 30_000, () -> adminSend(HttpMethod.GET, "node-c",
        "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin", null).text().contains("demo.mvproxy.io"));
  }

  @Test
  void kubectlBuiltins() throws Exception {
    for (String k : kubectls()) {
      String ns = "k" + Math.abs(k.hashCode() % 1000);
      String what = k + ": ";
      KubectlFleetTest.Result c = kubectl(k, "node-a", null, "create", "namespace", ns);
      assertEquals(0, c.code(), what + c.all());
      KubectlFleetTest.Result get = kubectl(k, "node-b", null, "get", "ns");
      assertTrue(get.out().contains(ns) && get.out().contains("Active") && get.out().contains("kube-node-lease"),
          what + get.all());
      KubectlFleetTest.Result cm = kubectl(k, "node-a", null, "create", "configmap", "cfg", "-n", ns, "--from-literal=a=b");
      assertEquals(0, cm.code(), what + cm.all());
      KubectlFleetTest.Result sec = kubectl(k, "node-c", null, "create", "secret", "generic", "s1", "-n", ns,
          "--from-literal=password=hunter2");
      assertEquals(0, sec.code(), what + sec.all());
      KubectlFleetTest.Result secGet = kubectl(k, "node-b", null, "get", "secret", "s1", "-n", ns, "-o",
          "jsonpath={.data.password}");
      assertEquals(java.util.Base64.getEncoder().encodeToString("hunter2".getBytes()), secGet.out().strip(),
          what + secGet.all());
      KubectlFleetTest.Result ev = kubectl(k, "node-a", null, "events", "-n", ns);
      assertEquals(0, ev.code(), what + ev.all());
      assertTrue(ev.all().contains("No events found in " + ns + " namespace."), what + ev.all());
      KubectlFleetTest.Result rb = kubectl(k, "node-b", null, "create", "rolebinding", "v", "-n", ns,
          "--clusterrole=view", "--user=bob");
      assertEquals(0, rb.code(), what + rb.all());
      builtinTablesAndEvents(k, ns);
      KubectlFleetTest.Result lease = kubectl(k, "node-c", null, "get", "leases", "-n", ns);
      assertEquals(0, lease.code(), what + lease.all());
      KubectlFleetTest.Result cmDel = kubectl(k, "node-c", null, "delete", "configmap", "cfg", "-n", ns);
      assertEquals(0, cmDel.code(), what + cmDel.all());
      KubectlFleetTest.Result del = kubectl(k, "node-b", null, "delete", "namespace", ns, "--wait=false");
      assertEquals(0, del.code(), what + del.all());
      FleetTest.await(what + "namespace " + ns + " emptied and removed by the namespace controller", 30_000,
          () -> kubectl(k, "node-a", null, "get", "namespace", ns).err().contains("NotFound"));
    }
  }

  /**
   * kube-apiserver's Table columns for the built-in kinds, the {@code default} ServiceAccount of a new namespace,
   * and one event written through {@code events.k8s.io/v1} read back through core {@code v1} (kubectl events).
   */
  void builtinTablesAndEvents(String k, String ns) throws Exception {
    String what = k + ": ";
    FleetTest.await(what + "default ServiceAccount in " + ns, 30_000,
        () -> kubectl(k, "node-c", null, "get", "serviceaccount", "default", "-n", ns).code() == 0);
    KubectlFleetTest.Result sa = kubectl(k, "node-a", null, "get", "sa", "-n", ns);
    assertTrue(sa.out().matches("(?s)NAME\\s+SECRETS\\s+AGE\\s+default\\s+0\\s+\\S+\\s*"), what + sa.all());
    KubectlFleetTest.Result cm = kubectl(k, "node-a", null, "get", "cm", "cfg", "-n", ns);
    assertTrue(cm.out().matches("(?s)NAME\\s+DATA\\s+AGE\\s+cfg\\s+1\\s+\\S+\\s*"), what + cm.all());
    KubectlFleetTest.Result sec = kubectl(k, "node-b", null, "get", "secret", "s1", "-n", ns);
    assertTrue(sec.out().matches("(?s)NAME\\s+TYPE\\s+DATA\\s+AGE\\s+s1\\s+Opaque\\s+1\\s+\\S+\\s*"),
        what + sec.all());
    KubectlFleetTest.Result rb = kubectl(k, "node-c", null, "get", "rolebinding", "v", "-n", ns, "-o", "wide");
    assertTrue(rb.out().matches("(?s)NAME\\s+ROLE\\s+AGE\\s+USERS\\s+GROUPS\\s+SERVICEACCOUNTS\\s+"
        + "v\\s+ClusterRole/view\\s+\\S+\\s+bob\\s*"), what + rb.all());
    KubectlFleetTest.Result role = kubectl(k, "node-a", null, "get", "clusterrole", "view");
    assertTrue(role.out().matches("(?s)NAME\\s+CREATED AT\\s+view\\s+\\d{4}-\\d\\d-\\d\\dT\\S+Z\\s*"),
        what + role.all());
    Path ev = fleet.dir().resolve(ns + "-event.yaml");
    Files.writeString(ev, "apiVersion: events.k8s.io/v1\nkind: Event\nmetadata:\n  name: cfg.checked\n  namespace: "
        + ns + "\neventTime: \"2026-01-01T00:00:00.000000Z\"\nreportingController: example.com/tester\n"
        + "reportingInstance: tester-1\naction: Checking\nreason: Checked\ntype: Normal\nnote: configmap checked\n"
        + "regarding:\n  apiVersion: v1\n  kind: ConfigMap\n  name: cfg\n  namespace: " + ns + "\n");
    KubectlFleetTest.Result created = kubectl(k, "node-c", null, "create", "-f", ev.toString());
    assertEquals(0, created.code(), what + created.all());
    KubectlFleetTest.Result events = kubectl(k, "node-a", null, "events", "-n", ns);
    assertTrue(events.out().contains("Checked") && events.out().contains("ConfigMap/cfg")
        && events.out().contains("configmap checked"), what + events.all());
    KubectlFleetTest.Result forCm = kubectl(k, "node-b", null, "events", "-n", ns, "--for", "configmap/cfg");
    assertTrue(forCm.out().contains("Checked"), what + forCm.all());
    KubectlFleetTest.Result forOther = kubectl(k, "node-b", null, "events", "-n", ns, "--for", "configmap/other");
    assertTrue(!forOther.out().contains("Checked") && forOther.code() == 0, what + forOther.all());
    KubectlFleetTest.Result table = kubectl(k, "node-b", null, "get", "events", "-n", ns);
    assertTrue(table.out().matches("(?s)LAST SEEN\\s+TYPE\\s+REASON\\s+OBJECT\\s+MESSAGE\\s+\\S+\\s+Normal\\s+"
        + "Checked\\s+configmap/cfg\\s+configmap checked\\s*"), what + table.all());
    KubectlFleetTest.Result core = kubectl(k, "node-b", null, "get", "--raw", "/api/v1/namespaces/" + ns
        + "/events/cfg.checked");
    assertTrue(core.out().contains("\"apiVersion\":\"v1\"") && core.out().contains("\"involvedObject\":{")
        && core.out().contains("\"message\":\"configmap checked\"")
        && core.out().contains("\"reportingComponent\":\"example.com/tester\"") && !core.out().contains("\"note\""),
        what + core.all());
    KubectlFleetTest.Result v1 = kubectl(k, "node-a", null, "get", "events.v1.events.k8s.io", "-n", ns, "-o",
        "jsonpath={.items[*].note}");
    assertEquals("configmap checked", v1.out().strip(), what + v1.all());
  }

  /**
   * Service account tokens with real kubectl (PATH and 1.27): {@code kubectl create token} through one node, the token
   * accepted by every node ({@code auth whoami}), RBAC applied to the service account on the node that serves widgets
   * v2 (node-b) and through the one that proxies them (node-a); TokenReview validates it; a token of a deleted and
   * re-created account is refused; kube's 422 for a too short duration.
   */
  @Test
  void serviceAccountTokensWithKubectl() throws Exception {
    for (String k : kubectls()) {
      String ns = "sa" + Math.abs(k.hashCode() % 1000);
      String what = k + ": ";
      String sa = "system:serviceaccount:" + ns + ":robot";
      assertEquals(0, kubectl(k, "node-a", null, "create", "namespace", ns).code(), what);
      KubectlFleetTest.Result created = kubectl(k, "node-a", null, "create", "serviceaccount", "robot", "-n", ns);
      assertEquals(0, created.code(), what + created.all());
      KubectlFleetTest.Result role = kubectl(k, "node-b", null, "create", "role", "widgets", "-n", ns,
          "--verb=get,list,create", "--resource=widgets.demo.mvproxy.io");
      assertEquals(0, role.code(), what + role.all());
      KubectlFleetTest.Result rb = kubectl(k, "node-b", null, "create", "rolebinding", "robot-widgets", "-n", ns,
          "--role=widgets", "--serviceaccount=" + ns + ":robot");
      assertEquals(0, rb.code(), what + rb.all());
      KubectlFleetTest.Result tok = kubectl(k, "node-b", null, "create", "token", "robot", "-n", ns);
      assertEquals(0, tok.code(), what + tok.all());
      String token = tok.out().strip();
      assertEquals(3, token.split("\\.").length, what + "a JWS: " + tok.all());
      for (String node : List.of("node-a", "node-b", "node-c")) {
        KubectlFleetTest.Result who = kubectl(k, node, token, "auth", "whoami");
        assertEquals(0, who.code(), what + node + who.all());
        assertTrue(who.out().contains(sa) && who.out().contains("[system:serviceaccounts system:serviceaccounts:"
            + ns + " system:authenticated]"), what + node + who.all());
      }
      String wv2 = "widgets.v2.demo.mvproxy.io";
      for (String node : List.of("node-b", "node-a")) { // node-b serves widgets v2, node-a proxies them
        FleetTest.await(what + "RoleBinding effective on " + node, 30_000,
            () -> kubectl(k, node, token, "get", wv2, "-n", ns).code() == 0);
        KubectlFleetTest.Result denied = kubectl(k, node, token, "get", wv2, "-n", "default");
        assertEquals(1, denied.code(), what + node + denied.all());
        assertTrue(denied.err().contains("User \"" + sa + "\" cannot list resource \"widgets\" in API group "
            + "\"demo.mvproxy.io\" in the namespace \"default\""), what + node + denied.all());
        KubectlFleetTest.Result cms = kubectl(k, node, token, "get", "configmaps", "-n", ns);
        assertEquals(1, cms.code(), what + node + cms.all());
        assertTrue(cms.err().contains("cannot list resource \"configmaps\""), what + node + cms.all());
      }
      KubectlFleetTest.Result canI = kubectl(k, "node-a", token, "auth", "can-i", "create", wv2, "-n", ns);
      assertEquals("yes", canI.out().strip(), what + canI.all());
      KubectlFleetTest.Result shortToken = kubectl(k, "node-c", null, "create", "token", "robot", "-n", ns,
          "--duration=5m");
      assertEquals(1, shortToken.code(), what + shortToken.all());
      assertTrue(shortToken.err().contains("TokenRequest.authentication.k8s.io \"robot\" is invalid: "
          + "spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes"),
          what + shortToken.all());
      HttpsClient.Resp review = adminSend(HttpMethod.POST, "node-c", "/apis/authentication.k8s.io/v1/tokenreviews",
          "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenReview\",\"spec\":{\"token\":\"" + token
          + "\"}}");
      assertEquals(201, review.status(), review.text());
      JsonObject status = review.json().getJsonObject("status");
      assertEquals(true, status.getBoolean("authenticated"), review.text());
      assertEquals(sa, status.getJsonObject("user").getString("username"));
      assertEquals("[\"" + FleetHarness.SERVICE_ACCOUNT_ISSUER + "\"]", status.getJsonArray("audiences").encode());
      HttpsClient.Resp other = adminSend(HttpMethod.POST, "node-a", "/apis/authentication.k8s.io/v1/tokenreviews",
          "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenReview\",\"spec\":{\"token\":\"" + token
          + "\",\"audiences\":[\"vault\"]}}");
      assertEquals("token audiences [\"" + FleetHarness.SERVICE_ACCOUNT_ISSUER + "\"] is invalid for the target "
          + "audiences [\"vault\"]", other.json().getJsonObject("status").getString("error"), other.text());
      // the token is bound to the account's uid: a new account of the same name does not inherit it
      assertEquals(0, kubectl(k, "node-a", null, "delete", "serviceaccount", "robot", "-n", ns).code(), what);
      assertEquals(0, kubectl(k, "node-c", null, "create", "serviceaccount", "robot", "-n", ns).code(), what);
      for (String node : List.of("node-a", "node-b")) {
        KubectlFleetTest.Result gone = kubectl(k, node, token, "auth", "whoami");
        assertEquals(1, gone.code(), what + node + gone.all());
        assertTrue(gone.err().contains("Unauthorized"), what + node + gone.all());
      }
      HttpsClient.Resp stale = adminSend(HttpMethod.POST, "node-b", "/apis/authentication.k8s.io/v1/tokenreviews",
          "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenReview\",\"spec\":{\"token\":\"" + token
          + "\"}}");
      assertFalse(stale.json().getJsonObject("status").containsKey("authenticated"), stale.text());
      assertTrue(stale.json().getJsonObject("status").getString("error", "").matches(
          "service account UID \\(\\S+\\) does not match claim \\(\\S+\\)"), stale.text());
      assertEquals(0, kubectl(k, "node-b", null, "delete", "namespace", ns, "--wait=false").code(), what);
    }
    HttpsClient.Resp discovery = adminSend(HttpMethod.GET, "node-a", "/api/v1", null);
    assertTrue(discovery.text().contains("\"name\":\"serviceaccounts/token\""), discovery.text());
  }

  /**
   * Service account issuer discovery (pkg/routes/openidmetadata.go): a service account reads the OIDC configuration
   * and the JWKS (RBAC's system:service-account-issuer-discovery), whose key verifies the account's own token; other
   * users are 403 (no binding), anonymous 401, a trailing slash 404.
   */
  @Test
  void serviceAccountIssuerDiscovery() throws Exception {
    String ns = "oidc";
    assertEquals(201, adminSend(HttpMethod.POST, "node-a", "/api/v1/namespaces",
        "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" + ns + "\"}}").status());
    assertEquals(201, adminSend(HttpMethod.POST, "node-a", "/api/v1/namespaces/" + ns + "/serviceaccounts",
        "{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\",\"metadata\":{\"name\":\"relying\"}}").status());
    HttpsClient.Resp tr = adminSend(HttpMethod.POST, "node-b", "/api/v1/namespaces/" + ns
        + "/serviceaccounts/relying/token", "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenRequest\","
        + "\"spec\":{}}");
    assertEquals(201, tr.status(), tr.text());
    // the token subresource has only a POST route: another method is serviceErrorHandler's 405, details {}
    HttpsClient.Resp get = adminSend(HttpMethod.GET, "node-b", "/api/v1/namespaces/" + ns
        + "/serviceaccounts/relying/token", null);
    assertEquals(405, get.status(), get.text());
    assertEquals("{}", get.json().getJsonObject("details").encode(), get.text());
    String token = tr.json().getJsonObject("status").getString("token");
    Map<String, String> bearer = Map.of("Authorization", "Bearer " + token);
    for (String node : List.of("node-a", "node-b")) {
      String url = fleet.node(node).url();
      HttpsClient.Resp[] config = new HttpsClient.Resp[1];
      FleetTest.await(node + ": the account's token authenticates", 30_000, () -> (config[0] = anon.send(
          HttpMethod.GET, url, "/.well-known/openid-configuration", bearer, null)).status() == 200);
      assertEquals("application/json", config[0].headers().get("Content-Type"));
      assertEquals("public, max-age=3600", config[0].headers().get("Cache-Control"));
      assertEquals(new JsonObject().put("issuer", FleetHarness.SERVICE_ACCOUNT_ISSUER)
          .put("jwks_uri", url + "/openid/v1/jwks").put("response_types_supported", new JsonArray().add("id_token"))
          .put("subject_types_supported", new JsonArray().add("public"))
          .put("id_token_signing_alg_values_supported", new JsonArray().add("RS256")), config[0].json());
      HttpsClient.Resp jwks = anon.send(HttpMethod.GET, url, "/openid/v1/jwks", bearer, null);
      assertEquals(200, jwks.status(), jwks.text());
      assertEquals("application/jwk-set+json", jwks.headers().get("Content-Type"));
      com.nimbusds.jose.jwk.JWKSet set = com.nimbusds.jose.jwk.JWKSet.parse(jwks.text());
      com.nimbusds.jwt.SignedJWT jwt = com.nimbusds.jwt.SignedJWT.parse(token);
      com.nimbusds.jose.jwk.JWK key = set.getKeyByKeyId(jwt.getHeader().getKeyID());
      assertTrue(key != null && jwt.verify(new com.nimbusds.jose.crypto.RSASSAVerifier(key.toRSAKey())),
          node + ": the token verifies with the published key: " + jwks.text());
      assertEquals(403, alice(HttpMethod.GET, node, "/openid/v1/jwks", null).status(), "no binding for alice");
      assertEquals(401, anon.send(HttpMethod.GET, url, "/openid/v1/jwks", Map.of(), null).status());
      assertEquals(404, anon.send(HttpMethod.GET, url, "/openid/v1/jwks/", bearer, null).status());
      // GET-only routes: another method is go-restful's 405 (for a caller RBAC lets through)
      for (HttpMethod m : List.of(HttpMethod.POST, HttpMethod.HEAD, HttpMethod.DELETE)) {
        HttpsClient.Resp r = admin.send(m, url, "/.well-known/openid-configuration", Map.of(), null);
        assertEquals(405, r.status(), m + " " + r.text());
        assertEquals("no-cache, private", r.headers().get("Cache-Control"));
      }
    }
    assertEquals(200, adminSend(HttpMethod.DELETE, "node-a", "/api/v1/namespaces/" + ns, null).status());
  }

  /** The built-ins' OpenAPI lists strategic merge patch and their tagged lists' strategies, as kube-apiserver's. */
  @Test
  void builtinOpenApiAdvertisesStrategicMergePatch() throws Exception {
    for (String node : List.of("node-a", "node-b")) {
      HttpsClient.Resp v3 = adminSend(HttpMethod.GET, node, "/openapi/v3/api/v1", null);
      assertEquals(200, v3.status(), v3.text());
      JsonObject content = v3.json().getJsonObject("paths").getJsonObject("/api/v1/namespaces/{name}")
          .getJsonObject("patch").getJsonObject("requestBody").getJsonObject("content");
      assertTrue(content.containsKey("application/strategic-merge-patch+json"), node + ": " + content.fieldNames());
      JsonObject conditions = v3.json().getJsonObject("components").getJsonObject("schemas")
          .getJsonObject("io.k8s.api.core.v1.Namespace").getJsonObject("properties").getJsonObject("status")
          .getJsonObject("properties").getJsonObject("conditions");
      assertEquals("merge", conditions.getString("x-kubernetes-patch-strategy"), node + ": " + conditions);
      assertEquals("type", conditions.getString("x-kubernetes-patch-merge-key"), node + ": " + conditions);
      HttpsClient.Resp v2 = adminSend(HttpMethod.GET, node, "/openapi/v2", null);
      assertTrue(v2.json().getJsonObject("paths").getJsonObject("/api/v1/namespaces/{namespace}/serviceaccounts/{name}")
          .getJsonObject("patch").getJsonArray("consumes").contains("application/strategic-merge-patch+json"), node);
      assertEquals("name", v2.json().getJsonObject("definitions").getJsonObject("io.k8s.api.core.v1.ServiceAccount")
          .getJsonObject("properties").getJsonObject("secrets").getString("x-kubernetes-patch-merge-key"), node);
    }
    // custom resources take no strategic merge patch, so their PATCH must not list it
    HttpsClient.Resp crd = adminSend(HttpMethod.GET, "node-b", "/openapi/v3/apis/demo.mvproxy.io/v2", null);
    assertFalse(crd.text().contains("application/strategic-merge-patch+json"), "widgets: " + crd.status());
  }

  /** kubectl explain finds the review APIs' fields (their OpenAPI describes the Go types), through both nodes. */
  @Test
  void kubectlExplainsReviewApis() throws Exception {
    for (String k : kubectls()) {
      for (String node : List.of("node-a", "node-b")) {
        KubectlFleetTest.Result e = kubectl(k, node, null, "explain", "selfsubjectaccessreviews.spec.resourceAttributes");
        assertEquals(0, e.code(), k + " " + node + e.all());
        assertTrue(e.out().contains("verb") && e.out().contains("subresource") && e.out().contains("namespace"),
            k + " " + node + e.all());
        KubectlFleetTest.Result t = kubectl(k, node, null, "explain", "tokenreviews.status");
        assertEquals(0, t.code(), k + " " + node + t.all());
        assertTrue(t.out().contains("authenticated") && t.out().contains("audiences"), k + " " + node + t.all());
      }
    }
  }

  /** F4: ObjectMeta checked as ValidateObjectMeta for custom resources and built-ins, over real HTTP. */
  @Test
  void objectMetaValidatedForCustomAndBuiltInKinds() throws Exception {
    String nameRule = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
        + "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation "
        + "is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    HttpsClient.Resp w = adminSend(HttpMethod.POST, "node-a", WIDGETS_V1, "{\"apiVersion\":\"demo.mvproxy.io/v1\","
        + "\"kind\":\"Widget\",\"metadata\":{\"name\":\"lbl\",\"labels\":{\"bad key!\":\"ok\"}},\"spec\":{}}");
    assertEquals(422, w.status(), w.text());
    assertEquals("Widget.demo.mvproxy.io \"lbl\" is invalid: metadata.labels: Invalid value: \"bad key!\": "
        + nameRule, w.json().getString("message"));
    assertEquals("FieldValueInvalid", w.json().getJsonObject("details").getJsonArray("causes").getJsonObject(0)
        .getString("reason"));
    HttpsClient.Resp own = adminSend(HttpMethod.POST, "node-c", WIDGETS_V1, "{\"apiVersion\":\"demo.mvproxy.io/v1\","
        + "\"kind\":\"Widget\",\"metadata\":{\"name\":\"own\",\"ownerReferences\":[{\"apiVersion\":\"v1\","
        + "\"kind\":\"ConfigMap\",\"name\":\"\",\"uid\":\"\"}],\"finalizers\":[\"bad finalizer\"]},\"spec\":{}}");
    assertEquals(422, own.status(), own.text());
    assertEquals("Widget.demo.mvproxy.io \"own\" is invalid: [metadata.ownerReferences.name: Invalid value: \"\": "
        + "name must not be empty, metadata.ownerReferences.uid: Invalid value: \"\": uid must not be empty, "
        + "metadata.finalizers: Invalid value: \"bad finalizer\": " + nameRule + "]", own.json().getString("message"));
    String cms = "/api/v1/namespaces/default/configmaps";
    HttpsClient.Resp cm = adminSend(HttpMethod.POST, "node-b", cms, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
        + "\"metadata\":{\"name\":\"lblcm\",\"labels\":{\"k\":\"bad value with spaces\"}}}");
    assertEquals(422, cm.status(), cm.text());
    assertTrue(cm.json().getString("message").startsWith("ConfigMap \"lblcm\" is invalid: metadata.labels: Invalid "
        + "value: \"bad value with spaces\": a valid label must be an empty string or consist of"), cm.text());
    HttpsClient.Resp ns = adminSend(HttpMethod.POST, "node-a", "/api/v1/namespaces", "{\"apiVersion\":\"v1\","
        + "\"kind\":\"Namespace\",\"metadata\":{\"name\":\"lblns\",\"labels\":{\"a\":\"" + "x".repeat(64) + "\"}}}");
    assertEquals(422, ns.status(), ns.text());
    assertTrue(ns.json().getString("message").contains("must be no more than 63 characters"), ns.text());
    HttpsClient.Resp big = adminSend(HttpMethod.POST, "node-a", WIDGETS_V1, "{\"apiVersion\":\"demo.mvproxy.io/v1\","
        + "\"kind\":\"Widget\",\"metadata\":{\"name\":\"big\",\"annotations\":{\"a\":\"" + "x".repeat(256 * 1024)
        + "\"}},\"spec\":{}}");
    assertEquals(422, big.status(), big.text());
    assertEquals("Widget.demo.mvproxy.io \"big\" is invalid: metadata.annotations: Too long: may not be more than "
        + "262144 bytes", big.json().getString("message"));
    for (String name : List.of("lbl", "own", "big")) {
      assertEquals(404, adminSend(HttpMethod.GET, "node-a", WIDGETS_V1 + "/" + name, null).status(), "never stored");
    }
    assertEquals(404, adminSend(HttpMethod.GET, "node-a", cms + "/lblcm", null).status(), "never stored");
    // a valid update that adds a bad label is refused too; generation: set for custom resources only
    HttpsClient.Resp ok = adminSend(HttpMethod.POST, "node-b", cms, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
        + "\"metadata\":{\"name\":\"meta-ok\",\"labels\":{\"example.com/MyName\":\"v.1\"}}}");
    assertEquals(201, ok.status(), ok.text());
    assertFalse(ok.json().getJsonObject("metadata").containsKey("generation"), ok.text());
    JsonObject upd = ok.json().copy();
    upd.getJsonObject("metadata").getJsonObject("labels").put("bad key!", "v");
    HttpsClient.Resp bad = adminSend(HttpMethod.PUT, "node-c", cms + "/meta-ok", upd.encode());
    assertEquals(422, bad.status(), bad.text());
    HttpsClient.Resp wOk = adminSend(HttpMethod.POST, "node-a", WIDGETS_V1, widget("meta-ok"));
    assertEquals(201, wOk.status(), wOk.text());
    assertEquals(1, wOk.json().getJsonObject("metadata").getInteger("generation"));
    assertEquals(200, adminSend(HttpMethod.DELETE, "node-a", WIDGETS_V1 + "/meta-ok", null).status());
    assertEquals(200, adminSend(HttpMethod.DELETE, "node-a", cms + "/meta-ok", null).status());
  }

  /**
   * F6: the strategic merge patches kubectl sends for built-in kinds (client-side {@code apply} of an existing object,
   * {@code patch} of default type, {@code diff}), with the kubectl on PATH and kubectl 1.27; custom resources still
   * answer 415 for it.
   */
  @Test
  void kubectlStrategicMergePatchOfBuiltins() throws Exception {
    Path dir = fleet.dir().resolve("smp");
    Files.createDirectories(dir);
    for (String k : kubectls()) {
      String ns = "smp" + Math.abs(k.hashCode() % 1000);
      String what = k + ": ";
      assertEquals(0, kubectl(k, "node-a", null, "create", "namespace", ns).code(), what);
      // typed creates (protobuf bodies from newer kubectl): an empty []byte value is valid, Go's zero values of
      // omitempty fields are not stored, RBAC subjects are defaulted as upstream (SetDefaults_Subject)
      KubectlFleetTest.Result secret = kubectl(k, "node-b", null, "create", "secret", "generic", "es", "-n", ns,
          "--from-literal=a=", "--from-literal=b=x");
      assertEquals(0, secret.code(), what + secret.all());
      JsonObject es = new JsonObject(kubectl(k, "node-a", null, "get", "secret", "es", "-n", ns, "-o", "json").out());
      assertEquals(new JsonObject().put("a", "").put("b", "eA=="), es.getJsonObject("data"), what + es);
      assertFalse(es.getJsonObject("metadata").containsKey("generateName"), what + es);
      assertFalse(es.getJsonObject("metadata").containsKey("generation"), what + es);
      KubectlFleetTest.Result rb = kubectl(k, "node-c", null, "create", "rolebinding", "rb", "-n", ns,
          "--clusterrole=view", "--user=bob", "--serviceaccount=" + ns + ":sa1");
      assertEquals(0, rb.code(), what + rb.all());
      JsonObject binding = new JsonObject(kubectl(k, "node-a", null, "get", "rolebinding", "rb", "-n", ns, "-o",
          "json").out());
      assertEquals(new io.vertx.core.json.JsonArray()
          .add(new JsonObject().put("kind", "User").put("apiGroup", "rbac.authorization.k8s.io").put("name", "bob"))
          .add(new JsonObject().put("kind", "ServiceAccount").put("name", "sa1").put("namespace", ns)),
          binding.getJsonArray("subjects"), what + binding);
      Path cm = dir.resolve(ns + "-cm.yaml");
      Files.writeString(cm, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cs1\n  namespace: " + ns
          + "\n  labels:\n    app: a\n    tier: web\ndata:\n  a: \"1\"\n  b: \"2\"\n");
      KubectlFleetTest.Result created = kubectl(k, "node-a", null, "apply", "-f", cm.toString());
      assertTrue(created.code() == 0 && created.out().contains("created"), what + created.all());
      // a server-side change kubectl apply must keep (not in the last-applied configuration)
      KubectlFleetTest.Result patched = kubectl(k, "node-b", null, "patch", "configmap", "cs1", "-n", ns, "-p",
          "{\"data\":{\"server\":\"x\"},\"metadata\":{\"finalizers\":[\"example.com/keep\"]}}");
      assertTrue(patched.code() == 0 && patched.out().contains("patched"), what + patched.all());
      Files.writeString(cm, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cs1\n  namespace: " + ns
          + "\n  labels:\n    app: a\ndata:\n  a: \"5\"\n");
      KubectlFleetTest.Result diff = kubectl(k, "node-c", null, "diff", "-f", cm.toString());
      assertEquals(1, diff.code(), what + diff.all());
      assertTrue(diff.out().contains("-  a: \"1\"") && diff.out().contains("+  a: \"5\"")
          && diff.out().contains("-  b: \"2\""), what + diff.all());
      KubectlFleetTest.Result configured = kubectl(k, "node-c", null, "apply", "-f", cm.toString());
      assertTrue(configured.code() == 0 && configured.out().contains("configured"), what + configured.all());
      KubectlFleetTest.Result got = kubectl(k, "node-a", null, "get", "configmap", "cs1", "-n", ns, "-o",
          "jsonpath={.data}|{.metadata.labels}|{.metadata.finalizers}");
      assertEquals("{\"a\":\"5\",\"server\":\"x\"}|{\"app\":\"a\"}|[\"example.com/keep\"]", got.out().strip(),
          what + got.all());
      KubectlFleetTest.Result same = kubectl(k, "node-b", null, "diff", "-f", cm.toString());
      assertEquals(0, same.code(), what + same.all());
      // finalizer removed by a strategic merge patch directive, as kubectl edit / patch send it
      KubectlFleetTest.Result unfin = kubectl(k, "node-a", null, "patch", "configmap", "cs1", "-n", ns, "-p",
          "{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":[\"example.com/keep\"]}}");
      assertEquals(0, unfin.code(), what + unfin.all());
      // RBAC: rules and subjects are atomic lists, replaced whole by apply
      Path role = dir.resolve(ns + "-role.yaml");
      Files.writeString(role, "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: r\n"
          + "  namespace: " + ns + "\nrules:\n- apiGroups: [\"\"]\n  resources: [configmaps]\n  verbs: [get, list]\n");
      assertEquals(0, kubectl(k, "node-b", null, "apply", "-f", role.toString()).code(), what);
      Files.writeString(role, "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: r\n"
          + "  namespace: " + ns + "\nrules:\n- apiGroups: [\"\"]\n  resources: [secrets]\n  verbs: [get]\n");
      KubectlFleetTest.Result roleAgain = kubectl(k, "node-c", null, "apply", "-f", role.toString());
      assertTrue(roleAgain.code() == 0 && roleAgain.out().contains("configured"), what + roleAgain.all());
      KubectlFleetTest.Result rules = kubectl(k, "node-a", null, "get", "role", "r", "-n", ns, "-o",
          "jsonpath={.rules}");
      assertEquals("[{\"apiGroups\":[\"\"],\"resources\":[\"secrets\"],\"verbs\":[\"get\"]}]", rules.out().strip(),
          what + rules.all());
      KubectlFleetTest.Result label = kubectl(k, "node-b", null, "patch", "namespace", ns, "-p",
          "{\"metadata\":{\"labels\":{\"team\":\"x\"}}}");
      assertEquals(0, label.code(), what + label.all());
      KubectlFleetTest.Result nsLabels = kubectl(k, "node-c", null, "get", "namespace", ns, "-o",
          "jsonpath={.metadata.labels.team}");
      assertEquals("x", nsLabels.out().strip(), what + nsLabels.all());
      assertEquals(0, kubectl(k, "node-b", null, "delete", "namespace", ns, "--wait=false").code(), what);
    }
    // kubectl auth reconcile of a binding without roleRef.apiGroup, twice: the second run recreates it (the stored
    // roleRef is defaulted) with a DELETE whose DeleteOptions body is protobuf from a kubectl that sends protobuf
    String newest = kubectls().get(0);
    Path k133 = Path.of(newest).toRealPath().getParent().resolve("kubectl.1.33");
    String rk = Files.isExecutable(k133) ? k133.toString() : newest;
    assertEquals(0, kubectl(rk, "node-a", null, "create", "namespace", "reconcile").code());
    Path rec = dir.resolve("reconcile.yaml");
    Files.writeString(rec, "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: rec\n"
        + "  namespace: reconcile\nroleRef:\n  kind: ClusterRole\n  name: view\nsubjects:\n- kind: User\n"
        + "  name: carol\n");
    for (int run = 1; run <= 2; run++) {
      KubectlFleetTest.Result r = kubectl(rk, run == 1 ? "node-b" : "node-c", null, "auth", "reconcile", "-f",
          rec.toString());
      assertEquals(0, r.code(), rk + " run " + run + ": " + r.all());
    }
    KubectlFleetTest.Result recGot = kubectl(rk, "node-a", null, "get", "rolebinding", "rec", "-n", "reconcile", "-o",
        "jsonpath={.roleRef.apiGroup}|{.subjects[0].apiGroup}");
    assertEquals("rbac.authorization.k8s.io|rbac.authorization.k8s.io", recGot.out().strip(), recGot.all());
    HttpsClient.Resp cr = admin.send(HttpMethod.PATCH, fleet.node("node-a").url(), WIDGETS_V1 + "/none",
        Map.of("Content-Type", "application/strategic-merge-patch+json"), "{}");
    assertEquals(415, cr.status(), cr.text());
    assertEquals("the body of the request was in an unknown format - accepted media types include: "
        + "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
        cr.json().getString("message"));
  }

  io.fabric8.kubernetes.client.KubernetesClient fabric8(String node) {
    io.fabric8.kubernetes.client.Config cfg = new io.fabric8.kubernetes.client.ConfigBuilder(
        io.fabric8.kubernetes.client.Config.empty()).withMasterUrl(fleet.node(node).url())
        .withCaCertFile(fleet.pki().caCert().toString()).withClientCertFile(fleet.pki().adminCert().toString())
        .withClientKeyFile(fleet.pki().adminKey().toString()).withClientKeyAlgo("EC").withRequestTimeout(10_000)
        .build();
    return new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(cfg).build();
  }

  @Test
  void fabric8LeaderElectionOnALease() throws Exception {
    java.util.Map<String, java.util.concurrent.CompletableFuture<?>> running = new java.util.concurrent.ConcurrentHashMap<>();
    java.util.Set<String> leading = java.util.concurrent.ConcurrentHashMap.newKeySet();
    List<io.fabric8.kubernetes.client.KubernetesClient> clients = new java.util.ArrayList<>();
    try {
      for (String node : List.of("node-a", "node-b")) {
        String id = "candidate-on-" + node;
        io.fabric8.kubernetes.client.KubernetesClient c = fabric8(node);
        clients.add(c);
        var cfg = new io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder()
            // a renew deadline that one slow HTTPS round trip on a loaded machine cannot miss
            .withName("mvproxy-test").withLeaseDuration(java.time.Duration.ofSeconds(8))
            .withRenewDeadline(java.time.Duration.ofSeconds(6)).withRetryPeriod(java.time.Duration.ofMillis(250))
            .withReleaseOnCancel(false)
            .withLock(new io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock("default",
                "mvproxy-test", id))
            .withLeaderCallbacks(new io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks(
                () -> leading.add(id), () -> leading.remove(id), leader -> { }))
            .build();
        running.put(id, c.leaderElector().withConfig(cfg).build().start());
      }
      FleetTest.await("one leader", 20_000, () -> leading.size() == 1);
      String first = leading.iterator().next();
      io.fabric8.kubernetes.api.model.coordination.v1.Lease lease = clients.get(0).leases().inNamespace("default")
          .withName("mvproxy-test").get();
      assertEquals(first, lease.getSpec().getHolderIdentity());
      assertEquals(1, leading.size(), "exactly one leader");
      running.get(first).cancel(true); // the leader dies without releasing the lease
      leading.remove(first);
      long t0 = System.nanoTime();
      FleetTest.await("the other candidate takes over", 40_000, () -> leading.size() == 1 && !leading.contains(first));
      System.out.println("FIGURE fabric8 leader election: takeover " + (System.nanoTime() - t0) / 1_000_000
          + " ms after the leader stopped (lease 8 s)");
      assertEquals(leading.iterator().next(), clients.get(1).leases().inNamespace("default").withName("mvproxy-test")
          .get().getSpec().getHolderIdentity());
    } finally {
      running.values().forEach(f -> f.cancel(true));
      clients.forEach(io.fabric8.kubernetes.client.KubernetesClient::close);
    }
  }
}
