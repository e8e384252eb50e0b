package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Admission webhooks on two real nodes: node-a (widgets v1 only) proxies widgets v2 to node-b. A real HTTPS webhook
 * server in this test (Vert.x, serving certificate from the test PKI, its CA in {@code caBundle}) denies widgets
 * labelled {@code deny}, refuses to delete widgets labelled {@code protected}, and adds the label
 * {@code mutated: "yes"} through a JSONPatch. A create through the proxying node is admitted once, on node-b, and
 * the webhook sees the original user (alice), not the proxy's identity. A webhook that is down fails the request with
 * kube's 500 under {@code failurePolicy: Fail} (nothing stored) and lets it through under {@code Ignore}; one that
 * does not answer in {@code timeoutSeconds} fails it with {@code context deadline exceeded}. A
 * ValidatingAdmissionPolicy (CEL, with a variable and a messageExpression) and its Deny binding refuse large widgets
 * through either node with kube's 422 text, and stop applying once the binding is deleted. A webhook named by
 * {@code clientConfig.service} is reached through node-b's {@code serviceResolution}. {@code kubectl apply}
 * installs a webhook for ConfigMaps (a built-in kind), which then refuses a labelled ConfigMap.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("fleet")
class AdmissionWebhookFleetTest {
  static final String WIDGETS_V2 = "/apis/demo.mvproxy.io/v2/namespaces/default/widgets";
  static final String WIDGETS_V1 = "/apis/demo.mvproxy.io/v1/namespaces/default/widgets";
  static final String VWC = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
  static final String MWC = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";

  FleetHarness fleet;
  HttpsClient admin;
  HttpsClient anon;
  Vertx vertx;
  HttpServer webhook;
  String caBundle;
  int downPort;
  /** Answers the webhook server gave on {@code /slow} (4 s after each request). */
  final java.util.concurrent.atomic.AtomicInteger slowAnswered = new java.util.concurrent.atomic.AtomicInteger();
  /** Every AdmissionReview request the webhook server received, with the path it came to. */
  final List<JsonObject> reviews = new CopyOnWriteArrayList<>();

