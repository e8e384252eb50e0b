package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 7's proof on a 2-node fleet (separate processes, real TLS and Hazelcast): node-a serves the probes CRD,
 * node-b lacks it and proxies. A bad-input corpus (hand-written and generated cases) through both nodes: every
 * answer is a Status with a 4xx code, or the success kube-apiserver gives, within a deadline; both nodes stay ready
 * and a sentinel object is unchanged. Also: the deepest allowed object through the proxy in every format, the
 * request deadline (504), max-in-flight (429), header and URL limits, the Python client's watch and kubectl's
 * server-side apply conflict, both through node-b.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("fleet")
class HardeningFleetTest {
  static final String PROBES = "/apis/hardening.mvproxy.io/v1/namespaces/default/probes";
  static final int DEEP = 512;
  Path tmp;
  @AutoClose
  FleetHarness fleet;
  HttpsClient admin;
  HttpsClient anon;
  JsonObject sentinel;

  @BeforeAll
  void start() throws Exception {
    tmp = Files.createTempDirectory("mvproxy-hardening-test");
    Path crd = tmp.resolve("probes.yaml");
    Files.writeString(crd, """
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata:
          name: probes.hardening.mvproxy.io
        spec:
          group: hardening.mvproxy.io
          scope: Namespaced
          names: {plural: probes, singular: probe, kind: Probe}
          versions:
            - name: v1
              served: true
              storage: true
              additionalPrinterColumns:
                - {name: Color, type: string, jsonPath: .spec.color}
              schema:
                openAPIV3Schema:
                  type: object
                  properties:
                    spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
        """);
    Map<String, Map<String, List<Path>>> plugins = new LinkedHashMap<>();
    plugins.put("node-a", new LinkedHashMap<>(Map.of("probes", List.of(crd))));
    plugins.put("node-b", new LinkedHashMap<>(Map.of("widgets-old",
        List.of(TestData.example("widgets-old").resolve("widgets.yaml")))));
    fleet = new FleetHarness(tmp.resolve("fleet"), plugins);
    Path tokens = Files.writeString(tmp.resolve("tokens.csv"), "alice-token,alice,uid-alice,\"dev\"\n");
    fleet.configureAll(new JsonObject().put("tokenAuthFile", tokens.toString()));
    fleet.configure("node-b", new JsonObject().put("requestTimeout", "3s").put("maxMutatingRequestsInflight", 1));
    admin = fleet.admin();
    anon = fleet.anonymous();
    fleet.startAllAndAwaitReady(120_000);
    FleetTest.await("node-b routes probes", 60_000, () -> admin.get(url("node-b"), PROBES).status() == 200);
    HttpsClient.Resp s = post("node-a", PROBES, probe("sentinel").encode(), "application/json");
    assertEquals(201, s.status(), s.text());
    sentinel = s.json();
  }

  String url(String node) {
    return fleet.node(node).url();
  }

  static JsonObject probe(String name) {
    return new JsonObject().put("apiVersion", "hardening.mvproxy.io/v1").put("kind", "Probe")
        .put("metadata", new JsonObject().put("name", name)).put("spec", new JsonObject().put("color", "red"));
  }

  HttpsClient.Resp post(String node, String path, String body, String contentType) throws Exception {
    return admin.send(HttpMethod.POST, url(node), path, Map.of("Content-Type", contentType), body);
  }

  /** One corpus case: a request and the success codes kube-apiserver would give it (none: must be a 4xx). */
  record Case(String name, HttpMethod method, String path, Map<String, String> headers, String body,
              List<Integer> success) {
  }

  static Case bad(String name, HttpMethod m, String path, String contentType, String body) {
    return new Case(name, m, path, contentType == null ? Map.of() : Map.of("Content-Type", contentType), body,
        List.of());
  }

