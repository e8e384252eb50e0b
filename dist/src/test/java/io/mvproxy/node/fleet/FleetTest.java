package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A 3-node mixed-version fleet as separate processes: node-a serves widgets v1 ("old"), node-b widgets v2+v1 and
 * gadgets ("new"), node-c the "new" set plus a thingamajigs API only it serves. Exercises proxying, both discovery
 * views, watch through a proxy, and a kill -9 of node-c.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("fleet")
public class FleetTest {
  static final String V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
  static final String WIDGETS_V1 = "/apis/demo.mvproxy.io/v1/namespaces/default/widgets";
  static final String WIDGETS_V2 = "/apis/demo.mvproxy.io/v2/namespaces/default/widgets";
  static final String THINGS = "/apis/things.mvproxy.io/v1/namespaces/default/thingamajigs";

  Path tmp;
  @AutoClose
  FleetHarness fleet;
  HttpsClient admin;

  @BeforeAll
  void startFleet() throws Exception {
    tmp = Files.createTempDirectory("mvproxy-fleet-test");
    Map<String, Map<String, List<Path>>> plugins = FleetHarness.oldNewNew();
    plugins.get("node-c").put("things", List.of(TestData.crd(tmp, "things.mvproxy.io", "thingamajigs",
        "Thingamajig")));
    fleet = new FleetHarness(tmp.resolve("fleet"), plugins);
    admin = fleet.admin();
    long t0 = System.nanoTime();
    fleet.startAllAndAwaitStarted(120_000);
    for (FleetHarness.NodeProc n : fleet.nodes()) {
      await("fleet converged on " + n.name, 60_000, () -> groupVersions(n, false).contains("things.mvproxy.io/v1")
          && groupVersions(n, false).contains("demo.mvproxy.io/v2"));
    }
    System.out.printf("FIGURE fleet of 3 processes started and converged in %d ms%n",
        (System.nanoTime() - t0) / 1_000_000);
  }

  @Test
  @Order(1)
  void everyNodeIsReadyAndServesBothDiscoveryViews() throws Exception {
    for (FleetHarness.NodeProc n : fleet.nodes()) {
      // readiness may trail discovery by a moment (the built-in APIs' first CRD publication)
      await(n.name + " ready", 60_000, () -> admin.get(n.url(), "/readyz").status() == 200);
    }
    // local view: node-a only has widgets v1
    List<String> aLocal = groupVersions(fleet.node("node-a"), true);
    assertTrue(aLocal.contains("demo.mvproxy.io/v1"), aLocal.toString());
    assertFalse(aLocal.contains("demo.mvproxy.io/v2"), aLocal.toString());
    assertFalse(aLocal.contains("things.mvproxy.io/v1"), aLocal.toString());
    // peer-aggregated: byte-identical everywhere
    String first = null;
    for (FleetHarness.NodeProc n : fleet.nodes()) {
      HttpsClient.Resp r = admin.send(HttpMethod.GET, n.url(), "/apis", Map.of("Accept", V2), null);
      assertEquals(V2, r.headers().get("Content-Type"));
      if (first == null) {
        first = r.text();
      } else {
        assertEquals(first, r.text(), "peer-aggregated /apis differs on " + n.name);
      }
      String etag = r.headers().get("ETag");
      assertEquals(304, admin.send(HttpMethod.GET, n.url(), "/apis", Map.of("Accept", V2, "If-None-Match", etag),
          null).status());
    }
    // legacy discovery is peer-aware: /apis/<g>/v2 on node-a (which lacks it) is answered by a peer
    HttpsClient.Resp legacy = admin.get(fleet.node("node-a").url(), "/apis/demo.mvproxy.io/v2");
    assertEquals(200, legacy.status(), legacy.text());
    assertEquals("APIResourceList", legacy.json().getString("kind"));
  }