  @BeforeAll
  void start() throws Exception {
    Path tmp = Files.createTempDirectory("mvproxy-admission-test");
    Map<String, Map<String, List<Path>>> plugins = FleetHarness.oldNewNew();
    plugins.remove("node-c");
    fleet = new FleetHarness(tmp.resolve("fleet"), plugins);
    Path tokens = Files.writeString(tmp.resolve("tokens.csv"), "alice-token,alice,uid-alice,\"system:masters\"\n");
    fleet.configureAll(new JsonObject().put("tokenAuthFile", tokens.toString()));
    vertx = Vertx.vertx();
    webhook = vertx.createHttpServer(new HttpServerOptions().setSsl(true).setKeyCertOptions(new PemKeyCertOptions()
            .setCertPath(fleet.pki().servingCert("node-b").toString())
            .setKeyPath(fleet.pki().servingKey("node-b").toString())))
        .requestHandler(req -> req.body().onSuccess(b -> {
          String path = req.path();
          if (path.equals("/slow")) {
            vertx.setTimer(4000, t -> req.response().end().onComplete(ar -> slowAnswered.incrementAndGet()));
            return;
          }
          JsonObject r = b.toJsonObject().getJsonObject("request");
          reviews.add(r.copy().put("_path", path).put("_query", req.query()));
          JsonObject resp = new JsonObject().put("uid", r.getString("uid")).put("allowed", true);
          JsonObject obj = r.getJsonObject("object");
          JsonObject old = r.getJsonObject("oldObject");
          if (path.equals("/validate")) {
            resp.put("warnings", new JsonArray().add("checked by \"the test\" webhook"));
            if (obj != null && labels(obj).containsKey("deny")) {
              resp.put("allowed", false).put("status", new JsonObject().put("code", 403)
                  .put("message", "label deny is set"));
            } else if ("DELETE".equals(r.getString("operation")) && labels(old).containsKey("protected")) {
              resp.put("allowed", false).put("status", new JsonObject().put("message", "widget is protected"));
            }
          } else if (path.equals("/rogue") && obj != null) {
            // a buggy mutating webhook: moves the object, renames it, or sets server-owned fields
            String what = String.valueOf(labels(obj).get("rogue"));
            JsonArray patch = new JsonArray().add(switch (what) {
              case "namespace" -> new JsonObject().put("op", "replace").put("path", "/metadata/namespace")
                  .put("value", "kube-system");
              case "name" -> new JsonObject().put("op", "replace").put("path", "/metadata/name")
                  .put("value", "Bad_Name");
              case "kind" -> new JsonObject().put("op", "replace").put("path", "/kind").put("value", "Secret");
              default -> new JsonObject().put("op", "add").put("path", "/metadata/uid").put("value", "forged-uid");
            });
            resp.put("patchType", "JSONPatch").put("patch", Base64.getEncoder().encodeToString(patch.encode()
                .getBytes(StandardCharsets.UTF_8)));
          } else if (path.equals("/mutate") && obj != null && !labels(obj).containsKey("mutated")) {
            JsonArray patch = new JsonArray().add(labels(obj).isEmpty() && obj.getJsonObject("metadata")
                .getValue("labels") == null
                ? new JsonObject().put("op", "add").put("path", "/metadata/labels")
                .put("value", new JsonObject().put("mutated", "yes"))
                : new JsonObject().put("op", "add").put("path", "/metadata/labels/mutated").put("value", "yes"));
            resp.put("patchType", "JSONPatch").put("patch", Base64.getEncoder().encodeToString(patch.encode()
                .getBytes(StandardCharsets.UTF_8)));
          }
          req.response().putHeader("Content-Type", "application/json").end(new JsonObject()
              .put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview").put("response", resp)
              .encode());
        }))
        .listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    // a port nothing listens on, below the ephemeral range so no outgoing connection makes it answer
    downPort = io.mvproxy.testkit.TestPorts.belowEphemeral();
    caBundle = Base64.getEncoder().encodeToString(Files.readAllBytes(fleet.pki().caCert()));
    // node-b finds the service "webhooks/widget-hook:443" of a clientConfig.service here
    fleet.configure("node-b", new JsonObject().put("serviceResolution", new JsonObject()
        .put("webhooks/widget-hook:443", "https://127.0.0.1:" + webhook.actualPort())));
    admin = new HttpsClient(fleet.pki().caCert(), fleet.pki().adminCert(), fleet.pki().adminKey());
    anon = new HttpsClient(fleet.pki().caCert(), null, null);
    fleet.startAllAndAwaitReady(admin, 300_000);
    FleetTest.await("node-a routes widgets v2", 60_000,
        () -> admin.get(fleet.node("node-a").url(), WIDGETS_V2).status() == 200);
    create("node-a", VWC, config("ValidatingWebhookConfiguration", "widget-policy", hook("deny.widgets.example.com",
        "/validate", webhook.actualPort(), "Fail", "CREATE,UPDATE,DELETE", "*")));
    create("node-b", MWC, config("MutatingWebhookConfiguration", "widget-labels", hook("label.widgets.example.com",
        "/mutate", webhook.actualPort(), "Fail", "CREATE", "v1").put("reinvocationPolicy", "IfNeeded")));
    // a configuration takes effect on every node within seconds (each node watches the configurations)
    for (String node : List.of("node-a", "node-b")) {
      FleetTest.await(node + " calls the webhooks", 20_000, () -> {
        HttpsClient.Resp r = send(HttpMethod.POST, node, WIDGETS_V1 + "?dryRun=All",
            widget("v1", "probe", "\"deny\":\"x\""));
        return r.status() == 403;
      });
      FleetTest.await(node + " mutates", 20_000, () -> labels(send(HttpMethod.POST, node, WIDGETS_V1 + "?dryRun=All",
          widget("v1", "probe", null)).json()).containsKey("mutated"));
    }
  }