  static List<Case> corpus() {
    List<Case> cs = new ArrayList<>();
    String base = probe("x").encode();
    String json = "application/json";
    for (String b : List.of("", "{", "[]", "null", "1", "\"x\"", "{\"metadata\":5}", "{\"metadata\":{\"name\":5}}",
        "{\"kind\":\"Other\",\"metadata\":{\"name\":\"k\"}}", "{\"apiVersion\":\"x.io/v9\",\"metadata\":{\"name\":\"k\"}}",
        "{\"metadata\":{\"name\":\"UPPER\"}}", "{\"metadata\":{\"name\":\"a_b\"}}", "{\"metadata\":{\"name\":\"-a\"}}",
        "{\"metadata\":{\"name\":\"" + "a".repeat(300) + "\"}}", "{\"metadata\":{}}",
        "{\"metadata\":{\"name\":\"lbl\",\"labels\":{\"a\":1}}}", "{\"metadata\":{\"name\":\"n1\"},\"spec\":{\"n\":1e999999}}",
        "{\"metadata\":{\"name\":\"n2\"},\"spec\":{\"n\":-1e400}}", "\u0000\u0001", "{\"a\":\"\\ud800\"")) {
      cs.add(bad("create body " + b.substring(0, Math.min(b.length(), 40)), HttpMethod.POST, PROBES, json, b));
    }
    cs.add(bad("text/plain", HttpMethod.POST, PROBES, "text/plain", base.replace("\"x\"", "\"plain\"")));
    cs.add(bad("strategic merge create", HttpMethod.POST, PROBES, "application/strategic-merge-patch+json", base));
    cs.add(bad("strict duplicate", HttpMethod.POST, PROBES + "?fieldValidation=Strict", json,
        "{\"metadata\":{\"name\":\"dup\"},\"spec\":{\"a\":1,\"a\":2}}"));
    cs.add(bad("too deep", HttpMethod.POST, PROBES, json, deepBody("deep-513", DEEP + 1)));
    cs.add(bad("fieldValidation value", HttpMethod.POST, PROBES + "?fieldValidation=Loud", json,
        base.replace("\"x\"", "\"loud\"")));
    cs.add(bad("4 MiB body", HttpMethod.POST, PROBES, json, "{\"metadata\":{\"name\":\"big\"},\"spec\":{\"s\":\""
        + "x".repeat(4 << 20) + "\"}}"));
    cs.add(bad("parse too deep", HttpMethod.POST, PROBES, json, deepBody("deep-1200", 1200)));
    cs.add(bad("bad escape ns", HttpMethod.POST, "/apis/hardening.mvproxy.io/v1/namespaces/%zz/probes", json, base));
    cs.add(bad("dot-dot ns", HttpMethod.POST, "/apis/hardening.mvproxy.io/v1/namespaces/%2E%2E/probes", json, base));
    cs.add(bad("encoded ../ ns", HttpMethod.POST, "/apis/hardening.mvproxy.io/v1/namespaces/..%2F..%2Fx/probes", json,
        base));
    cs.add(bad("percent name", HttpMethod.GET, PROBES + "/a%25b", null, null));
    cs.add(bad("after subresource", HttpMethod.GET, PROBES + "/sentinel/status/extra", null, null));
    cs.add(bad("patch after subresource", HttpMethod.PATCH, PROBES + "/sentinel/status/x", "application/merge-patch+json",
        "{\"status\":{\"x\":1}}"));
    cs.add(bad("empty namespace", HttpMethod.GET, "/apis/hardening.mvproxy.io/v1/namespaces//probes", null, null));
    cs.add(bad("dot name put", HttpMethod.PUT, PROBES + "/%2E", json, base));
    for (String sel : List.of("a=b=c", "!!", "x in (", "=", "a b", "x notin", "(", "a,", "a=(b)", "k=" + "v".repeat(64))) {
      cs.add(bad("labelSelector " + sel, HttpMethod.GET, PROBES + "?labelSelector=" + enc(sel), null, null));
    }
    for (String sel : List.of("spec.foo=1", "metadata.name", "=x")) {
      cs.add(bad("fieldSelector " + sel, HttpMethod.GET, PROBES + "?fieldSelector=" + enc(sel), null, null));
    }
    cs.add(bad("limit", HttpMethod.GET, PROBES + "?limit=abc", null, null));
    cs.add(bad("continue", HttpMethod.GET, PROBES + "?continue=%%%garbage", null, null));
    cs.add(bad("continue b64", HttpMethod.GET, PROBES + "?continue=bm90IGpzb24", null, null));
    // the cacher returns the versioner's error as it is: kube-apiserver answers a 500 Status (list: 400)
    cs.add(new Case("watch rv", HttpMethod.GET, PROBES + "?watch=1&resourceVersion=abc", Map.of(), null,
        List.of(500)));
    cs.add(bad("list rv", HttpMethod.GET, PROBES + "?resourceVersion=abc", null, null));
    cs.add(bad("watch timeout", HttpMethod.GET, PROBES + "?watch=true&timeoutSeconds=abc", null, null));
    cs.add(new Case("protobuf only", HttpMethod.GET, PROBES + "/sentinel",
        Map.of("Accept", "application/vnd.kubernetes.protobuf"), null, List.of()));
    for (String ct : List.of("application/strategic-merge-patch+json", "text/plain", "application/json")) {
      cs.add(bad("patch " + ct, HttpMethod.PATCH, PROBES + "/sentinel", ct, "{\"spec\":{\"color\":\"blue\"}}"));
    }
    for (String p : List.of("[{\"op\":\"boom\"}]", "{", "[{\"op\":\"replace\",\"path\":\"/nope/x\",\"value\":1}]",
        "[{\"op\":\"test\",\"path\":\"/spec/color\",\"value\":\"blue\"}]", "[{\"op\":\"add\",\"path\":\"/spec/n\",\"value\":1e999999}]")) {
      cs.add(bad("json patch " + p, HttpMethod.PATCH, PROBES + "/sentinel", "application/json-patch+json", p));
    }
    for (String p : List.of("[]", "{", "\"s\"", "{\"spec\":{\"n\":1e999999}}", "{\"metadata\":{\"name\":\"other\"}}")) {
      cs.add(bad("merge patch " + p, HttpMethod.PATCH, PROBES + "/sentinel", "application/merge-patch+json", p));
    }
    StringBuilder bomb = new StringBuilder("a: &a [x,x,x,x,x,x,x,x,x]\n");
    for (char c = 'b', p = 'a'; c <= 'i'; p = c, c++) {
      bomb.append(c).append(": &").append(c).append(" [").append(("*" + p + ",").repeat(8)).append('*').append(p)
          .append("]\n");
    }
    for (String y : List.of("a: [", "- 1\n- 2\n", "kind: Probe\nmetadata: {name: other}\n", bomb.toString(),
        "metadata: {name: sentinel}\nspec: {n: .inf}\n", "a: 1\na: 2\n")) {
      cs.add(bad("apply " + y.substring(0, Math.min(20, y.length())), HttpMethod.PATCH,
          PROBES + "/sentinel?fieldManager=corpus", "application/apply-patch+yaml", y));
    }
    cs.add(bad("put no rv", HttpMethod.PUT, PROBES + "/sentinel", json, probe("sentinel").encode()));
    cs.add(bad("put name mismatch", HttpMethod.PUT, PROBES + "/sentinel", json, probe("other").encode()));
    cs.add(bad("put stale rv", HttpMethod.PUT, PROBES + "/sentinel", json, probe("sentinel")
        .put("metadata", new JsonObject().put("name", "sentinel").put("resourceVersion", "999999")).encode()));
    cs.add(bad("delete missing", HttpMethod.DELETE, PROBES + "/nope", json, "{}"));
    cs.add(bad("delete bad body", HttpMethod.DELETE, PROBES + "/nope", json, "{"));
    cs.add(bad("status sub missing", HttpMethod.GET, PROBES + "/sentinel/status", null, null));
    cs.add(bad("unknown sub", HttpMethod.GET, PROBES + "/sentinel/exec", null, null));
    // a POST to an item path creates the body's object (customresource_handler.go): the existing one is a 409
    cs.add(bad("create on an item path", HttpMethod.POST, PROBES + "/sentinel", json,
        base.replace("\"x\"", "\"sentinel\"")));
    cs.add(bad("options", HttpMethod.OPTIONS, PROBES, null, null));
    cs.add(bad("unknown version", HttpMethod.GET, "/apis/hardening.mvproxy.io/v9/namespaces/default/probes", null,
        null));
    cs.add(new Case("12 KiB header", HttpMethod.GET, PROBES + "/sentinel", Map.of("X-Big-Token", "t".repeat(12 * 1024)),
        null, List.of(200)));
    cs.add(new Case("8 KiB labelSelector", HttpMethod.GET, PROBES + "?labelSelector="
        + enc(String.join(",", java.util.Collections.nCopies(950, "k=v1"))), Map.of(), null, List.of(200)));
    cs.add(new Case("watch=True", HttpMethod.GET, PROBES + "?watch=True&timeoutSeconds=1", Map.of(), null,
        List.of(200)));
    Random rnd = new Random(7);
    for (int i = 0; i < 120; i++) {
      String valid = probe("gen-" + i).encode();
      String mutated = valid.substring(0, 1 + rnd.nextInt(valid.length() - 1));
      cs.add(new Case("truncated " + i, HttpMethod.POST, PROBES, Map.of("Content-Type", json), mutated, List.of()));
    }
    for (int i = 0; i < 120; i++) {
      char[] c = probe("flip-" + i).encode().toCharArray();
      for (int k = 0; k < 1 + rnd.nextInt(3); k++) {
        String alphabet = "{}[]\":,\\x0 -.eE%\u00e9\u0000";
        c[rnd.nextInt(c.length)] = alphabet.charAt(rnd.nextInt(alphabet.length()));
      }
      cs.add(new Case("flipped " + i, HttpMethod.POST, PROBES, Map.of("Content-Type", json), new String(c),
          List.of(201)));
    }
    return cs;
  }