  @Test
  @Order(2)
  void createOnNewNodeReadEverywhere() throws Exception {
    String a = fleet.node("node-a").url();
    String b = fleet.node("node-b").url();
    String c = fleet.node("node-c").url();
    JsonObject w = new JsonObject().put("apiVersion", "demo.mvproxy.io/v2").put("kind", "Widget")
        .put("metadata", new JsonObject().put("name", "w1").put("namespace", "default"))
        .put("spec", new JsonObject().put("size", 2).put("color", "red"));
    HttpsClient.Resp created = admin.send(HttpMethod.POST, b, WIDGETS_V2, json(), w.encode());
    assertEquals(201, created.status(), created.text());
    // node-a serves v1 locally from the shared store
    HttpsClient.Resp v1 = admin.get(a, WIDGETS_V1 + "/w1");
    assertEquals(200, v1.status(), v1.text());
    assertEquals("demo.mvproxy.io/v1", v1.json().getString("apiVersion"));
    // node-a lacks v2: proxied to node-b or node-c
    HttpsClient.Resp v2 = admin.get(a, WIDGETS_V2 + "/w1");
    assertEquals(200, v2.status(), v2.text());
    assertEquals("demo.mvproxy.io/v2", v2.json().getString("apiVersion"));
    HttpsClient.Resp list = admin.get(c, WIDGETS_V2);
    assertEquals(200, list.status());
    assertEquals(1, list.json().getJsonArray("items").size());
    String metrics = admin.get(a, "/metrics").text();
    assertTrue(metrics.contains("apiserver_rerouted_request_total{code=\"200\",group=\"demo.mvproxy.io\","
        + "resource=\"widgets\",version=\"v2\"}"), metrics);
  }

  @Test
  @Order(3)
  void watchStreamsThroughTheProxy() throws Exception {
    String a = fleet.node("node-a").url();
    String rv = admin.get(a, WIDGETS_V2).json().getJsonObject("metadata").getString("resourceVersion");
    HttpClient http = admin.vertx().createHttpClient(new HttpClientOptions().setSsl(true)
        .setTrustOptions(new PemTrustOptions().addCertPath(fleet.pki().caCert().toString()))
        .setKeyCertOptions(new PemKeyCertOptions().setCertPath(fleet.pki().adminCert().toString())
            .setKeyPath(fleet.pki().adminKey().toString())));
    CompletableFuture<String> modified = new CompletableFuture<>();
    CompletableFuture<Integer> opened = new CompletableFuture<>();
    StringBuilder seen = new StringBuilder();
    http.request(new RequestOptions().setAbsoluteURI(a + WIDGETS_V2 + "?watch=true&resourceVersion=" + rv))
        // the handler is set in the send future's own callback, before the response's next event (one chained further
        // out runs a task later)
        .compose(req -> req.send().onSuccess(resp -> {
          resp.handler(buf -> {
            seen.append(buf.toString());
            if (seen.toString().contains("\"MODIFIED\"")) {
              modified.complete(seen.toString());
            }
          });
          opened.complete(resp.statusCode());
        }))
        .onFailure(e -> {
          opened.completeExceptionally(e);
          modified.completeExceptionally(e);
        });
    assertEquals(200, opened.get(10, TimeUnit.SECONDS), "the watch is open before the patch");
    JsonObject patch = new JsonObject().put("spec", new JsonObject().put("size", 5));
    HttpsClient.Resp p = admin.send(HttpMethod.PATCH, fleet.node("node-b").url(), WIDGETS_V2 + "/w1",
        Map.of("Content-Type", "application/merge-patch+json"), patch.encode());
    assertEquals(200, p.status(), p.text());
    String events = modified.get(10, TimeUnit.SECONDS);
    assertTrue(events.contains("\"size\":5"), events);
    http.close();
  }

  /**
   * HEAD watches through the HTTP/1.1 hop, one after the other, each answered at once: the answer is the head alone,
   * so the peer connection is closed after it (it kept serving the watch; back in the pool it held the next watch
   * until the 15 s head timeout sent that one elsewhere).
   */
  @Test
  @Order(3)
  void headWatchesThroughTheHopLeaveNoConnectionBusy() throws Exception {
    String a = fleet.node("node-a").url();
    for (int i = 0; i < 4; i++) {
      HttpsClient.Resp h = admin.send(HttpMethod.HEAD, a, WIDGETS_V2 + "?watch=true", Map.of(), null, 10_000);
      assertEquals(200, h.status(), "HEAD watch " + i);
    }
    HttpsClient.Resp list = admin.get(a, WIDGETS_V2 + "?watch=true&timeoutSeconds=1");
    assertEquals(200, list.status(), "a watch after them");
  }