  @AfterAll
  void stop() throws Exception {
    if (admin != null) {
      admin.close();
      anon.close();
    }
    if (fleet != null) {
      fleet.close();
    }
    if (vertx != null) {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  static Map<String, Object> labels(JsonObject o) {
    if (o == null || !(o.getValue("metadata") instanceof JsonObject md)
        || !(md.getValue("labels") instanceof JsonObject l)) {
      return Map.of();
    }
    return l.getMap();
  }

  JsonObject hook(String name, String path, int port, String failurePolicy, String ops, String versions) {
    JsonArray operations = new JsonArray();
    for (String op : ops.split(",")) {
      operations.add(op);
    }
    return new JsonObject().put("name", name)
        .put("clientConfig", new JsonObject().put("url", "https://127.0.0.1:" + port + path)
            .put("caBundle", caBundle))
        .put("rules", new JsonArray().add(new JsonObject().put("operations", operations)
            .put("apiGroups", new JsonArray().add("demo.mvproxy.io")).put("apiVersions", new JsonArray().add(versions))
            .put("resources", new JsonArray().add("widgets"))))
        .put("failurePolicy", failurePolicy).put("sideEffects", "None")
        .put("admissionReviewVersions", new JsonArray().add("v1"));
  }

  static String config(String kind, String name, JsonObject... hooks) {
    JsonArray a = new JsonArray();
    for (JsonObject h : hooks) {
      a.add(h);
    }
    return new JsonObject().put("apiVersion", "admissionregistration.k8s.io/v1").put("kind", kind)
        .put("metadata", new JsonObject().put("name", name)).put("webhooks", a).encode();
  }

  static String widget(String version, String name, String labels) {
    return "{\"apiVersion\":\"demo.mvproxy.io/" + version + "\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"" + name
        + "\"" + (labels == null ? "" : ",\"labels\":{" + labels + "}") + "},\"spec\":{\"size\":3}}";
  }

  HttpsClient.Resp send(HttpMethod m, String node, String path, String body, String... headers) throws Exception {
    Map<String, String> h = new LinkedHashMap<>();
    h.put("Authorization", "Bearer alice-token");
    if (body != null) {
      h.put("Content-Type", m == HttpMethod.PATCH ? "application/merge-patch+json" : "application/json");
    }
    for (int i = 0; i < headers.length; i += 2) {
      h.put(headers[i], headers[i + 1]);
    }
    return anon.send(m, fleet.node(node).url(), path, h, body);
  }

  void create(String node, String path, String body) throws Exception {
    HttpsClient.Resp r = send(HttpMethod.POST, node, path, body);
    assertEquals(201, r.status(), r.text());
  }

  List<JsonObject> reviewsOf(String name, String path) {
    return reviews.stream().filter(r -> name.equals(r.getString("name")) && path.equals(r.getString("_path")))
        .toList();
  }

  @Test
  void configurationsAreDefaultedAndValidated() throws Exception {
    HttpsClient.Resp r = send(HttpMethod.GET, "node-b", VWC + "/widget-policy", null);
    assertEquals(200, r.status(), r.text());
    JsonObject h = r.json().getJsonArray("webhooks").getJsonObject(0);
    assertEquals("Equivalent", h.getString("matchPolicy"));
    assertEquals(10, h.getInteger("timeoutSeconds"));
    assertEquals(new JsonObject(), h.getJsonObject("namespaceSelector"));
    assertEquals("*", h.getJsonArray("rules").getJsonObject(0).getString("scope"));
    HttpsClient.Resp bad = send(HttpMethod.POST, "node-a", VWC, config("ValidatingWebhookConfiguration", "bad",
        hook("bad.example.com", "/validate", 443, "Fail", "CREATE", "*").put("sideEffects", "Unknown")
            .put("timeoutSeconds", 40)));
    assertEquals(422, bad.status(), bad.text());
    assertEquals("ValidatingWebhookConfiguration.admissionregistration.k8s.io \"bad\" is invalid: "
        + "[webhooks[0].sideEffects: Unsupported value: \"Unknown\": supported values: \"None\", \"NoneOnDryRun\", "
        + "webhooks[0].timeoutSeconds: Invalid value: 40: the timeout value must be between 1 and 30 seconds]",
        bad.json().getString("message"));
    assertEquals(404, send(HttpMethod.GET, "node-a", VWC + "/bad", null).status());
  }

  @Test
  void deniedWithTheWebhooksCodeAndMessageAndNotStored() throws Exception {
    for (String node : List.of("node-a", "node-b")) {
      String name = "denied-" + node;
      HttpsClient.Resp r = send(HttpMethod.POST, node, WIDGETS_V2, widget("v2", name, "\"deny\":\"yes\""));
      assertEquals(403, r.status(), r.text());
      assertEquals("admission webhook \"deny.widgets.example.com\" denied the request: label deny is set",
          r.json().getString("message"));
      assertEquals(404, send(HttpMethod.GET, "node-b", WIDGETS_V2 + "/" + name, null).status());
    }
  }

  @Test
  void mutatedThroughJsonPatchWithTheEquivalentVersion() throws Exception {
    HttpsClient.Resp r = send(HttpMethod.POST, "node-b", WIDGETS_V2, widget("v2", "mutated-b", "\"app\":\"x\""));
    assertEquals(201, r.status(), r.text());
    assertEquals(Map.of("app", "x", "mutated", "yes"), labels(r.json()));
    HttpsClient.Resp got = send(HttpMethod.GET, "node-a", WIDGETS_V1 + "/mutated-b", null);
    assertEquals("yes", labels(got.json()).get("mutated"));
    // the mutating webhook's rule names v1 only: a v2 request reaches it converted to v1 (matchPolicy Equivalent)
    JsonObject review = reviewsOf("mutated-b", "/mutate").get(0);
    assertEquals("v1", review.getJsonObject("kind").getString("version"));
    assertEquals("v2", review.getJsonObject("requestKind").getString("version"));
    assertEquals("demo.mvproxy.io/v1", review.getJsonObject("object").getString("apiVersion"));
    assertEquals("timeout=10s", review.getString("_query"));
  }

  @Test
  void aProxiedCreateIsAdmittedOnceWithTheOriginalUser() throws Exception {
    HttpsClient.Resp r = send(HttpMethod.POST, "node-a", WIDGETS_V2, widget("v2", "proxied", null));
    assertEquals(201, r.status(), r.text());
    assertEquals("yes", labels(r.json()).get("mutated"));
    // the webhook's warnings reach the client through the proxying node
    assertEquals(List.of("299 - \"checked by \\\"the test\\\" webhook\""), r.headers().getAll("Warning"));
    List<JsonObject> mutate = reviewsOf("proxied", "/mutate");
    List<JsonObject> validate = reviewsOf("proxied", "/validate");
    assertEquals(1, mutate.size(), mutate.toString());
    assertEquals(1, validate.size(), validate.toString());
    for (JsonObject rv : List.of(mutate.get(0), validate.get(0))) {
      assertEquals("alice", rv.getJsonObject("userInfo").getString("username"));
      assertEquals("uid-alice", rv.getJsonObject("userInfo").getString("uid"));
      assertTrue(rv.getJsonObject("userInfo").getJsonArray("groups").contains("system:masters"));
      assertEquals("CREATE", rv.getString("operation"));
      assertEquals("default", rv.getString("namespace"));
      assertEquals(false, rv.getBoolean("dryRun"));
      assertEquals("CreateOptions", rv.getJsonObject("options").getString("kind"));
    }
    // the validating webhook saw the mutated object
    assertEquals("yes", labels(validate.get(0).getJsonObject("object")).get("mutated"));
  }

  @Test
  void updateAndDeleteAreAdmitted() throws Exception {
    create("node-b", WIDGETS_V2, widget("v2", "guarded", "\"protected\":\"yes\""));
    HttpsClient.Resp patch = send(HttpMethod.PATCH, "node-a", WIDGETS_V2 + "/guarded",
        "{\"metadata\":{\"labels\":{\"deny\":\"now\"}}}");
    assertEquals(403, patch.status(), patch.text());
    assertEquals("admission webhook \"deny.widgets.example.com\" denied the request: label deny is set",
        patch.json().getString("message"));
    HttpsClient.Resp ok = send(HttpMethod.PATCH, "node-a", WIDGETS_V2 + "/guarded",
        "{\"spec\":{\"size\":5}}");
    assertEquals(200, ok.status(), ok.text());
    JsonObject update = reviewsOf("guarded", "/validate").stream()
        .filter(x -> "UPDATE".equals(x.getString("operation"))).reduce((a, b) -> b).orElseThrow();
    assertEquals(3, update.getJsonObject("oldObject").getJsonObject("spec").getInteger("size"));
    assertEquals(5, update.getJsonObject("object").getJsonObject("spec").getInteger("size"));
    assertEquals("PatchOptions", update.getJsonObject("options").getString("kind"));
    HttpsClient.Resp del = send(HttpMethod.DELETE, "node-a", WIDGETS_V2 + "/guarded", null);
    assertEquals(400, del.status(), del.text());
    assertEquals("admission webhook \"deny.widgets.example.com\" denied the request: widget is protected",
        del.json().getString("message"));
    assertEquals(200, send(HttpMethod.GET, "node-b", WIDGETS_V2 + "/guarded", null).status());
  }

  @Test
  void failurePolicyFailAndIgnoreWithTheWebhookDown() throws Exception {
    JsonObject fail = hook("down-fail.example.com", "/down", downPort, "Fail", "CREATE", "*")
        .put("objectSelector", new JsonObject().put("matchLabels", new JsonObject().put("route", "down-fail")));
    JsonObject ignore = hook("down-ignore.example.com", "/down", downPort, "Ignore", "CREATE", "*")
        .put("objectSelector", new JsonObject().put("matchLabels", new JsonObject().put("route", "down-ignore")));
    JsonObject slow = hook("slow.example.com", "/slow", webhook.actualPort(), "Fail", "CREATE", "*")
        .put("timeoutSeconds", 1)
        .put("objectSelector", new JsonObject().put("matchLabels", new JsonObject().put("route", "slow")));
    create("node-b", VWC, config("ValidatingWebhookConfiguration", "down", fail, ignore, slow));
    String url = "https://127.0.0.1:" + downPort + "/down?timeout=10s";
    String expected = "Internal error occurred: failed calling webhook \"down-fail.example.com\": failed to call "
        + "webhook: Post \"" + url + "\": dial tcp 127.0.0.1:" + downPort + ": connect: connection refused";
    FleetTest.await("node-b calls the down webhook", 20_000, () -> send(HttpMethod.POST, "node-b",
        WIDGETS_V2 + "?dryRun=All", widget("v2", "probe-down", "\"route\":\"down-fail\"")).status() == 500);
    HttpsClient.Resp r = send(HttpMethod.POST, "node-a", WIDGETS_V2, widget("v2", "down-fail",
        "\"route\":\"down-fail\""));
    assertEquals(500, r.status(), r.text());
    assertEquals("InternalError", r.json().getString("reason"));
    assertEquals(expected, r.json().getString("message"));
    assertEquals(404, send(HttpMethod.GET, "node-b", WIDGETS_V2 + "/down-fail", null).status());
    HttpsClient.Resp ok = send(HttpMethod.POST, "node-a", WIDGETS_V2, widget("v2", "down-ignore",
        "\"route\":\"down-ignore\""));
    assertEquals(201, ok.status(), ok.text());
    assertEquals(200, send(HttpMethod.GET, "node-b", WIDGETS_V2 + "/down-ignore", null).status());
    long t0 = System.nanoTime();
    HttpsClient.Resp timedOut = send(HttpMethod.POST, "node-b", WIDGETS_V2, widget("v2", "slow",
        "\"route\":\"slow\""));
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertEquals(500, timedOut.status(), timedOut.text());
    assertEquals("Internal error occurred: failed calling webhook \"slow.example.com\": failed to call webhook: "
        + "Post \"https://127.0.0.1:" + webhook.actualPort() + "/slow?timeout=1s\": context deadline exceeded",
        timedOut.json().getString("message"));
    // the webhook's 1 s timeout, not the 10 s default: the upper bound leaves a loaded CI machine room
    assertTrue(ms >= 900 && ms < 8000, "answered after " + ms + " ms");
    assertEquals(404, send(HttpMethod.GET, "node-b", WIDGETS_V2 + "/slow", null).status());
    // a deleted configuration stops applying on every node within seconds
    assertEquals(200, send(HttpMethod.DELETE, "node-a", VWC + "/down", null).status());
    for (String node : List.of("node-a", "node-b")) {
      FleetTest.await(node + " forgets the down webhook", 20_000, () -> send(HttpMethod.POST, node,
          WIDGETS_V1 + "?dryRun=All", widget("v1", "probe-gone", "\"route\":\"down-fail\"")).status() == 201);
    }
  }
  /**
   * What a mutating webhook returns is checked again as kube-apiserver's {@code rest.BeforeCreate}/{@code BeforeUpdate}
   * do after the mutating admission: another namespace is {@code 400}, an invalid name {@code 422}, a renamed update
   * {@code 422 field is immutable}, another kind {@code 422}, and server-owned fields (uid) stay the server's;
   * nothing is stored elsewhere.
   */
  @Test
  void aMutatingWebhookCannotMoveRenameOrForgeTheObject() throws Exception {
    JsonObject rogue = hook("rogue.widgets.example.com", "/rogue", webhook.actualPort(), "Fail", "CREATE,UPDATE", "*")
        .put("objectSelector", new JsonObject().put("matchExpressions", new JsonArray().add(new JsonObject()
            .put("key", "rogue").put("operator", "Exists"))));
    create("node-b", MWC, config("MutatingWebhookConfiguration", "rogue", rogue));
    FleetTest.await("node-b calls the rogue webhook", 20_000, () -> send(HttpMethod.POST, "node-b",
        WIDGETS_V2 + "?dryRun=All", widget("v2", "probe-rogue", "\"rogue\":\"namespace\"")).status() == 400);
    String systemWidgets = WIDGETS_V2.replace("/default/", "/kube-system/");
    HttpsClient.Resp moved = send(HttpMethod.POST, "node-a", WIDGETS_V2, widget("v2", "moved",
        "\"rogue\":\"namespace\""));
    assertEquals(400, moved.status(), moved.text());
    assertEquals("the namespace of the provided object does not match the namespace sent on the request",
        moved.json().getString("message"));
    assertEquals(404, send(HttpMethod.GET, "node-b", systemWidgets + "/moved", null).status());
    assertEquals(404, send(HttpMethod.GET, "node-b", WIDGETS_V2 + "/moved", null).status());
    HttpsClient.Resp renamed = send(HttpMethod.POST, "node-a", WIDGETS_V2, widget("v2", "renamed",
        "\"rogue\":\"name\""));
    assertEquals(422, renamed.status(), renamed.text());
    assertTrue(renamed.json().getString("message").contains("metadata.name: Invalid value: \"Bad_Name\""),
        renamed.text());
    assertEquals(404, send(HttpMethod.GET, "node-b", WIDGETS_V2 + "/Bad_Name", null).status());
    HttpsClient.Resp rekinded = send(HttpMethod.POST, "node-a", WIDGETS_V2, widget("v2", "rekinded",
        "\"rogue\":\"kind\""));
    assertEquals(422, rekinded.status(), rekinded.text());
    assertTrue(rekinded.json().getString("message").contains("kind: Invalid value: \"Secret\": must be Widget"),
        rekinded.text());
    assertEquals(404, send(HttpMethod.GET, "node-b", WIDGETS_V2 + "/rekinded", null).status());
    HttpsClient.Resp forged = send(HttpMethod.POST, "node-a", WIDGETS_V2, widget("v2", "forged",
        "\"rogue\":\"uid\""));
    assertEquals(201, forged.status(), forged.text());
    String uid = forged.json().getJsonObject("metadata").getString("uid");
    assertTrue(!"forged-uid".equals(uid) && uid != null && !uid.isEmpty(), uid);
    create("node-b", WIDGETS_V2, widget("v2", "to-rename", null));
    HttpsClient.Resp rename = send(HttpMethod.PATCH, "node-a", WIDGETS_V2 + "/to-rename",
        "{\"metadata\":{\"labels\":{\"rogue\":\"name\"}}}");
    assertEquals(422, rename.status(), rename.text());
    assertTrue(rename.json().getString("message").contains("metadata.name: Invalid value: \"Bad_Name\": field is "
        + "immutable"), rename.text());
    HttpsClient.Resp move = send(HttpMethod.PATCH, "node-a", WIDGETS_V2 + "/to-rename",
        "{\"metadata\":{\"labels\":{\"rogue\":\"namespace\"}}}");
    assertEquals(400, move.status(), move.text());
    // an update's uid is immutable after admission too (rest.BeforeUpdate keeps a uid a webhook set, then refuses it)
    HttpsClient.Resp reUid = send(HttpMethod.PATCH, "node-a", WIDGETS_V2 + "/to-rename",
        "{\"metadata\":{\"labels\":{\"rogue\":\"uid\"}}}");
    assertEquals(422, reUid.status(), reUid.text());
    assertTrue(reUid.json().getString("message").contains("metadata.uid: Invalid value: \"forged-uid\": field is "
        + "immutable"), reUid.text());
    HttpsClient.Resp kept = send(HttpMethod.GET, "node-b", WIDGETS_V2 + "/to-rename", null);
    assertEquals(200, kept.status(), kept.text());
    assertEquals("default", kept.json().getJsonObject("metadata").getString("namespace"));
    assertEquals(null, labels(kept.json()).get("rogue"));
    assertEquals(200, send(HttpMethod.DELETE, "node-b", MWC + "/rogue", null).status());
  }

  /**
   * A write whose webhook outlives the request's deadline gets {@code 504} and is never stored, even when the webhook
   * is then skipped ({@code failurePolicy: Ignore}): kube-apiserver's storage call runs in the request's context.
   */
  @Test
  void aWriteAdmittedAfterItsDeadlineIsNotStored() throws Exception {
    JsonObject slow = hook("late.widgets.example.com", "/slow", webhook.actualPort(), "Ignore", "CREATE,DELETE", "*")
        .put("timeoutSeconds", 10)
        .put("objectSelector", new JsonObject().put("matchLabels", new JsonObject().put("route", "late")));
    create("node-b", VWC, config("ValidatingWebhookConfiguration", "late", slow));
    FleetTest.await("node-b calls the late webhook", 20_000, () -> send(HttpMethod.POST, "node-b",
        WIDGETS_V2 + "?dryRun=All&timeout=1s", widget("v2", "probe-late", "\"route\":\"late\"")).status() == 504);
    FleetTest.await("the probe's webhook call ended", 20_000, () -> slowAnswered.get() >= 1);
    int answered = slowAnswered.get();
    HttpsClient.Resp r = send(HttpMethod.POST, "node-a", WIDGETS_V2 + "?timeout=1s", widget("v2", "late",
        "\"route\":\"late\""));
    assertEquals(504, r.status(), r.text());
    assertEquals("Timeout", r.json().getString("reason"));
    FleetTest.await("the webhook answered the late create", 20_000, () -> slowAnswered.get() > answered);
    // a deliberate absence check, not a wait gating a next step: nothing signals "the node did not store"; a node
    // that stored after the webhook's late answer would write right after it (the create's own chain), so five
    // reads over about a second after that answer would see the object
    for (int i = 0; i < 5; i++) {
      assertEquals(404, send(HttpMethod.GET, "node-b", WIDGETS_V2 + "/late", null).status());
      Thread.sleep(200);
    }
    assertEquals(200, send(HttpMethod.DELETE, "node-b", VWC + "/late", null).status());
  }

  @Test
  void validatingAdmissionPolicyOnTheServingNode() throws Exception {
    String vap = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
    String vapb = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings";
    create("node-a", vap, "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"ValidatingAdmissionPolicy\","
        + "\"metadata\":{\"name\":\"max-size\"},\"spec\":{\"matchConstraints\":{\"resourceRules\":[{"
        + "\"apiGroups\":[\"demo.mvproxy.io\"],\"apiVersions\":[\"*\"],\"operations\":[\"CREATE\",\"UPDATE\"],"
        + "\"resources\":[\"widgets\"]}]},\"variables\":[{\"name\":\"size\",\"expression\":"
        + "\"has(object.spec.size) ? object.spec.size : 0\"}],\"validations\":[{\"expression\":"
        + "\"variables.size <= 10\",\"messageExpression\":\"'size ' + string(variables.size) + ' is more than 10'\"}]}}");
    HttpsClient.Resp bad = send(HttpMethod.POST, "node-b", vapb, "{\"apiVersion\":\"admissionregistration.k8s.io/v1\","
        + "\"kind\":\"ValidatingAdmissionPolicyBinding\",\"metadata\":{\"name\":\"x\"},\"spec\":{"
        + "\"policyName\":\"max-size\",\"validationActions\":[\"Deny\",\"Warn\"]}}");
    assertEquals(422, bad.status(), bad.text());
    create("node-b", vapb, "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":"
        + "\"ValidatingAdmissionPolicyBinding\",\"metadata\":{\"name\":\"max-size-deny\"},\"spec\":{"
        + "\"policyName\":\"max-size\",\"validationActions\":[\"Deny\"]}}");
    String big = "{\"apiVersion\":\"demo.mvproxy.io/v2\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"big\"},"
        + "\"spec\":{\"size\":20}}";
    for (String node : List.of("node-a", "node-b")) {
      FleetTest.await(node + " applies the policy", 20_000, () -> send(HttpMethod.POST, node,
          WIDGETS_V1 + "?dryRun=All", big.replace("/v2", "/v1")).status() == 422);
    }
    for (String node : List.of("node-a", "node-b")) {
      HttpsClient.Resp r = send(HttpMethod.POST, node, WIDGETS_V2, big);
      assertEquals(422, r.status(), r.text());
      assertEquals("Invalid", r.json().getString("reason"));
      assertEquals("widgets.demo.mvproxy.io \"big\" is forbidden: ValidatingAdmissionPolicy 'max-size' with binding "
          + "'max-size-deny' denied request: size 20 is more than 10", r.json().getString("message"));
    }
    assertEquals(404, send(HttpMethod.GET, "node-b", WIDGETS_V2 + "/big", null).status());
    create("node-a", WIDGETS_V2, big.replace("20", "7"));
    HttpsClient.Resp grow = send(HttpMethod.PATCH, "node-a", WIDGETS_V2 + "/big", "{\"spec\":{\"size\":12}}");
    assertEquals(422, grow.status(), grow.text());
    assertEquals(200, send(HttpMethod.DELETE, "node-a", vapb + "/max-size-deny", null).status());
    FleetTest.await("node-b forgets the binding", 20_000, () -> send(HttpMethod.PATCH, "node-a",
        WIDGETS_V2 + "/big", "{\"spec\":{\"size\":12}}").status() == 200);
  }
  @Test
  void clientConfigServiceResolvedThroughServiceResolution() throws Exception {
    JsonObject svc = hook("svc.widgets.example.com", "/validate", 0, "Fail", "CREATE", "*");
    svc.put("clientConfig", new JsonObject().put("caBundle", caBundle).put("service", new JsonObject()
        .put("namespace", "webhooks").put("name", "widget-hook").put("path", "/validate")))
        .put("objectSelector", new JsonObject().put("matchLabels", new JsonObject().put("route", "svc")));
    create("node-b", VWC, config("ValidatingWebhookConfiguration", "svc-policy", svc));
    String body = widget("v2", "svc-denied", "\"route\":\"svc\",\"deny\":\"yes\"");
    FleetTest.await("node-b calls the service webhook", 20_000, () -> send(HttpMethod.POST, "node-b",
        WIDGETS_V2 + "?dryRun=All", body).text().contains("svc.widgets.example.com"));
    HttpsClient.Resp r = send(HttpMethod.POST, "node-a", WIDGETS_V2, body);
    assertEquals(403, r.status(), r.text());
    assertEquals("admission webhook \"svc.widgets.example.com\" denied the request: label deny is set",
        r.json().getString("message"));
    assertEquals(200, send(HttpMethod.DELETE, "node-b", VWC + "/svc-policy", null).status());
  }
  @Test
  void kubectlInstallsAWebhookForABuiltInKind() throws Exception {
    Path dir = Files.createTempDirectory("mvproxy-admission-kubectl");
    Path yaml = Files.writeString(dir.resolve("webhook.yaml"), """
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingWebhookConfiguration
        metadata:
          name: configmap-policy
        webhooks:
        - name: cm.example.com
          clientConfig:
            url: https://127.0.0.1:%d/validate
            caBundle: %s
          rules:
          - operations: ["CREATE", "UPDATE"]
            apiGroups: [""]
            apiVersions: ["v1"]
            resources: ["configmaps"]
          sideEffects: None
          admissionReviewVersions: ["v1", "v1beta1"]
        """.formatted(webhook.actualPort(), caBundle));
    Path cm = Files.writeString(dir.resolve("cm.yaml"), """
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: refused, namespace: default, labels: {deny: "yes"}}
        data: {a: b}
        """);
    String binary = KubectlFleetTest.which("kubectl");
    org.junit.jupiter.api.Assumptions.assumeTrue(binary != null, "kubectl is not on PATH: real-client test skipped");
    List<String> base = List.of(binary, "--kubeconfig", fleet.pki().kubeconfig().toString(), "--context",
        "node-a", "--cache-dir", dir.resolve("cache").toString(), "--request-timeout=20s");
    java.util.function.Function<String[], KubectlFleetTest.Result> kubectl = args -> {
      List<String> cmd = new java.util.ArrayList<>(base);
      cmd.addAll(List.of(args));
      try {
        return KubectlFleetTest.run(cmd, 60);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    };
    KubectlFleetTest.Result applied = kubectl.apply(new String[] {"apply", "-f", yaml.toString()});
    assertEquals(0, applied.code(), applied.err());
    assertTrue(applied.out().contains("validatingwebhookconfiguration.admissionregistration.k8s.io/configmap-policy "
        + "created"), applied.out());
    KubectlFleetTest.Result table = kubectl.apply(new String[] {"get", "validatingwebhookconfigurations",
        "configmap-policy"});
    assertTrue(table.out().matches("(?s)NAME\\s+WEBHOOKS\\s+AGE\\s+configmap-policy\\s+1\\s+.*"), table.out());
    String[] refused = {""};
    FleetTest.await("node-a calls the configmap webhook", 20_000, () -> {
      KubectlFleetTest.Result r = kubectl.apply(new String[] {"apply", "-f", cm.toString()});
      refused[0] = r.err();
      return r.code() != 0;
    });
    assertTrue(refused[0].contains("admission webhook \"cm.example.com\" denied the request: label deny is set"),
        refused[0]);
    KubectlFleetTest.Result deleted = kubectl.apply(new String[] {"delete", "-f", yaml.toString()});
    assertEquals(0, deleted.code(), deleted.err());
  }
}