  static String enc(String s) {
    return java.net.URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  static String deepBody(String name, int depth) {
    return "{\"apiVersion\":\"hardening.mvproxy.io/v1\",\"kind\":\"Probe\",\"metadata\":{\"name\":\"" + name + "\"},"
        + "\"spec\":" + "{\"a\":".repeat(depth - 2) + "{\"v\":1}" + "}".repeat(depth - 2) + "}";
  }

  @Test
  void badInputCorpusThroughBothNodes() throws Exception {
    List<Case> corpus = corpus();
    assertTrue(corpus.size() > 250, "corpus of " + corpus.size());
    List<String> failures = new ArrayList<>();
    int n = 0;
    for (String node : List.of("node-a", "node-b")) {
      for (Case c : corpus) {
        n++;
        HttpsClient.Resp r;
        try {
          r = admin.send(c.method(), url(node), c.path(), c.headers(), c.body());
        } catch (Exception e) {
          failures.add(node + " " + c.name() + ": no answer: " + e);
          continue;
        }
        if (c.success().contains(r.status())) {
          continue;
        }
        boolean status = false;
        try {
          JsonObject s = r.json();
          status = "Status".equals(s.getString("kind")) && s.getInteger("code", -1) == r.status();
        } catch (RuntimeException e) {
          // not JSON
        }
        if (r.status() < 400 || r.status() >= 500 || !status) {
          failures.add(node + " " + c.name() + ": " + r.status() + " " + r.text().substring(0,
              Math.min(200, r.text().length())));
        }
      }
    }
    assertTrue(failures.isEmpty(), failures.size() + " of " + n + " cases failed:\n" + String.join("\n", failures));
    for (String node : List.of("node-a", "node-b")) {
      assertEquals(200, admin.get(url(node), "/readyz").status(), node + " not ready after the corpus");
    }
    JsonObject now = admin.get(url("node-b"), PROBES + "/sentinel").json();
    assertEquals(sentinel.getJsonObject("spec"), now.getJsonObject("spec"));
    assertEquals(sentinel.getJsonObject("metadata").getString("resourceVersion"),
        now.getJsonObject("metadata").getString("resourceVersion"), "the sentinel was changed");
    for (String ns : List.of("..", "../../x", "..%2F..%2Fx")) {
      assertTrue(admin.get(url("node-a"), PROBES.replace("default", enc(ns)) + "/x").status() >= 400);
    }
  }

  /**
   * Breaker F15's fidelity gaps on real nodes, directly (node-a) and through the proxy hop (node-b): plain HTTP to the
   * TLS port answered as Go's net/http; {@code timeout} / {@code timeoutSeconds} / {@code labelSelector} errors,
   * server-side apply without {@code fieldManager}, a create carrying a resourceVersion and a Secret with bad base64
   * answered with kube-apiserver's code, reason and text; nothing stored. Bad DeleteOptions as query parameters
   * (probes and configmaps, one object and the collection) answered 422 / 400; nothing deleted.
   */
  @Test
  void fidelityAsKubeApiserverThroughBothNodes() throws Exception {
    record Want(HttpMethod method, String path, String contentType, String body, int code, String reason,
                String message) {
    }
    String secrets = "/api/v1/namespaces/default/secrets";
    JsonObject withRv = probe("with-rv");
    withRv.getJsonObject("metadata").put("resourceVersion", "5");
    List<Want> wants = List.of(
        new Want(HttpMethod.GET, PROBES + "?timeout=bogus", null, null, 400, "BadRequest",
            "invalid timeout specified in the request URL - time: invalid duration \"bogus\""),
        new Want(HttpMethod.GET, PROBES + "?timeoutSeconds=abc", null, null, 400, "BadRequest",
            "strconv.ParseInt: parsing \"abc\": invalid syntax"),
        new Want(HttpMethod.GET, PROBES + "?labelSelector=" + enc("tier in (gold"), null, null, 400, "BadRequest",
            "unable to parse requirement: found '', expected: ',' or ')'"),
        new Want(HttpMethod.PATCH, PROBES + "/no-manager", "application/apply-patch+yaml",
            "apiVersion: hardening.mvproxy.io/v1\nkind: Probe\nmetadata: {name: no-manager}\n", 422, "Invalid",
            "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch"),
        new Want(HttpMethod.POST, PROBES, "application/json", withRv.encode(), 500, null,
            "resourceVersion should not be set on objects to be created"),
        new Want(HttpMethod.POST, secrets, "application/json", "{\"apiVersion\":\"v1\",\"kind\":\"Secret\","
            + "\"metadata\":{\"name\":\"b64\"},\"data\":{\"a\":\"!!!\"}}", 400, "BadRequest",
            "Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data at input byte 0"),
        new Want(HttpMethod.POST, "/api/v1/namespaces", "application/json", "{\"apiVersion\":\"v1\",\"kind\":"
            + "\"Namespace\",\"metadata\":{\"name\":\"Bad_Name\"}}", 422, "Invalid", "Namespace \"Bad_Name\" is "
            + "invalid: metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 label must consist of lower "
            + "case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. "
            + "'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"),
        new Want(HttpMethod.POST, "/api/v1/namespaces", "application/json", "{\"apiVersion\":\"v1\",\"kind\":"
            + "\"Namespace\",\"metadata\":{\"name\":\"" + "n".repeat(64) + "\"}}", 422, "Invalid", "Namespace \""
            + "n".repeat(64) + "\" is invalid: metadata.name: Invalid value: \"" + "n".repeat(64) + "\": must be no "
            + "more than 63 characters"));
    // DeleteOptions as query parameters (no body): validated as a body's, for custom resources and built-ins,
    // one object and collections; nothing deleted
    String cms = "/api/v1/namespaces/default/configmaps";
    assertEquals(201, post("node-a", cms, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
        + "{\"name\":\"delete-options\"}}", "application/json").status());
    String sideways = "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: "
        + "\"Sideways\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"";
    List<Want> deletes = new ArrayList<>(wants);
    for (String target : List.of(PROBES + "/sentinel", PROBES, cms + "/delete-options", cms)) {
      deletes.add(new Want(HttpMethod.DELETE, target + "?propagationPolicy=Sideways", null, null, 422, "Invalid",
          sideways));
      deletes.add(new Want(HttpMethod.DELETE, target + "?gracePeriodSeconds=abc", null, null, 400, "BadRequest",
          "strconv.ParseInt: parsing \"abc\": invalid syntax"));
      deletes.add(new Want(HttpMethod.DELETE, target + "?orphanDependents=false&propagationPolicy=Orphan", null, null,
          422, "Invalid", "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Invalid value: \"Orphan\": "
          + "orphanDependents and deletionPropagation cannot be both set"));
    }
    wants = deletes;
    for (String node : List.of("node-a", "node-b")) {
      for (Want w : wants) {
        HttpsClient.Resp r = admin.send(w.method(), url(node), w.path(),
            w.contentType() == null ? Map.of() : Map.of("Content-Type", w.contentType()), w.body());
        assertEquals(w.code(), r.status(), node + " " + w.path() + ": " + r.text());
        assertEquals(w.reason(), r.json().getString("reason"), node + " " + r.text());
        assertEquals(w.message(), r.json().getString("message"), node + " " + w.path());
      }
      String role = "/apis/rbac.authorization.k8s.io/v1/clusterroles";
      HttpsClient.Resp sys = post(node, role, "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":"
          + "\"ClusterRole\",\"metadata\":{\"name\":\"system:fidelity:" + node + "\"},\"rules\":[]}", "application/json");
      assertEquals(201, sys.status(), "RBAC names are path segments: " + sys.text());
      assertEquals(200, admin.send(HttpMethod.DELETE, url(node), role + "/system:fidelity:" + node, Map.of(), null)
          .status());
      for (String gone : List.of(PROBES + "/no-manager", PROBES + "/with-rv", secrets + "/b64",
          "/api/v1/namespaces/Bad_Name")) {
        assertEquals(404, admin.get(url(node), gone).status(), node + ": " + gone + " never stored");
      }
      assertEquals(200, admin.get(url(node), cms + "/delete-options").status(), node + ": kept");
      assertEquals(200, admin.get(url(node), PROBES + "/sentinel").status(), node + ": kept");
      String version = admin.get(url(node), "/version").text();
      assertTrue(version.startsWith("{\n  \"major\": \"1\",\n  \"minor\": \"") && version.endsWith("\"\n}"),
          "json.MarshalIndent form: " + version);
      assertTrue(version.contains("\"emulationMajor\": \"1\",\n  \"emulationMinor\": \"36\",\n  "
          + "\"minCompatibilityMajor\": \"1\",\n  \"minCompatibilityMinor\": \"35\",\n  \"gitVersion\""),
          "version.Info of 1.33+: " + version);
      java.net.URI u = java.net.URI.create(url(node));
      try (java.net.Socket sock = new java.net.Socket(u.getHost(), u.getPort())) {
        sock.setSoTimeout(30_000);
        sock.getOutputStream().write("GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        assertEquals("HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n",
            new String(sock.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1), node);
      }
    }
  }

  /**
   * patch.go: a patched object that does not decode (a JSON type its Go type refuses; with fieldValidation=Strict an
   * unknown field) is 422 Invalid on the field "patch" with empty kind and name, the value the patch map (strategic
   * merge patch) or the patched JSON (merge patch): kubectl edit reopens the editor on a 422; it was a create's 400.
   */
  @Test
  void patchesThatDoNotDecodeAreInvalidOnPatch() throws Exception {
    String cms = "/api/v1/namespaces/default/configmaps";
    assertEquals(201, post("node-a", cms, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
        + "\"patch-decode\"},\"data\":{\"a\":\"1\"}}", "application/json").status());
    for (String node : List.of("node-a", "node-b")) {
      HttpsClient.Resp smp = admin.send(HttpMethod.PATCH, url(node), cms + "/patch-decode?fieldValidation=Strict",
          Map.of("Content-Type", "application/strategic-merge-patch+json"), "{\"dat\":{\"a\":\"1\",\"n\":2}}");
      assertEquals(422, smp.status(), smp.text());
      assertEquals("Invalid", smp.json().getString("reason"));
      assertEquals(" \"\" is invalid: patch: Invalid value: \"map[dat:map[a:1 n:2]]\": strict decoding error: "
          + "unknown field \"dat\"", smp.json().getString("message"), node);
      JsonObject cause = smp.json().getJsonObject("details").getJsonArray("causes").getJsonObject(0);
      assertEquals("patch", cause.getString("field"));
      assertEquals(null, smp.json().getJsonObject("details").getString("name"));
      HttpsClient.Resp merge = admin.send(HttpMethod.PATCH, url(node), cms + "/patch-decode",
          Map.of("Content-Type", "application/merge-patch+json"), "{\"data\":{\"b\":5}}");
      assertEquals(422, merge.status(), merge.text());
      String m = merge.json().getString("message");
      assertTrue(m.startsWith(" \"\" is invalid: patch: Invalid value: \"{\\\"apiVersion\\\":\\\"v1\\\",\\\"data\\\":{"
          + "\\\"a\\\":\\\"1\\\",\\\"b\\\":5},\\\"kind\\\":\\\"ConfigMap\\\",") && m.endsWith("\": json: cannot unmarshal "
          + "number into Go struct field ConfigMap.data of type string"), node + ": " + m);
      HttpsClient.Resp cr = admin.send(HttpMethod.PATCH, url(node), PROBES + "/sentinel?fieldValidation=Strict",
          Map.of("Content-Type", "application/merge-patch+json"), "{\"zzz\":1}");
      assertEquals(422, cr.status(), cr.text());
      assertTrue(cr.json().getString("message").endsWith("\": strict decoding error: unknown field \"zzz\""),
          cr.text());
    }
    HttpsClient.Resp kept = admin.get(url("node-a"), cms + "/patch-decode");
    assertEquals("{\"a\":\"1\"}", kept.json().getJsonObject("data").encode(), "never stored");
  }

  @Test
  void auditIdIsOneIdAcrossTheProxyHop() throws Exception {
    HttpsClient.Resp r = admin.send(HttpMethod.GET, url("node-b"), PROBES + "/sentinel",
        Map.of("Audit-Id", "corpus-audit-1"), null);
    assertEquals(200, r.status());
    assertEquals(List.of("corpus-audit-1"), r.headers().getAll("Audit-Id"));
    HttpsClient.Resp gen = admin.get(url("node-b"), PROBES + "/sentinel");
    assertEquals(1, gen.headers().getAll("Audit-Id").size(), gen.headers().getAll("Audit-Id").toString());
  }

  @Test
  void deepestAllowedObjectThroughTheProxyInEveryFormat() throws Exception {
    HttpsClient.Resp c = post("node-b", PROBES, deepBody("deepest", DEEP), "application/json");
    assertEquals(201, c.status(), c.text().substring(0, Math.min(300, c.text().length())));
    for (String node : List.of("node-a", "node-b")) {
      HttpsClient.Resp get = admin.get(url(node), PROBES + "/deepest");
      assertEquals(200, get.status());
      assertTrue(get.text().contains("{\"v\":1}"), node);
      HttpsClient.Resp list = admin.get(url(node), PROBES + "?fieldSelector=metadata.name%3Ddeepest");
      assertEquals(200, list.status());
      assertTrue(list.text().contains("{\"v\":1}"), node);
      HttpsClient.Resp table = admin.send(HttpMethod.GET, url(node), PROBES + "?includeObject=Object",
          Map.of("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"), null);
      assertEquals(200, table.status(), node);
      assertTrue(table.text().contains("\"kind\":\"Table\"") && table.text().contains("{\"v\":1}"), node);
      HttpsClient.Resp watch = admin.get(url(node), PROBES + "?watch=true&timeoutSeconds=1"
          + "&fieldSelector=metadata.name%3Ddeepest");
      assertEquals(200, watch.status(), node);
      assertTrue(watch.text().startsWith("{\"type\":\"ADDED\"") && watch.text().contains("{\"v\":1}"), node);
    }
  }

  @Test
  void deadlineInFlightAndHeaderLimits() throws Exception {
    io.vertx.core.http.HttpClient raw = admin.vertx().createHttpClient(new io.vertx.core.http.HttpClientOptions()
        .setSsl(true).setTrustOptions(new io.vertx.core.net.PemTrustOptions().addCertPath(fleet.pki().caCert().toString()))
        .setKeyCertOptions(new io.vertx.core.net.PemKeyCertOptions().setCertPath(fleet.pki().adminCert().toString())
            .setKeyPath(fleet.pki().adminKey().toString())).setMaxInitialLineLength(4 << 20));
    int port = fleet.node("node-b").port();
    CompletableFuture<String[]> slow = new CompletableFuture<>();
    raw.request(new io.vertx.core.http.RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(port)
        .setURI(PROBES).putHeader("Content-Type", "application/json").putHeader("Content-Length", "100"))
        .onSuccess(req -> {
          req.response().onSuccess(resp -> resp.body().onSuccess(b -> slow.complete(new String[] {
              String.valueOf(resp.statusCode()), b.toString(), resp.getHeader("Audit-Id")})));
          req.sendHead();
        }).onFailure(slow::completeExceptionally);
    long t0 = System.nanoTime();
    HttpsClient.Resp busy;
    do {
      busy = anon.send(HttpMethod.POST, url("node-b"), PROBES, Map.of("Authorization", "Bearer alice-token",
          "Content-Type", "application/json"), probe("alice").encode());
    } while (busy.status() != 429 && !slow.isDone());
    assertEquals(429, busy.status(), busy.text());
    assertEquals("1", busy.headers().get("Retry-After"));
    assertEquals("Too many requests, please try again later.", busy.json().getString("message"));
    String[] timedOut = slow.get(20, TimeUnit.SECONDS);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertEquals("504", timedOut[0], timedOut[1]);
    assertEquals("Timeout: request did not complete within the allotted timeout",
        new JsonObject(timedOut[1]).getString("message"));
    assertNotNull(timedOut[2], "Audit-Id");
    assertTrue(ms >= 2500 && ms < 15_000, "deadline after " + ms + " ms");
    assertEquals(200, admin.get(url("node-b"), PROBES).status(), "a short request after the slow one");
    for (String[] big : new String[][] {{"431", "h"}, {"414", "u"}}) {
      CompletableFuture<String[]> f = new CompletableFuture<>();
      io.vertx.core.http.RequestOptions o = new io.vertx.core.http.RequestOptions().setHost("127.0.0.1").setPort(port)
          .setURI("h".equals(big[1]) ? PROBES : PROBES + "?labelSelector=" + "k".repeat(1100 * 1024));
      if ("h".equals(big[1])) {
        o.putHeader("X-Huge", "x".repeat(1100 * 1024));
      }
      raw.request(o).compose(req -> req.send().compose(resp -> resp.body().map(b -> new String[] {
          String.valueOf(resp.statusCode()), b.toString()}))).onComplete(ar -> {
            if (ar.succeeded()) {
              f.complete(ar.result());
            } else {
              f.completeExceptionally(ar.cause());
            }
          });
      String[] r = f.get(20, TimeUnit.SECONDS);
      assertEquals(big[0], r[0], r[1]);
      JsonObject s = new JsonObject(r[1]);
      assertEquals("Status", s.getString("kind"));
      assertEquals(Integer.parseInt(big[0]), s.getInteger("code"));
    }
  }

  @Test
  void pythonClientWatchThroughTheProxy() throws Exception {
    Path python = Path.of("/usr/bin/python3");
    Assumptions.assumeTrue(Files.isExecutable(python), "no /usr/bin/python3");
    KubectlFleetTest.Result probe = KubectlFleetTest.run(List.of(python.toString(), "-c", "import kubernetes"), 30);
    Assumptions.assumeTrue(probe.code() == 0, "python3-kubernetes is not installed");
    assertEquals(201, post("node-a", PROBES, probe("py-watched").encode(), "application/json").status());
    String script = """
        import sys
        from kubernetes import client, config, watch
        config.load_kube_config(config_file=sys.argv[1], context="node-b")
        api = client.CustomObjectsApi()
        w = watch.Watch()
        for ev in w.stream(api.list_namespaced_custom_object, "hardening.mvproxy.io", "v1", "default", "probes",
                           timeout_seconds=20):
            print(ev["type"], ev["object"]["metadata"]["name"], flush=True)
            if ev["object"]["metadata"]["name"] == "py-watched":
                w.stop()
        """;
    Path py = tmp.resolve("watch.py");
    Files.writeString(py, script);
    KubectlFleetTest.Result r = KubectlFleetTest.run(List.of(python.toString(), py.toString(),
        fleet.pki().kubeconfig().toString()), 60);
    assertEquals(0, r.code(), r.all());
    assertTrue(r.out().contains("ADDED py-watched"), r.all());
  }

  @Test
  void kubectlServerSideApplyConflictThroughTheProxy() throws Exception {
    String kubectl = KubectlFleetTest.which("kubectl");
    Assumptions.assumeTrue(kubectl != null, "kubectl is not on PATH");
    Path f = tmp.resolve("ssa.yaml");
    List<String> base = List.of(kubectl, "--kubeconfig", fleet.pki().kubeconfig().toString(), "--context", "node-b",
        "--cache-dir", tmp.resolve("kube-cache").toString(), "--request-timeout=20s", "apply", "--server-side",
        "-f", f.toString());
    Files.writeString(f, "apiVersion: hardening.mvproxy.io/v1\nkind: Probe\nmetadata: {name: ssa, namespace: default}\n"
        + "spec: {color: red}\n");
    List<String> alice = new ArrayList<>(base);
    alice.add("--field-manager=alice");
    KubectlFleetTest.Result first = KubectlFleetTest.run(alice, 60);
    assertEquals(0, first.code(), first.all());
    Files.writeString(f, Files.readString(f).replace("red", "blue"));
    List<String> bob = new ArrayList<>(base);
    bob.add("--field-manager=bob");
    KubectlFleetTest.Result conflict = KubectlFleetTest.run(bob, 60);
    assertTrue(conflict.code() != 0, conflict.all());
    assertTrue(conflict.err().contains("Apply failed with 1 conflict: conflict with \"alice\": .spec.color"),
        conflict.all());
    bob.add("--force-conflicts");
    KubectlFleetTest.Result forced = KubectlFleetTest.run(bob, 60);
    assertEquals(0, forced.code(), forced.all());
    assertEquals("blue", admin.get(url("node-a"), PROBES + "/ssa").json().getJsonObject("spec").getString("color"));

    // a field written by a non-apply request (kubectl create: an Update manager) conflicts with an apply too
    Files.writeString(f, "apiVersion: hardening.mvproxy.io/v1\nkind: Probe\nmetadata: {name: ssa-created,"
        + " namespace: default}\nspec: {color: red}\n");
    List<String> create = new ArrayList<>(base.subList(0, base.indexOf("apply")));
    create.addAll(List.of("create", "-f", f.toString()));
    KubectlFleetTest.Result created = KubectlFleetTest.run(create, 60);
    assertEquals(0, created.code(), created.all());
    Files.writeString(f, Files.readString(f).replace("red", "blue"));
    KubectlFleetTest.Result overUpdate = KubectlFleetTest.run(alice, 60);
    assertTrue(overUpdate.code() != 0, overUpdate.all());
    assertTrue(overUpdate.err().contains("Apply failed with 1 conflict: conflict with \"kubectl-create\" using"
        + " hardening.mvproxy.io/v1: .spec.color"), overUpdate.all());
    assertEquals("red", admin.get(url("node-a"), PROBES + "/ssa-created").json().getJsonObject("spec")
        .getString("color"));
  }
}