  /**
   * A WebSocket watch (as fabric8 and browsers open them) of widgets v2 through node-a, which lacks v2: tunnelled
   * over a dedicated connection to node-b or node-c ({@code UpgradeTunnel}), events arrive as WebSocket messages.
   */
  @Test
  @Order(3)
  void webSocketWatchIsTunnelledThroughANodeLackingTheResource() throws Exception {
    String a = fleet.node("node-a").url();
    String rv = admin.get(a, WIDGETS_V2).json().getJsonObject("metadata").getString("resourceVersion");
    java.net.URI u = java.net.URI.create(a);
    io.vertx.core.http.WebSocketClient ws = admin.vertx().createWebSocketClient(
        new io.vertx.core.http.WebSocketClientOptions().setSsl(true)
            .setTrustOptions(new PemTrustOptions().addCertPath(fleet.pki().caCert().toString()))
            .setKeyCertOptions(new PemKeyCertOptions().setCertPath(fleet.pki().adminCert().toString())
                .setKeyPath(fleet.pki().adminKey().toString())));
    CompletableFuture<String> modified = new CompletableFuture<>();
    StringBuilder seen = new StringBuilder();
    // the handler is set on the connection's context as it opens: no event arrives before it
    io.vertx.core.http.WebSocket socket = ws.connect(new io.vertx.core.http.WebSocketConnectOptions()
            .setHost(u.getHost()).setPort(u.getPort()).setSsl(true)
            .setURI(WIDGETS_V2 + "?watch=true&resourceVersion=" + rv).addSubProtocol("base64.binary.k8s.io"))
        .onSuccess(w -> w.textMessageHandler(t -> {
          seen.append(t).append('\n');
          if (t.contains("\"MODIFIED\"") && t.contains("\"color\":\"blue\"")) {
            modified.complete(seen.toString());
          }
        }))
        .await(30, TimeUnit.SECONDS);
    assertEquals("base64.binary.k8s.io", socket.subProtocol(), "the serving node echoes the requested subprotocol");
    JsonObject patch = new JsonObject().put("spec", new JsonObject().put("color", "blue"));
    HttpsClient.Resp p = admin.send(HttpMethod.PATCH, fleet.node("node-b").url(), WIDGETS_V2 + "/w1",
        Map.of("Content-Type", "application/merge-patch+json"), patch.encode());
    assertEquals(200, p.status(), p.text());
    String events = modified.get(30, TimeUnit.SECONDS);
    assertTrue(events.contains("\"apiVersion\":\"demo.mvproxy.io/v2\""), events);
    socket.close().await(10, TimeUnit.SECONDS);
    ws.close();
    String metrics = admin.get(a, "/metrics").text();
    assertTrue(metrics.contains("apiserver_rerouted_request_total{code=\"101\",group=\"demo.mvproxy.io\","
        + "resource=\"widgets\",version=\"v2\"}"), "the upgrade was rerouted by node-a");
  }

  @Test
  @Order(4)
  void deleteThroughProxyAndUnknownResourceIs404() throws Exception {
    String a = fleet.node("node-a").url();
    HttpsClient.Resp d = admin.send(HttpMethod.DELETE, a, WIDGETS_V2 + "/w1", Map.of(), null);
    assertEquals(200, d.status(), d.text());
    HttpsClient.Resp gone = admin.get(fleet.node("node-c").url(), WIDGETS_V2 + "/w1");
    assertEquals(404, gone.status());
    assertEquals("NotFound", gone.json().getString("reason"));
    HttpsClient.Resp none = admin.get(a, "/apis/nope.example.com/v1/namespaces/default/things");
    assertEquals(404, none.status());
    assertEquals("Status", none.json().getString("kind"));
    assertEquals("the server could not find the requested resource", none.json().getString("message"));
  }

  @Test
  @Order(5)
  void spoofedPeerHeadersFromAUserAreIgnored() throws Exception {
    // a user may not claim the request was already proxied: node-a must still proxy (not answer 404)
    HttpsClient.Resp r = admin.send(HttpMethod.GET, fleet.node("node-a").url(), WIDGETS_V2,
        Map.of("X-Kubernetes-Peer-Proxied", "true", "X-Remote-User", "evil"), null);
    assertEquals(200, r.status(), r.text());
    try (HttpsClient anonymous = new HttpsClient(fleet.pki().caCert(), null, null)) {
      assertEquals(401, anonymous.get(fleet.node("node-a").url(), WIDGETS_V1).status());
      assertEquals(200, anonymous.get(fleet.node("node-a").url(), "/healthz").status());
    }
  }

