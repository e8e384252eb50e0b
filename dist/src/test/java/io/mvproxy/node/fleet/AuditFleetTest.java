package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The audit log across a peer hop, on two real nodes: node-a (widgets v1) proxies widgets v2 to node-b. A create
 * through node-a is one story: an event on each node with the same auditID, user alice on both (node-b names the
 * original user from the front-proxy headers, not the proxy's certificate), node-a's annotated with the peer it went
 * to; Secrets at Metadata leave no data in either log; a proxied watch gets ResponseStarted on both nodes; a client's
 * own X-Remote-User cannot change the user of an event. node-b also sends its events to a webhook (an HTTP receiver
 * in this test, reached through a kubeconfig with a token).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("fleet")
class AuditFleetTest {
  static final String WIDGETS_V2 = "/apis/demo.mvproxy.io/v2/namespaces/default/widgets";
  static final String POLICY = """
      apiVersion: audit.k8s.io/v1
      kind: Policy
      rules:
      - level: Metadata
        users: [alice]
        resources: [{group: "", resources: [secrets]}]
      - level: RequestResponse
        users: [alice]
        resources: [{group: demo.mvproxy.io}]
      - level: Metadata
        users: [alice]
      """;

  FleetHarness fleet;
  HttpsClient admin;
  HttpsClient anon;
  final Map<String, Path> logs = new LinkedHashMap<>();
  final List<JsonObject> webhookEvents = new java.util.concurrent.CopyOnWriteArrayList<>();
  io.vertx.core.Vertx vertx;

  @BeforeAll
  void start() throws Exception {
    Path tmp = Files.createTempDirectory("mvproxy-audit-test");
    Map<String, Map<String, List<Path>>> plugins = FleetHarness.oldNewNew();
    plugins.remove("node-c");
    fleet = new FleetHarness(tmp.resolve("fleet"), plugins);
    Path tokens = Files.writeString(tmp.resolve("tokens.csv"), "alice-token,alice,uid-alice,\"system:masters\"\n");
    Path policy = Files.writeString(tmp.resolve("audit-policy.yaml"), POLICY);
    for (FleetHarness.NodeProc n : fleet.nodes()) {
      logs.put(n.name, tmp.resolve("audit").resolve(n.name + ".log"));
      fleet.configure(n.name, new JsonObject().put("tokenAuthFile", tokens.toString())
          .put("auditPolicyFile", policy.toString()).put("auditLogPath", logs.get(n.name).toString()));
    }
    vertx = io.vertx.core.Vertx.vertx();
    io.vertx.core.http.HttpServer receiver = vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(b -> {
      if ("Bearer webhook-token".equals(req.getHeader("Authorization"))) {
        b.toJsonObject().getJsonArray("items").forEach(e -> webhookEvents.add((JsonObject) e));
      }
      req.response().end("{}");
    })).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, java.util.concurrent.TimeUnit.SECONDS);
    Path kubeconfig = Files.writeString(tmp.resolve("webhook.kubeconfig"), "apiVersion: v1\nkind: Config\n"
        + "clusters:\n- name: sink\n  cluster: {server: \"http://127.0.0.1:" + receiver.actualPort() + "/audit\"}\n"
        + "users:\n- name: node-b\n  user: {token: webhook-token}\n"
        + "contexts:\n- name: audit\n  context: {cluster: sink, user: node-b}\ncurrent-context: audit\n");
    fleet.configure("node-b", new JsonObject().put("auditWebhookConfigFile", kubeconfig.toString())
        .put("auditWebhookBatchMaxWait", "200ms"));
    admin = new HttpsClient(fleet.pki().caCert(), fleet.pki().adminCert(), fleet.pki().adminKey());
    anon = new HttpsClient(fleet.pki().caCert(), null, null);
    fleet.startAllAndAwaitReady(admin, 300_000);
    FleetTest.await("node-a routes widgets v2", 60_000,
        () -> admin.get(fleet.node("node-a").url(), WIDGETS_V2).status() == 200);
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
    if (vertx != null) {
      vertx.close();
    }
  }

  HttpsClient.Resp alice(HttpMethod m, String node, String path, String body, String... headers) throws Exception {
    Map<String, String> h = new LinkedHashMap<>();
    h.put("Authorization", "Bearer alice-token");
    if (body != null) {
      h.put("Content-Type", "application/json");
    }
    for (int i = 0; i < headers.length; i += 2) {
      h.put(headers[i], headers[i + 1]);
    }
    return anon.send(m, fleet.node(node).url(), path, h, body);
  }

  /** @return the node's events of one auditID at one stage, once there is one (waits up to 10 s) */
  JsonObject event(String node, String auditId, String stage) throws Exception {
    JsonObject[] found = new JsonObject[1];
    FleetTest.await(node + " logged " + stage + " of " + auditId, 10_000, () -> {
      if (!Files.exists(logs.get(node))) {
        return false;
      }
      for (String line : Files.readAllLines(logs.get(node))) {
        JsonObject e = new JsonObject(line);
        if (auditId.equals(e.getString("auditID")) && stage.equals(e.getString("stage"))) {
          found[0] = e;
          return true;
        }
      }
      return false;
    });
    return found[0];
  }

  @Test
  void aProxiedCreateIsOneStoryOnBothNodes() throws Exception {
    HttpsClient.Resp r = alice(HttpMethod.POST, "node-a", WIDGETS_V2, "{\"apiVersion\":\"demo.mvproxy.io/v2\","
        + "\"kind\":\"Widget\",\"metadata\":{\"name\":\"audited\"},\"spec\":{\"size\":3}}");
    assertEquals(201, r.status(), r.text());
    String id = r.headers().get("Audit-Id");
    assertNotNull(id);
    for (String stage : List.of("RequestReceived", "ResponseComplete")) {
      for (String node : List.of("node-a", "node-b")) {
        JsonObject e = event(node, id, stage);
        assertEquals("alice", e.getJsonObject("user").getString("username"), node + " " + e.encode());
        assertEquals("uid-alice", e.getJsonObject("user").getString("uid"), node);
        assertEquals("RequestResponse", e.getString("level"));
        assertEquals("create", e.getString("verb"));
        assertEquals(WIDGETS_V2, e.getString("requestURI"));
        assertEquals(new JsonObject().put("resource", "widgets").put("namespace", "default")
            .put("apiGroup", "demo.mvproxy.io").put("apiVersion", "v2"), e.getJsonObject("objectRef"));
        assertEquals("127.0.0.1", e.getJsonArray("sourceIPs").getString(0));
      }
    }
    JsonObject a = event("node-a", id, "ResponseComplete");
    JsonObject b = event("node-b", id, "ResponseComplete");
    assertEquals("node-b", a.getJsonObject("annotations").getString("mvproxy.io/proxied-to"), a.encode());
    assertEquals("true", b.getJsonObject("annotations").getString("mvproxy.io/peer-proxied"), b.encode());
    assertNull(b.getJsonObject("annotations").getString("mvproxy.io/proxied-to"));
    for (JsonObject e : List.of(a, b)) {
      assertEquals("allow", e.getJsonObject("annotations").getString("authorization.k8s.io/decision"));
      assertEquals(201, e.getJsonObject("responseStatus").getInteger("code"));
      assertEquals(3, e.getJsonObject("requestObject").getJsonObject("spec").getInteger("size"));
    }
    assertEquals("audited", b.getJsonObject("responseObject").getJsonObject("metadata").getString("name"));
    assertNotNull(b.getJsonObject("responseObject").getJsonObject("metadata").getString("uid"));
    FleetTest.await("node-b's webhook got the create's events", 10_000, () -> webhookEvents.stream()
        .filter(e -> id.equals(e.getString("auditID"))).map(e -> e.getString("stage")).toList()
        .containsAll(List.of("RequestReceived", "ResponseComplete")));
    JsonObject viaWebhook = webhookEvents.stream().filter(e -> id.equals(e.getString("auditID"))
        && "ResponseComplete".equals(e.getString("stage"))).findFirst().orElseThrow();
    assertEquals(b, viaWebhook, "the webhook gets the same event as the log");
  }

  @Test
  void secretsAtMetadataLeaveNoDataAndClientsCannotForgeTheUser() throws Exception {
    String secretData = "c3VwZXJzZWNyZXQtdmFsdWU=";
    HttpsClient.Resp r = alice(HttpMethod.POST, "node-a", "/api/v1/namespaces/default/secrets",
        "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"audited\"},\"data\":{\"k\":\""
            + secretData + "\"}}", "X-Remote-User", "mallory", "X-Remote-Group", "system:masters");
    assertEquals(201, r.status(), r.text());
    String id = r.headers().get("Audit-Id");
    JsonObject e = event("node-a", id, "ResponseComplete");
    assertEquals("Metadata", e.getString("level"));
    assertEquals("alice", e.getJsonObject("user").getString("username"), "X-Remote-* from a client is ignored");
    assertFalse(e.containsKey("requestObject"));
    assertEquals("secrets", e.getJsonObject("objectRef").getString("resource"));
    HttpsClient.Resp get = alice(HttpMethod.GET, "node-b", "/api/v1/namespaces/default/secrets/audited", null);
    assertEquals(200, get.status());
    event("node-b", get.headers().get("Audit-Id"), "ResponseComplete");
    for (Path log : logs.values()) {
      assertFalse(Files.readString(log).contains(secretData), log + " holds Secret data");
    }
  }

  /**
   * ValidatingAdmissionPolicy in the audit log (validating/dispatcher.go): an Audit binding's failure is the event's
   * validation.policy.admission.k8s.io/validation_failure annotation, an auditAnnotations value "<policy>/<key>"; the
   * request is admitted. The policy is made through node-a, the write goes to node-b.
   */
  @Test
  void admissionPolicyAuditAnnotationsReachTheLog() throws Exception {
    String cm = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"NAME\"},"
        + "\"data\":{\"a\":\"1\",\"b\":\"2\",\"c\":\"3\"}}";
    HttpsClient.Resp policy = alice(HttpMethod.POST, "node-a",
        "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", """
        {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy",
         "metadata":{"name":"few-keys"},
         "spec":{"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],
           "operations":["CREATE"],"resources":["configmaps"]}]},
          "matchConditions":[{"name":"with-data","expression":"has(object.data)"}],
          "validations":[{"expression":"size(object.data) < 2","message":"too many keys"}],
          "auditAnnotations":[{"key":"keys","valueExpression":"string(size(object.data))"}]}}
        """);
    assertEquals(201, policy.status(), policy.text());
    HttpsClient.Resp binding = alice(HttpMethod.POST, "node-a",
        "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings", """
        {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding",
         "metadata":{"name":"few-keys-audit"},"spec":{"policyName":"few-keys","validationActions":["Audit"]}}
        """);
    assertEquals(201, binding.status(), binding.text());
    int[] attempt = {0};
    JsonObject[] annotated = new JsonObject[1];
    FleetTest.await("node-b audits the policy's failures", 30_000, () -> {
      HttpsClient.Resp r = alice(HttpMethod.POST, "node-b", "/api/v1/namespaces/default/configmaps",
          cm.replace("NAME", "audit-policy-" + attempt[0]++));
      assertEquals(201, r.status(), r.text());
      JsonObject e = event("node-b", r.headers().get("Audit-Id"), "ResponseComplete");
      annotated[0] = e;
      return e.getJsonObject("annotations", new JsonObject()).containsKey("few-keys/keys");
    });
    JsonObject annotations = annotated[0].getJsonObject("annotations");
    assertEquals("3", annotations.getString("few-keys/keys"), annotations.encode());
    assertEquals(new JsonArray().add(new JsonObject().put("message", "too many keys").put("policy", "few-keys")
        .put("binding", "few-keys-audit").put("expressionIndex", 0).put("validationActions", new JsonArray()
            .add("Audit"))), new JsonArray(annotations.getString("validation.policy.admission.k8s.io/"
        + "validation_failure")));
    assertEquals("allow", annotations.getString("authorization.k8s.io/decision"));
    assertEquals(200, alice(HttpMethod.DELETE, "node-a",
        "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/few-keys-audit", null).status());
    assertEquals(200, alice(HttpMethod.DELETE, "node-a",
        "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/few-keys", null).status());
    // a DELETE's admission annotations too (its attributes carry the request's annotation sink)
    assertEquals(201, alice(HttpMethod.POST, "node-a",
        "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", """
        {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy",
         "metadata":{"name":"audited-deletes"},
         "spec":{"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],
           "operations":["DELETE"],"resources":["configmaps"]}]},
          "validations":[{"expression":"false","message":"audited delete"}],
          "auditAnnotations":[{"key":"gone","valueExpression":"oldObject.metadata.name"}]}}
        """).status());
    assertEquals(201, alice(HttpMethod.POST, "node-a",
        "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings", """
        {"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding",
         "metadata":{"name":"audited-deletes"},"spec":{"policyName":"audited-deletes","validationActions":["Audit"]}}
        """).status());
    String[] deleted = new String[1];
    FleetTest.await("node-b audits a policy's DELETE", 30_000, () -> {
      deleted[0] = "audit-delete-" + attempt[0]++;
      assertEquals(201, alice(HttpMethod.POST, "node-b", "/api/v1/namespaces/default/configmaps",
          cm.replace("NAME", deleted[0])).status());
      HttpsClient.Resp d = alice(HttpMethod.DELETE, "node-b", "/api/v1/namespaces/default/configmaps/" + deleted[0],
          null);
      assertEquals(200, d.status(), d.text());
      annotated[0] = event("node-b", d.headers().get("Audit-Id"), "ResponseComplete");
      return annotated[0].getJsonObject("annotations", new JsonObject()).containsKey("audited-deletes/gone");
    });
    assertEquals(deleted[0], annotated[0].getJsonObject("annotations").getString("audited-deletes/gone"));
    assertEquals(200, alice(HttpMethod.DELETE, "node-a",
        "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/audited-deletes", null).status());
  }

  @Test
  void aProxiedWatchGetsResponseStartedOnBothNodes() throws Exception {
    HttpsClient.Resp r = alice(HttpMethod.GET, "node-a", WIDGETS_V2 + "?watch=true&timeoutSeconds=1", null);
    assertEquals(200, r.status(), r.text());
    String id = r.headers().get("Audit-Id");
    for (String node : List.of("node-a", "node-b")) {
      JsonObject started = event(node, id, "ResponseStarted");
      assertEquals("watch", started.getString("verb"));
      assertEquals(200, started.getJsonObject("responseStatus").getInteger("code"));
      assertEquals("alice", started.getJsonObject("user").getString("username"));
      event(node, id, "ResponseComplete");
    }
  }
}