  /**
   * F16: node-a serves demo.mvproxy.io/v1 widgets only, node-b/node-c also gadgets in that group-version and
   * things.mvproxy.io/v1 (node-c only). node-a's OpenAPI covers the fleet's resources, merged from the peers' local
   * documents, with correct ETags and root hashes; peers themselves get node-a's local document.
   */
  @Test
  @Order(5)
  void openApiIsMergedAcrossPeersWithinAGroupVersion() throws Exception {
    String a = fleet.node("node-a").url();
    String gv = "/openapi/v3/apis/demo.mvproxy.io/v1";
    await("node-a's " + gv + " lists gadgets", 30_000, () -> admin.get(a, gv).text().contains("/gadgets"));
    HttpsClient.Resp doc = admin.get(a, gv);
    assertEquals(200, doc.status());
    JsonObject paths = doc.json().getJsonObject("paths");
    assertTrue(paths.containsKey("/apis/demo.mvproxy.io/v1/gadgets/{name}"), paths.fieldNames().toString());
    assertTrue(paths.containsKey("/apis/demo.mvproxy.io/v1/namespaces/{namespace}/widgets/{name}"));
    JsonObject schemas = doc.json().getJsonObject("components").getJsonObject("schemas");
    assertNotNull(schemas.getJsonObject("io.mvproxy.demo.v1.Gadget"), schemas.fieldNames().toString());
    assertNotNull(schemas.getJsonObject("io.mvproxy.demo.v1.Widget"));
    String etag = doc.headers().get("ETag");
    assertEquals(304, admin.send(HttpMethod.GET, a, gv, Map.of("If-None-Match", etag), null).status());
    String url = admin.get(a, "/openapi/v3").json().getJsonObject("paths").getJsonObject("apis/demo.mvproxy.io/v1")
        .getString("serverRelativeURL");
    assertEquals(gv + "?hash=" + etag.replace("\"", ""), url, "root hash is the merged document's");
    // a group-version only node-c serves is documented on node-a too (merged, not proxied)
    await("node-a documents things.mvproxy.io/v1", 30_000,
        () -> admin.get(a, "/openapi/v3/apis/things.mvproxy.io/v1").text().contains("/thingamajigs"));
    // /openapi/v2 has the peers' kinds as well
    await("node-a's /openapi/v2 has gadgets", 30_000, () -> admin.get(a, "/openapi/v2").text()
        .contains("\"io.mvproxy.demo.v1.Gadget\""));
    JsonObject v2 = admin.get(a, "/openapi/v2").json();
    assertTrue(v2.getJsonObject("paths").containsKey("/apis/demo.mvproxy.io/v1/gadgets"));
    assertTrue(v2.getJsonObject("paths").containsKey("/apis/things.mvproxy.io/v1/namespaces/{namespace}/thingamajigs"));
    // node-b serves gadgets itself
    HttpsClient.Resp b = admin.get(fleet.node("node-b").url(), gv);
    assertTrue(b.json().getJsonObject("paths").containsKey("/apis/demo.mvproxy.io/v1/gadgets/{name}"));
  }

  @Test
  @Order(6)
  void killedNodeLeavesRoutingAndDiscoveryWithin5sAndComesBackWithItsObjects() throws Exception {
    String a = fleet.node("node-a").url();
    String c = fleet.node("node-c").url();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      JsonObject t = new JsonObject().put("apiVersion", "things.mvproxy.io/v1").put("kind", "Thingamajig")
          .put("metadata", new JsonObject().put("name", "t" + i)).put("data", "x" + i);
      HttpsClient.Resp r = admin.send(HttpMethod.POST, a, THINGS, json(), t.encode());
      assertEquals(201, r.status(), r.text());
      names.add("t" + i);
    }
    long t0 = System.nanoTime();
    fleet.kill9("node-c");
    await("node-a stops advertising things.mvproxy.io/v1 as Current", 30_000,
        () -> !groupVersions(fleet.node("node-a"), false).contains("things.mvproxy.io/v1"));
    long discoveryMs = (System.nanoTime() - t0) / 1_000_000;
    await("node-a answers 503 for things", 30_000, () -> admin.get(a, THINGS).status() == 503);
    long routingMs = (System.nanoTime() - t0) / 1_000_000;
    System.out.printf("FIGURE killed node left discovery in %d ms and routing in %d ms%n", discoveryMs, routingMs);
    HttpsClient.Resp r = admin.get(a, THINGS);
    assertEquals(503, r.status());
    assertNotNull(r.headers().get("Retry-After"));
    assertEquals("ServiceUnavailable", r.json().getString("reason"));
    // legacy discovery and OpenAPI of the departed group-version: 503 too, never a false 404, and the group stays
    // listed in legacy /apis (as kube-aggregator lists an unavailable APIService)
    for (String path : List.of("/apis/things.mvproxy.io/v1", "/apis/things.mvproxy.io",
        "/openapi/v3/apis/things.mvproxy.io/v1")) {
      HttpsClient.Resp d = admin.get(a, path);
      assertEquals(503, d.status(), path + ": " + d.text());
      assertEquals("ServiceUnavailable", d.json().getString("reason"), path);
    }
    assertTrue(admin.get(a, "/apis").text().contains("\"things.mvproxy.io/v1\""), "legacy /apis lists things");
    await("node-b shows things.mvproxy.io/v1 as Stale", 30_000,
        () -> staleVersions(fleet.node("node-b")).contains("things.mvproxy.io/v1"));
    assertEquals(200, admin.get(a, WIDGETS_V2).status(), "widgets v2 still served by node-b");
    fleet.start("node-c");
    fleet.awaitStarted("node-c", 120_000);
    await("things served again", 60_000, () -> admin.get(a, THINGS).status() == 200);
    JsonArray items = admin.get(a, THINGS).json().getJsonArray("items");
    List<String> back = new ArrayList<>();
    items.forEach(o -> back.add(((JsonObject) o).getJsonObject("metadata").getString("name")));
    assertEquals(names, back.stream().sorted().toList());
    assertEquals(200, admin.get(c, THINGS + "/t1").status());
  }

  @Test
  @Order(7)
  void builtInKindsObeyNamespaceLifecycle() throws Exception {
    String a = fleet.node("node-a").url();
    for (String[] kind : List.of(new String[] {"/api/v1", "configmaps", "ConfigMap"},
        new String[] {"/api/v1", "secrets", "Secret"}, new String[] {"/api/v1", "serviceaccounts", "ServiceAccount"},
        new String[] {"/apis/coordination.k8s.io/v1", "leases", "Lease"},
        new String[] {"/apis/rbac.authorization.k8s.io/v1", "roles", "Role"})) {
      String apiVersion = kind[0].equals("/api/v1") ? "v1" : kind[0].substring("/apis/".length());
      HttpsClient.Resp r = admin.send(HttpMethod.POST, a, kind[0] + "/namespaces/no-such-ns/" + kind[1], json(),
          new JsonObject().put("apiVersion", apiVersion).put("kind", kind[2])
              .put("metadata", new JsonObject().put("name", "x")).encode());
      assertEquals(404, r.status(), kind[1] + ": " + r.text());
      assertEquals("namespaces \"no-such-ns\" not found", r.json().getString("message"), kind[1]);
    }
    // the path without namespace of a built-in namespaced kind has only the list and watch routes
    // (endpoints/installer.go): a name there is 404, another method go-restful's 405
    assertEquals(200, admin.get(a, "/api/v1/configmaps").status());
    assertEquals(404, admin.get(a, "/api/v1/configmaps/x").status());
    assertEquals(404, admin.get(a, "/api/v1/watch/configmaps/x").status());
    HttpsClient.Resp cluster = admin.send(HttpMethod.POST, a, "/api/v1/configmaps", json(),
        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"}}");
    assertEquals(405, cluster.status(), cluster.text());
    assertEquals("MethodNotAllowed", cluster.json().getString("reason"));
    assertEquals(405, admin.send(HttpMethod.DELETE, a, "/api/v1/configmaps", json(), null).status());
    // installer.go sorts a built-in kind's verbs (kubectl api-resources -o wide shows them)
    JsonArray core = admin.get(a, "/api/v1").json().getJsonArray("resources");
    for (Object o : core) {
      JsonObject r = (JsonObject) o;
      if ("configmaps".equals(r.getString("name"))) {
        assertEquals(new JsonArray(List.of("create", "delete", "deletecollection", "get", "list", "patch", "update",
            "watch")), r.getJsonArray("verbs"));
      } else if ("namespaces".equals(r.getString("name"))) {
        assertEquals(new JsonArray(List.of("create", "delete", "get", "list", "patch", "update", "watch")),
            r.getJsonArray("verbs"));
      }
    }
    // no PUT or PATCH route on a collection: go-restful's 405 with empty details (server/handler.go)
    for (HttpMethod m : List.of(HttpMethod.PUT, HttpMethod.PATCH)) {
      HttpsClient.Resp r = admin.send(m, a, "/api/v1/namespaces/default/configmaps",
          Map.of("Content-Type", m == HttpMethod.PUT ? "application/json" : "application/merge-patch+json"), "{}");
      assertEquals(405, r.status(), m + " " + r.text());
      assertEquals(new JsonObject(), r.json().getJsonObject("details"), r.text());
    }
    // namespaceStatusStrategy: /status keeps metadata changes (only spec is reset); ValidateNamespaceStatusUpdate
    assertEquals(201, admin.send(HttpMethod.POST, a, "/api/v1/namespaces", json(),
        "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"status-labels\"}}").status());
    JsonObject nsObj = admin.get(a, "/api/v1/namespaces/status-labels").json();
    nsObj.getJsonObject("metadata").getJsonObject("labels").put("team", "blue");
    nsObj.getJsonObject("spec").put("finalizers", new JsonArray());
    HttpsClient.Resp st = admin.send(HttpMethod.PUT, a, "/api/v1/namespaces/status-labels/status", json(),
        nsObj.encode());
    assertEquals(200, st.status(), st.text());
    assertEquals("blue", st.json().getJsonObject("metadata").getJsonObject("labels").getString("team"));
    assertEquals(new JsonArray().add("kubernetes"), st.json().getJsonObject("spec").getJsonArray("finalizers"),
        "spec is reset");
    HttpsClient.Resp phase = admin.send(HttpMethod.PATCH, a, "/api/v1/namespaces/status-labels/status",
        Map.of("Content-Type", "application/merge-patch+json"), "{\"status\":{\"phase\":\"Terminating\"}}");
    assertEquals(422, phase.status(), phase.text());
    assertEquals("Namespace \"status-labels\" is invalid: status.Phase: Invalid value: \"Terminating\": may only be "
        + "'Active' if `deletionTimestamp` is empty", phase.json().getString("message"));
    // a Terminating namespace (held by a finalizer on its content): new content is 403
    assertEquals(201, admin.send(HttpMethod.POST, a, "/api/v1/namespaces", json(),
        "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"ending\"}}").status());
    assertEquals(201, admin.send(HttpMethod.POST, a, "/api/v1/namespaces/ending/configmaps", json(),
        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"held\",\"finalizers\":"
            + "[\"example.com/hold\"]}}").status());
    assertEquals(200, admin.send(HttpMethod.DELETE, a, "/api/v1/namespaces/ending", json(), null).status());
    HttpsClient.Resp r = admin.send(HttpMethod.POST, a, "/api/v1/namespaces/ending/configmaps", json(),
        "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"late\"}}");
    assertEquals(403, r.status(), r.text());
    assertEquals("configmaps \"late\" is forbidden: unable to create new content in namespace ending because it is "
        + "being terminated", r.json().getString("message"));
    // events are selected by their involved object, as kubectl describe asks
    assertEquals(201, admin.send(HttpMethod.POST, a, "/api/v1/namespaces/default/events", json(),
        "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"held.1\"},\"involvedObject\":"
            + "{\"kind\":\"ConfigMap\",\"namespace\":\"default\",\"name\":\"held\"},\"reason\":\"Test\","
            + "\"type\":\"Normal\",\"message\":\"m\"}").status());
    HttpsClient.Resp ev = admin.get(a, "/api/v1/namespaces/default/events?fieldSelector="
        + java.net.URLEncoder.encode("involvedObject.kind=ConfigMap,involvedObject.name=held,type=Normal",
        java.nio.charset.StandardCharsets.UTF_8));
    assertEquals(200, ev.status(), ev.text());
    assertEquals(1, ev.json().getJsonArray("items").size(), ev.text());
    assertEquals(0, admin.get(a, "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dother")
        .json().getJsonArray("items").size());
    assertEquals(1, admin.get(a, "/api/v1/namespaces?fieldSelector=status.phase%3DTerminating").json()
        .getJsonArray("items").size(), "only the namespace being deleted");
    // release the namespace
    assertEquals(200, admin.send(HttpMethod.PATCH, a, "/api/v1/namespaces/ending/configmaps/held",
        Map.of("Content-Type", "application/merge-patch+json"), "{\"metadata\":{\"finalizers\":null}}").status());
  }

  private static Map<String, String> json() {
    return Map.of("Content-Type", "application/json");
  }

  /** @return group/version strings whose freshness is Current (or absent) in the chosen view of {@code /apis} */
  List<String> groupVersions(FleetHarness.NodeProc n, boolean nopeer) throws Exception {
    HttpsClient.Resp r = admin.send(HttpMethod.GET, n.url(), "/apis",
        Map.of("Accept", nopeer ? V2 + ";profile=nopeer" : V2), null);
    List<String> out = new ArrayList<>();
    if (r.status() != 200) {
      return out;
    }
    for (Object g : r.json().getJsonArray("items")) {
      JsonObject group = (JsonObject) g;
      for (Object v : group.getJsonArray("versions")) {
        JsonObject ver = (JsonObject) v;
        if (!"Stale".equals(ver.getString("freshness"))) {
          out.add(group.getJsonObject("metadata").getString("name") + "/" + ver.getString("version"));
        }
      }
    }
    return out;
  }

  JsonArray staleVersions(FleetHarness.NodeProc n) throws Exception {
    JsonArray out = new JsonArray();
    for (Object g : admin.send(HttpMethod.GET, n.url(), "/apis", Map.of("Accept", V2), null).json()
        .getJsonArray("items")) {
      JsonObject group = (JsonObject) g;
      for (Object v : group.getJsonArray("versions")) {
        if ("Stale".equals(((JsonObject) v).getString("freshness"))) {
          out.add(group.getJsonObject("metadata").getString("name") + "/" + ((JsonObject) v).getString("version"));
        }
      }
    }
    return out;
  }

  @Test
  @Order(99)
  void noEventLoopWasBlocked() {
    // Vert.x's blocked-thread checker: an event loop held past its limit inside a blocking call (issue 16: none may be)
    assertEquals(List.of(), fleet.blockedEventLoops());
  }

  /** A condition {@link #await} polls: true when it holds; an exception means "not yet". */
  public interface Check {
    /** @return true when the awaited condition holds @throws Exception counted as "not yet" */
    boolean ok() throws Exception;
  }

  /** The pace of {@link #await(String, long, Check)}, ms. */
  public static final long POLL_MS = 50;

  /**
   * @param admin a client with the admin's certificate
   * @param url   a node's base URL
   * @return the nodes that node lists as {@code Ready} in {@code apiservernodes} (its routing has their records and
   *     capabilities), -1 when the list is not answered
   */
  public static int readyNodes(HttpsClient admin, String url) throws Exception {
    HttpsClient.Resp r = admin.get(url, "/apis/mvproxy.io/v1alpha1/apiservernodes");
    if (r.status() != 200) {
      return -1;
    }
    int n = 0;
    for (Object o : r.json().getJsonArray("items")) {
      if ("Ready".equals(((JsonObject) o).getJsonObject("status").getString("state"))) {
        n++;
      }
    }
    return n;
  }

  /**
   * The one polling helper of the tests: polls {@code check} every {@value #POLL_MS} ms (Awaitility, in the calling
   * thread, the first time at once) until it holds; a check that throws an exception counts as "not yet", an
   * {@link Error} (a failed assertion inside the check) ends the wait at once.
   *
   * @param what      what is awaited, for the failure message
   * @param timeoutMs the longest wait, ms
   * @param check     the condition
   * @throws AssertionError "timed out after N ms waiting for: what", caused by the check's last exception if any
   */
  public static void await(String what, long timeoutMs, Check check) {
    await(what, timeoutMs, POLL_MS, check);
  }

  /**
   * As {@link #await(String, long, Check)} at another pace.
   *
   * @param pollMs time between two evaluations of {@code check}, ms (a finer pace where the wait's end is measured)
   */
  public static void await(String what, long timeoutMs, long pollMs, Check check) {
    try {
      Awaitility.await(what).pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(pollMs))
          .atMost(Duration.ofMillis(Math.max(1, timeoutMs))).ignoreExceptionsInstanceOf(Exception.class)
          .until(check::ok);
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("timed out after " + timeoutMs + " ms waiting for: " + what
          + FleetHarness.recentWarnings(6), e.getCause());
    }
  }
}
