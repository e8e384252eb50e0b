package io.mvproxy.crd;

import io.mvproxy.registry.impl.CrdSourceOptions;
import io.mvproxy.registry.impl.CrdManifests;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.InputStream;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Every verb of the REST surface against one node with a real Hazelcast member and a real HTTP client. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("unit")
class CrdRestTest {
  static final String W = "/apis/example.com/v1/namespaces/ns1/widgets";
  @AutoClose
  TestNode node;
  Http http;

  @BeforeAll
  void start() throws Exception {
    node = TestNode.withOwnMember(CrdSourceOptions.DEFAULTS.withBookmarkIntervalMs(300));
    node.addAll(widgetManifests());
    http = new Http(node.base());
  }

  static List<JsonObject> widgetManifests() throws Exception {
    try (InputStream in = CrdRestTest.class.getResourceAsStream("/widgets-crd.yaml")) {
      return CrdManifests.read(in);
    }
  }

  static JsonObject widget(String name) {
    return new JsonObject().put("apiVersion", "example.com/v1").put("kind", "Widget")
        .put("metadata", new JsonObject().put("name", name)
            .put("annotations", new JsonObject().put("kubectl.kubernetes.io/last-applied-configuration", "{\"x\":1}\n")))
        .put("spec", new JsonObject().put("replicas", 1).put("color", "red").put("unknownField", new JsonObject()
            .put("deep", new JsonArray().add(1).add("two"))));
  }

  JsonObject create(String ns, String name) throws Exception {
    Http.Res r = http.post("/apis/example.com/v1/namespaces/" + ns + "/widgets", widget(name));
    assertEquals(201, r.code(), r.body());
    return r.json();
  }

  @Test
  void createGetListKeepsEverything() throws Exception {
    JsonObject c = create("ns1", "w-basic");
    JsonObject m = c.getJsonObject("metadata");
    assertNotNull(m.getString("uid"));
    assertNotNull(m.getString("creationTimestamp"));
    assertTrue(Long.parseLong(m.getString("resourceVersion")) > 0);
    assertEquals(1, m.getInteger("generation"));
    assertEquals("ns1", m.getString("namespace"));
    Http.Res g = http.get(W + "/w-basic");
    assertEquals(200, g.code());
    assertEquals(c, g.json());
    assertEquals("{\"x\":1}\n", g.json().getJsonObject("metadata").getJsonObject("annotations")
        .getString("kubectl.kubernetes.io/last-applied-configuration"));
    assertEquals("two", g.json().getJsonObject("spec").getJsonObject("unknownField").getJsonArray("deep")
        .getString(1));
    Http.Res l = http.get(W);
    assertEquals(200, l.code());
    assertEquals("WidgetList", l.json().getString("kind"));
    assertEquals("example.com/v1", l.json().getString("apiVersion"));
    assertNotNull(l.json().getJsonObject("metadata").getString("resourceVersion"));
    assertTrue(l.json().getJsonArray("items").stream()
        .anyMatch(i -> "w-basic".equals(((JsonObject) i).getJsonObject("metadata").getString("name"))));
    Http.Res v2 = http.get("/apis/example.com/v2/namespaces/ns1/widgets/w-basic");
    assertEquals("example.com/v2", v2.json().getString("apiVersion"));
  }

  /**
   * POST to an item path creates the body's object, as customresource_handler.go's "create" (handlers.CreateResource
   * takes the name from the body, not the path); without a name in the body it is the collection's 422.
   */
  @Test
  void postToAnItemPathCreatesTheBodysObject() throws Exception {
    Http.Res same = http.post(W + "/w-item", widget("w-item"));
    assertEquals(201, same.code(), same.body());
    assertEquals(200, http.get(W + "/w-item").code());
    Http.Res other = http.post(W + "/w-path", widget("w-body"));
    assertEquals(201, other.code(), other.body());
    assertEquals("w-body", other.json().getJsonObject("metadata").getString("name"));
    assertEquals(200, http.get(W + "/w-body").code());
    assertEquals(404, http.get(W + "/w-path").code());
    Http.Res again = http.post(W + "/w-item", widget("w-item"));
    assertEquals(409, again.code(), again.body());
    Http.Res noName = http.post(W + "/w-none", new JsonObject().put("kind", "Widget").put("apiVersion",
        "example.com/v1"));
    assertEquals(422, noName.code(), noName.body());
    assertEquals(404, http.get(W + "/w-none").code());
  }

  /**
   * A custom resource is unstructured: 3.0 and 1e3 are float64 that Go writes back as 3 and 1000 (a typed Go client
   * reading them into an integer field could not decode 3.0); fractions are kept.
   */
  @Test
  void integralFloatsComeBackAsGoWritesThem() throws Exception {
    JsonObject w = widget("w-floats");
    w.getJsonObject("spec").put("replicas", 3.0).put("unknownField", new JsonObject().put("big", 1e3)
        .put("half", 0.5).put("list", new JsonArray().add(2.0).add(1)));
    Http.Res r = http.post(W, w);
    assertEquals(201, r.code(), r.body());
    for (String body : List.of(r.body(), http.get(W + "/w-floats").body())) {
      assertTrue(body.contains("\"replicas\":3,"), body);
      assertTrue(body.contains("\"big\":1000,\"half\":0.5,\"list\":[2,1]"), body);
    }
    Http.Res p = http.patch(W + "/w-floats", "application/merge-patch+json", "{\"spec\":{\"replicas\":4.0}}");
    assertEquals(200, p.code(), p.body());
    assertTrue(p.body().contains("\"replicas\":4,"), p.body());
  }

  /** transformDecodeError's summary of a body (summarizeData, 30 bytes): text when it starts with '{', else hex. */
  static String summary(String body) {
    byte[] b = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    if (b.length == 0) {
      return "<empty>";
    }
    byte[] head = java.util.Arrays.copyOf(b, Math.min(b.length, 30));
    String shown = b[0] == '{' ? new String(head, java.nio.charset.StandardCharsets.UTF_8)
        : java.util.HexFormat.of().formatHex(head);
    return b.length > 30 ? shown + " ..." : shown;
  }

  /**
   * A custom resource is decoded into an Unstructured; a body without a string kind is refused (json.go Decode's
   * MissingKindErr): with fieldValidation Warn (the default) or Strict the strict decoder names the original body
   * and transformDecodeError adds its summary; with Ignore the Unstructured's own decoding names the trimmed value and
   * the body's version. YAML bodies are converted to JSON first (an empty one is null). Creates and updates alike,
   * nothing stored.
   */
  @Test
  void aBodyWithoutKindIsRefusedAsTheUnstructuredDecoderDoes() throws Exception {
    String unrecognized = "the object provided is unrecognized (must be of type Widget): ";
    for (String body : List.of("{\"apiVersion\":\"example.com/v1\",\"metadata\":{\"name\":\"w-nokind\"}}",
        "{\"kind\":\"\",\"metadata\":{\"name\":\"w-nokind\"}}", "{\"kind\":null,\"metadata\":{\"name\":\"w-nokind\"}}",
        " {\"metadata\":{\"name\":\"w-nokind\"}}\n", "null")) {
      for (String mode : List.of("", "?fieldValidation=Strict")) {
        Http.Res r = http.send("POST", W + mode, "application/json", body, "application/json");
        assertEquals(400, r.code(), body + ": " + r.body());
        assertEquals("BadRequest", r.json().getString("reason"));
        assertEquals(unrecognized + "Object 'Kind' is missing in '" + body + "' (" + summary(body) + ")",
            r.json().getString("message"));
      }
    }
    // Ignore: the non-strict decoder; the version is the body's, the value's surrounding whitespace trimmed
    Http.Res ignore = http.send("POST", W + "?fieldValidation=Ignore", "application/json",
        " {\"apiVersion\":\"example.com/v2\",\"metadata\":{\"name\":\"w-nokind\"}}\n", "application/json");
    assertEquals(400, ignore.code(), ignore.body());
    assertEquals("Widget in version \"v2\" cannot be handled as a Widget: Object 'Kind' is missing in "
        + "'{\"apiVersion\":\"example.com/v2\",\"metadata\":{\"name\":\"w-nokind\"}}'", ignore.json().getString("message"));
    Http.Res ignoreYaml = http.send("POST", W + "?fieldValidation=Ignore", "application/yaml",
        "metadata:\n  name: w-nokind\napiVersion: example.com/v1\n", "application/json");
    assertEquals("Widget in version \"v1\" cannot be handled as a Widget: Object 'Kind' is missing in "
        + "'{\"apiVersion\":\"example.com/v1\",\"metadata\":{\"name\":\"w-nokind\"}}'", ignoreYaml.json().getString("message"));
    // a kind that is no string fails the serializer's first look (SimpleMetaFactory.Interpret), in body order, a
    // key given twice too (Go keeps the first type error)
    for (String[] c : new String[][] {{"{\"apiVersion\":true,\"kind\":5}", "bool", "apiVersion"},
        {"{\"kind\":5,\"kind\":\"Widget\",\"metadata\":{\"name\":\"w-nokind\"}}", "number", "kind"}}) {
      Http.Res number = http.send("POST", W, "application/json", c[0], "application/json");
      assertEquals(400, number.code(), number.body());
      assertEquals(unrecognized + "couldn't get version/kind; json parse error: json: cannot unmarshal " + c[1]
          + " into Go struct field ." + c[2] + " of type string (" + summary(c[0]) + ")", number.json().getString("message"));
    }
    // YAML as the YAML serializer reads it: converted to JSON, then decoded; the original YAML is quoted
    for (String[] c : new String[][] {{"", unrecognized + "Object 'Kind' is missing in '' (<empty>)"},
        {"# nothing\n", unrecognized + "Object 'Kind' is missing in '# nothing\n' (" + summary("# nothing\n") + ")"},
        {"metadata:\n  name: w-nokind\n", unrecognized + "Object 'Kind' is missing in 'metadata:\n  name: w-nokind\n' ("
            + summary("metadata:\n  name: w-nokind\n") + ")"},
        {"- 1\n", unrecognized + "couldn't get version/kind; json parse error: json: cannot unmarshal array into Go "
            + "value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
            + "\"json:\\\"kind,omitempty\\\"\" } (2d20310a)"}}) {
      Http.Res r = http.send("POST", W, "application/yaml", c[0], "application/json");
      assertEquals(400, r.code(), c[0] + ": " + r.body());
      assertEquals(c[1], r.json().getString("message"), c[0]);
    }
    String brokenYaml = "kind: Widget\nmetadata: [\n";
    Http.Res broken = http.send("POST", W, "application/yaml", brokenYaml, "application/json");
    assertEquals(400, broken.code(), broken.body());
    assertTrue(broken.json().getString("message").startsWith(unrecognized + "error converting YAML to JSON: yaml: "),
        broken.body());
    assertTrue(broken.json().getString("message").endsWith(" (" + summary(brokenYaml) + ")"), broken.body());
    assertEquals(404, http.get(W + "/w-nokind").code());
    create("ns1", "w-kindless-update");
    JsonObject u = http.get(W + "/w-kindless-update").json();
    u.remove("kind");
    Http.Res put = http.put(W + "/w-kindless-update", u);
    assertEquals(400, put.code(), put.body());
    assertTrue(put.json().getString("message").startsWith(unrecognized + "Object 'Kind' is missing in '"), put.body());
    // the /scale subresource takes a typed autoscaling/v1 Scale: no kind needed
    JsonObject scale = http.get(W + "/w-kindless-update/scale").json();
    scale.remove("kind");
    scale.remove("apiVersion");
    Http.Res scalePut = http.put(W + "/w-kindless-update/scale", scale);
    assertEquals(200, scalePut.code(), scalePut.body());
  }

  /**
   * A Scale PUT as update.go and the typed Scale: checkName (the URL's name, namespace), replicas an int32 (absent is
   * 0, ScaleSpec's omitempty), ValidateScale's message naming the value.
   */
  @Test
  void scaleUpdatesAreCheckedAsTheTypedScale() throws Exception {
    create("ns1", "w-scale-put");
    String path = W + "/w-scale-put/scale";
    JsonObject scale = http.get(path).json();
    String prefix = "Scale in version \"v1\" cannot be handled as a Scale: json: cannot unmarshal ";
    for (Object[] c : new Object[][] {
        {scale.copy().put("metadata", new JsonObject().put("name", "other")), 400,
            "the name of the object (other) does not match the name on the URL (w-scale-put)"},
        {new JsonObject(), 400, "the name of the object (w-scale-put based on URL) was undeterminable: name must be "
            + "provided"},
        {scale.copy().put("metadata", scale.getJsonObject("metadata").copy().put("namespace", "ns2")), 400,
            "the namespace of the object (ns2) does not match the namespace on the URL (ns1)"},
        {scale.copy().put("spec", new JsonObject().put("replicas", -1)), 422, "spec.replicas: Invalid value: -1: must "
            + "be greater than or equal to 0"},
        {scale.copy().put("spec", new JsonObject().put("replicas", "3")), 400, prefix + "string into Go struct field "
            + "ScaleSpec.spec.replicas of type int32"},
        {scale.copy().put("spec", new JsonObject().put("replicas", 3000000000L)), 400, prefix + "number 3000000000 into "
            + "Go struct field ScaleSpec.spec.replicas of type int32"}}) {
      Http.Res r = http.put(path, (JsonObject) c[0]);
      assertEquals(c[1], r.code(), c[0] + ": " + r.body());
      assertTrue(r.json().getString("message").endsWith((String) c[2]), r.body());
    }
    Http.Res zero = http.put(path, scale.copy().put("spec", new JsonObject()));
    assertEquals(200, zero.code(), zero.body());
    assertEquals(0, zero.json().getJsonObject("spec").getInteger("replicas", -1), "absent replicas are 0");
  }

  /** metadata.deletionGracePeriodSeconds is ObjectMeta's int64: another type is the decoder's 400, not dropped. */
  @Test
  void aGracePeriodOfTheWrongTypeIsADecodingError() throws Exception {
    String prefix = "Widget in version \"v1\" cannot be handled as a Widget: json: cannot unmarshal ";
    for (Object[] c : new Object[][] {{"\"30\"", "string"}, {"1.5", "number 1.5"}, {"true", "bool"}}) {
      String body = "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"w-grace\","
          + "\"deletionGracePeriodSeconds\":" + c[0] + "}}";
      Http.Res r = http.send("POST", W, "application/json", body, "application/json");
      assertEquals(400, r.code(), body + ": " + r.body());
      // a custom resource's metadata is decoded on its own (objectmeta/coerce.go): no "metadata." in Go's path
      assertEquals(prefix + c[1] + " into Go struct field ObjectMeta.deletionGracePeriodSeconds of type int64",
          r.json().getString("message"));
    }
    assertEquals(404, http.get(W + "/w-grace").code());
  }

  @Test
  void createErrors() throws Exception {
    create("ns1", "w-dup");
    Http.Res dup = http.post(W, widget("w-dup"));
    assertEquals(409, dup.code());
    assertEquals("AlreadyExists", dup.json().getString("reason"));
    assertEquals("widgets.example.com \"w-dup\" already exists", dup.json().getString("message"));
    assertEquals("Status", dup.json().getString("kind"));
    Http.Res bad = http.post(W, widget("Bad_Name"));
    assertEquals(422, bad.code());
    assertEquals("metadata.name", bad.json().getJsonObject("details").getJsonArray("causes").getJsonObject(0)
        .getString("field"));
    Http.Res noName = http.post(W, new JsonObject().put("kind", "Widget").put("apiVersion", "example.com/v1"));
    assertEquals(422, noName.code());
    Http.Res json = http.send("POST", W, "application/json", "{not json", "application/json");
    assertEquals(400, json.code());
    assertEquals("BadRequest", json.json().getString("reason"));
    JsonObject wrongNs = widget("w-ns");
    wrongNs.getJsonObject("metadata").put("namespace", "other");
    assertEquals(400, http.post(W, wrongNs).code());
    JsonObject big = widget("w-big");
    big.getJsonObject("spec").put("blob", "x".repeat(3 * 1024 * 1024 + 10));
    Http.Res tooBig = http.post(W, big);
    assertEquals(413, tooBig.code());
    assertEquals("RequestEntityTooLarge", tooBig.json().getString("reason"));
    JsonObject gen = widget("");
    gen.getJsonObject("metadata").remove("name");
    gen.getJsonObject("metadata").put("generateName", "w-gen-");
    Http.Res g = http.post(W, gen);
    assertEquals(201, g.code());
    assertTrue(g.json().getJsonObject("metadata").getString("name").matches("w-gen-[a-z0-9]{5}"));
    Http.Res dry = http.post(W + "?dryRun=All", widget("w-dry"));
    assertEquals(201, dry.code());
    assertEquals(404, http.get(W + "/w-dry").code());
    // a dry-run create of an object that exists is the real create's 409 (DryRunnableStorage.Create)
    Http.Res dryExisting = http.post(W + "?dryRun=All", widget(g.json().getJsonObject("metadata").getString("name")));
    assertEquals(409, dryExisting.code(), dryExisting.body());
    assertEquals("AlreadyExists", dryExisting.json().getString("reason"));
    for (String v : java.util.List.of("Bogus", "true", "all")) {
      Http.Res unsupported = http.post(W + "?dryRun=" + v, widget("w-dry-" + v.toLowerCase()));
      assertEquals(422, unsupported.code(), v);
      assertEquals("CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: []string{\"" + v
          + "\"}: supported values: \"All\"", unsupported.json().getString("message"));
      assertEquals(404, http.get(W + "/w-dry-" + v.toLowerCase()).code(), "nothing stored for dryRun=" + v);
    }
  }

  /**
   * A generated name that meets an existing object is generated again, up to 8 attempts in all (apiserver
   * {@code createWithGenerateNameRetry}, RetryGenerateName GA in 1.32); after the 8th the client gets the 409
   * AlreadyExists. A generateName longer than 58 characters is cut so the name stays within 63.
   */
  @Test
  void generatedNameMeetingAnExistingOneIsGeneratedAgain() throws Exception {
    assertEquals(201, http.post(W, widget("w-taken-bbbbb")).code());
    java.util.concurrent.atomic.AtomicInteger made = new java.util.concurrent.atomic.AtomicInteger();
    java.util.function.Supplier<String> random = io.mvproxy.registry.impl.rest.ObjectRules.nameSuffix;
    try {
      // the first three names exist, the fourth is new
      io.mvproxy.registry.impl.rest.ObjectRules.nameSuffix = () -> made.incrementAndGet() <= 3 ? "bbbbb" : "ccccc";
      JsonObject gen = widget("");
      gen.getJsonObject("metadata").remove("name");
      gen.getJsonObject("metadata").put("generateName", "w-taken-");
      Http.Res ok = http.post(W, gen);
      assertEquals(201, ok.code(), ok.body());
      assertEquals("w-taken-ccccc", ok.json().getJsonObject("metadata").getString("name"));
      assertEquals(4, made.get());

      made.set(0);
      io.mvproxy.registry.impl.rest.ObjectRules.nameSuffix = () -> {
        made.incrementAndGet();
        return "bbbbb";
      };
      Http.Res taken = http.post(W, gen);
      assertEquals(409, taken.code(), taken.body());
      assertEquals("AlreadyExists", taken.json().getString("reason"));
      assertEquals(8, made.get(), "attempts");

      io.mvproxy.registry.impl.rest.ObjectRules.nameSuffix = random;
      gen.getJsonObject("metadata").put("generateName", "w" + "x".repeat(61) + "-");
      Http.Res longBase = http.post(W, gen);
      assertEquals(201, longBase.code(), longBase.body());
      String name = longBase.json().getJsonObject("metadata").getString("name");
      assertEquals(63, name.length(), name);
      assertTrue(name.startsWith("w" + "x".repeat(57)), name);
    } finally {
      io.mvproxy.registry.impl.rest.ObjectRules.nameSuffix = random;
    }
  }

  /**
   * A body that is not JSON, or JSON that is not an object, gets kube-apiserver's 400 ({@code transformDecodeError}
   * over {@code Interpret}'s error: Go's {@code encoding/json} text and {@code summarizeData} of the body), on create
   * and update; nothing is stored.
   */
  @Test
  void bodiesThatAreNotJsonObjectsGetGosDecodingText() throws Exception {
    String prefix = "the object provided is unrecognized (must be of type Widget): couldn't get version/kind; json "
        + "parse error: ";
    record Case(String method, String path, String body, String message) { }
    for (Case c : List.of(
        new Case("POST", W, "{\"metadata\":{\"name\":\"nj\"}", prefix + "unexpected end of JSON input "
            + "({\"metadata\":{\"name\":\"nj\"})"),
        new Case("POST", W, "{\"metadata\":{\"name\":\"nj\",}}", prefix + "invalid character '}' looking for "
            + "beginning of object key string ({\"metadata\":{\"name\":\"nj\",}})"),
        new Case("POST", W, "", prefix + "unexpected end of JSON input (<empty>)"),
        // a UTF-8 byte order mark: Go reads no BOM (Jackson would skip it)
        new Case("POST", W, "\uFEFF{}", prefix + "invalid character 'ï' looking for beginning of value (efbbbf7b7d)"),
        new Case("POST", W, "null", "the object provided is unrecognized (must be of type Widget): Object 'Kind' is "
            + "missing in 'null' (6e756c6c)"),
        new Case("POST", W, "[1]", prefix + "json: cannot unmarshal array into Go value of type struct { APIVersion "
            + "string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" } (5b315d)"),
        new Case("PUT", W + "/nj", "{\"metadata\":{\"name\":\"nj\"}} x", prefix + "invalid character 'x' after "
            + "top-level value ({\"metadata\":{\"name\":\"nj\"}} x)"),
        new Case("PUT", W + "/nj/scale", "{", prefix.replace("Widget", "Scale") + "unexpected end of JSON input ({)"))) {
      Http.Res r = http.send(c.method(), c.path(), "application/json", c.body(), "application/json");
      assertEquals(400, r.code(), c.body() + ": " + r.body());
      assertEquals("BadRequest", r.json().getString("reason"), r.body());
      assertEquals(c.message(), r.json().getString("message"), c.body());
    }
    assertEquals(404, http.get(W + "/nj").code(), "never stored");
    // patch.go (fieldValidation Warn, the default, or Strict): "error decoding patch: " and Go's text
    assertEquals(201, http.post(W, widget("nj-p")).code());
    Http.Res merge = http.patch(W + "/nj-p", "application/merge-patch+json", "{\"spec\":");
    assertEquals(400, merge.code(), merge.body());
    assertEquals("error decoding patch: unexpected end of JSON input", merge.json().getString("message"));
    Http.Res json = http.patch(W + "/nj-p", "application/json-patch+json", "[{\"op\":\"add\",]");
    assertEquals(400, json.code(), json.body());
    assertEquals("error decoding patch: invalid character ']' looking for beginning of object key string",
        json.json().getString("message"));
    // JSON that is no patch: kjson.UnmarshalStrict's type errors; a merge patch of null is json-patch's
    // ErrBadJSONPatch
    for (String[] c : new String[][] {
        {"application/merge-patch+json", "5", "error decoding patch: json: cannot unmarshal number into Go value of "
            + "type map[string]interface {}"},
        {"application/merge-patch+json", "[1]", "error decoding patch: json: cannot unmarshal array into Go value of "
            + "type map[string]interface {}"},
        {"application/merge-patch+json", "null", "Invalid JSON Patch"},
        {"application/merge-patch+json", "\uFEFF{}", "error decoding patch: invalid character 'ï' looking for "
            + "beginning of value"},
        {"application/json-patch+json", "", "error decoding patch: unexpected end of JSON input"},
        {"application/json-patch+json", "{}x", "error decoding patch: invalid character 'x' after top-level value"},
        {"application/json-patch+json", "\"s\"", "error decoding patch: json: cannot unmarshal string into Go value "
            + "of type []handlers.jsonPatchOp"},
        {"application/json-patch+json", "[5]", "error decoding patch: json: cannot unmarshal number into Go value "
            + "of type handlers.jsonPatchOp"},
        {"application/json-patch+json", "[{\"op\":5}]", "error decoding patch: json: cannot unmarshal number into Go "
            + "struct field jsonPatchOp.op of type string"},
        {"application/json-patch+json", "[{\"op\":\"add\",\"path\":\"/spec/x\",\"value\":1,\"from\":[]}]",
            "error decoding patch: json: cannot unmarshal array into Go struct field jsonPatchOp.from of type "
            + "string"}}) {
      Http.Res r = http.patch(W + "/nj-p", c[0], c[1]);
      assertEquals(400, r.code(), c[1] + ": " + r.body());
      assertEquals(c[2], r.json().getString("message"), c[0] + " " + c[1]);
    }
    Http.Res nullOp = http.patch(W + "/nj-p", "application/json-patch+json", "[null]");
    assertEquals(422, nullOp.code(), "a zero operation does not apply: " + nullOp.body());
  }

  /**
   * apiextensions' {@code generateWarningsFromObj}: a finalizer a write adds without a domain gets a warning (a
   * built-in kind refuses it); one already there does not warn again.
   */
  @Test
  void unqualifiedFinalizersOfCustomResourcesAreWarnedAbout() throws Exception {
    JsonObject w = widget("w-fin-warn");
    w.getJsonObject("metadata").put("finalizers", new JsonArray().add("foo").add("a.b").add("example.com/x"));
    Http.Res r = http.post(W, w);
    assertEquals(201, r.code(), r.body());
    assertEquals(List.of("299 - \"metadata.finalizers: \\\"a.b\\\": prefer a domain-qualified finalizer name "
        + "including a path (/) to avoid accidental conflicts with other finalizer writers\"",
        "299 - \"metadata.finalizers: \\\"foo\\\": prefer a domain-qualified finalizer name to avoid accidental "
        + "conflicts with other finalizer writers\""), r.raw().headers().allValues("Warning"));
    Http.Res p = http.patch(W + "/w-fin-warn", "application/merge-patch+json",
        "{\"metadata\":{\"finalizers\":[\"foo\",\"a.b\",\"bar\"]}}");
    assertEquals(200, p.code(), p.body());
    assertEquals(List.of("299 - \"metadata.finalizers: \\\"bar\\\": prefer a domain-qualified finalizer name to "
        + "avoid accidental conflicts with other finalizer writers\""), p.raw().headers().allValues("Warning"));
    assertEquals(200, http.patch(W + "/w-fin-warn", "application/merge-patch+json",
        "{\"metadata\":{\"finalizers\":null}}").code());
  }

  /**
   * A bad {@code generateName} is reported as such, beside the name made from it, both in one 422 (apimachinery
   * {@code ValidateObjectMetaAccessor}: the prefix through the name rule with {@code prefix=true}, then the name); a
   * prefix ending in '-' is valid; nothing is stored.
   */
  @Test
  void aBadGenerateNameIsNamedBesideTheNameMadeFromIt() throws Exception {
    java.util.function.Supplier<String> random = io.mvproxy.registry.impl.rest.ObjectRules.nameSuffix;
    try {
      io.mvproxy.registry.impl.rest.ObjectRules.nameSuffix = () -> "zzzzz";
      JsonObject gen = widget("");
      gen.getJsonObject("metadata").remove("name");
      gen.getJsonObject("metadata").put("generateName", "Bad_");
      Http.Res bad = http.post(W, gen);
      assertEquals(422, bad.code(), bad.body());
      String subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or"
          + " '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for"
          + " validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
      JsonArray causes = bad.json().getJsonObject("details").getJsonArray("causes");
      assertEquals(2, causes.size(), bad.body());
      assertEquals("metadata.generateName", causes.getJsonObject(0).getString("field"));
      assertEquals("Invalid value: \"Bad_\": " + subdomain, causes.getJsonObject(0).getString("message"));
      assertEquals("metadata.name", causes.getJsonObject(1).getString("field"));
      assertEquals("Invalid value: \"Bad_zzzzz\": " + subdomain, causes.getJsonObject(1).getString("message"));
      assertEquals("Widget.example.com \"Bad_zzzzz\" is invalid: [metadata.generateName: Invalid value: \"Bad_\": "
          + subdomain + ", metadata.name: Invalid value: \"Bad_zzzzz\": " + subdomain + "]",
          bad.json().getString("message"));
      assertEquals(404, http.get(W + "/Bad_zzzzz").code(), "not stored");

      gen.getJsonObject("metadata").put("generateName", "good-");
      Http.Res ok = http.post(W, gen);
      assertEquals(201, ok.code(), ok.body());
      assertEquals("good-zzzzz", ok.json().getJsonObject("metadata").getString("name"));

      // an update: a custom resource's ValidateUpdate does not apply the name rule to generateName, but every
      // update refuses '/' and '%' in it (rest.BeforeUpdate's validateCommonFields: ValidatePathSegmentName)
      String merge = "application/merge-patch+json";
      Http.Res slash = http.patch(W + "/good-zzzzz", merge, "{\"metadata\":{\"generateName\":\"a/\"}}");
      assertEquals(422, slash.code(), slash.body());
      assertEquals("Widget.example.com \"good-zzzzz\" is invalid: metadata.generateName: Invalid value: \"a/\": "
          + "may not contain '/'", slash.json().getString("message"));
      Http.Res other = http.patch(W + "/good-zzzzz", merge, "{\"metadata\":{\"generateName\":\"Bad_\"}}");
      assertEquals(200, other.code(), other.body());
      assertEquals("Bad_", http.get(W + "/good-zzzzz").json().getJsonObject("metadata").getString("generateName"));
    } finally {
      io.mvproxy.registry.impl.rest.ObjectRules.nameSuffix = random;
    }
  }

  /**
   * Query and option errors with kube-apiserver's codes and texts (breaker F15): integer ListOptions
   * ({@code strconv.ParseInt}), label selector parse errors, PatchOptions / CreateOptions validation (one 422 with
   * every cause), and a create carrying a resourceVersion (500 without a reason, not for dryRun); none stores anything.
   */
  @Test
  void queryAndOptionErrorsAsKubeApiserver() throws Exception {
    record Bad(String method, String path, String contentType, String body, int code, String reason, String message) {
    }
    String apply = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w-nofm\n";
    String merge = "application/merge-patch+json";
    create("ns1", "w-opts");
    String meta = "application/json";
    for (Bad b : List.of(
        new Bad("GET", W + "?timeoutSeconds=abc", null, null, 400, "BadRequest",
            "strconv.ParseInt: parsing \"abc\": invalid syntax"),
        new Bad("GET", W + "?watch=true&timeoutSeconds=1.5", null, null, 400, "BadRequest",
            "strconv.ParseInt: parsing \"1.5\": invalid syntax"),
        new Bad("GET", W + "?limit=", null, null, 400, "BadRequest", "strconv.ParseInt: parsing \"\": invalid syntax"),
        new Bad("GET", W + "?limit=99999999999999999999&timeoutSeconds=x", null, null, 400, "BadRequest",
            "strconv.ParseInt: parsing \"x\": invalid syntax"),
        new Bad("DELETE", W + "?limit=ten", null, null, 400, "BadRequest",
            "strconv.ParseInt: parsing \"ten\": invalid syntax"),
        new Bad("GET", W + "?labelSelector=tier%20in%20(gold", null, null, 400, "BadRequest",
            "unable to parse requirement: found '', expected: ',' or ')'"),
        new Bad("GET", W + "?labelSelector=a%3D%3D%3Db", null, null, 400, "BadRequest",
            "unable to parse requirement: found '=', expected: identifier"),
        new Bad("PATCH", W + "/w-nofm", "application/apply-patch+yaml", apply, 422, "Invalid",
            "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch"),
        new Bad("PATCH", W + "/w-opts?force=false", merge, "{}", 422, "Invalid",
            "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for non-apply patch"),
        new Bad("PATCH", W + "/w-nofm?dryRun=x", "application/apply-patch+yaml", apply, 422, "Invalid",
            "PatchOptions.meta.k8s.io \"\" is invalid: [fieldManager: Required value: is required for apply patch, "
                + "dryRun: Unsupported value: []string{\"x\"}: supported values: \"All\"]"),
        new Bad("POST", W + "?dryRun=x&fieldValidation=y", meta, widget("w-o1").encode(), 422, "Invalid",
            "CreateOptions.meta.k8s.io \"\" is invalid: [dryRun: Unsupported value: []string{\"x\"}: supported "
                + "values: \"All\", fieldValidation: Unsupported value: \"y\": supported values: \"\", \"Ignore\", "
                + "\"Strict\", \"Warn\"]"),
        new Bad("POST", W + "?fieldManager=" + "m".repeat(129), meta, widget("w-o2").encode(), 422, "Invalid",
            "CreateOptions.meta.k8s.io \"\" is invalid: fieldManager: Too long: may not be more than 128 bytes"),
        new Bad("POST", W + "?fieldManager=a%07b", meta, widget("w-o3").encode(), 422, "Invalid",
            "CreateOptions.meta.k8s.io \"\" is invalid: fieldManager: Invalid value: \"a\\ab\": invalid character "
                + "U+0007 (at position 1)"),
        new Bad("POST", W, meta, widget("w-rv").put("metadata", widget("w-rv").getJsonObject("metadata")
            .put("resourceVersion", "5")).encode(), 500, null, "resourceVersion should not be set on objects to be "
            + "created"),
        // etcd3 store.Create checks the resourceVersion before the key: an existing name is the same 500
        new Bad("POST", W, meta, widget("w-opts").put("metadata", widget("w-opts").getJsonObject("metadata")
            .put("resourceVersion", "5")).encode(), 500, null, "resourceVersion should not be set on objects to be "
            + "created"))) {
      Http.Res r = http.send(b.method(), b.path(), b.contentType(), b.body(), "application/json");
      assertEquals(b.code(), r.code(), b.path() + ": " + r.body());
      assertEquals("Status", r.json().getString("kind"), r.body());
      assertEquals(b.reason(), r.json().getString("reason"), r.body());
      assertEquals(b.message(), r.json().getString("message"), b.path());
    }
    Http.Res fm = http.send("PATCH", W + "/w-nofm", "application/apply-patch+yaml", apply, "application/json");
    assertEquals(new JsonArray().add(new JsonObject().put("reason", "FieldValueRequired")
        .put("message", "Required value: is required for apply patch").put("field", "fieldManager")),
        fm.json().getJsonObject("details").getJsonArray("causes"));
    assertEquals("meta.k8s.io", fm.json().getJsonObject("details").getString("group"));
    assertEquals("PatchOptions", fm.json().getJsonObject("details").getString("kind"));
    for (String n : List.of("w-nofm", "w-o1", "w-o2", "w-o3", "w-rv")) {
      assertEquals(404, http.get(W + "/" + n).code(), n + " never stored");
    }
    // upstream's storage ignores a resourceVersion it cannot parse, and dryRun skips the check
    JsonObject odd = widget("w-rv-odd");
    odd.getJsonObject("metadata").put("resourceVersion", "-1");
    Http.Res created = http.post(W, odd);
    assertEquals(201, created.code(), created.body());
    assertTrue(Long.parseLong(created.json().getJsonObject("metadata").getString("resourceVersion")) > 0);
    JsonObject dry = widget("w-rv-dry");
    dry.getJsonObject("metadata").put("resourceVersion", "5");
    assertEquals(201, http.post(W + "?dryRun=All", dry).code());
    assertEquals(404, http.get(W + "/w-rv-dry").code());
    assertEquals(200, http.get(W + "?limit=0&timeoutSeconds=-3").code(), "values that parse are accepted");
  }

  @Test
  void notFoundAndBadPaths() throws Exception {
    Http.Res nf = http.get(W + "/nope");
    assertEquals(404, nf.code());
    assertEquals("widgets.example.com \"nope\" not found", nf.json().getString("message"));
    assertEquals("nope", nf.json().getJsonObject("details").getString("name"));
    create("ns1", "w-paths");
    // customresource_handler.go's default branch: a subresource the version lacks is NotFound of the path's name
    Http.Res bogus = http.get(W + "/w-paths/bogus");
    assertEquals(404, bogus.code());
    assertEquals("widgets.example.com \"w-paths\" not found", bogus.json().getString("message"));
    assertEquals("NotFound", bogus.json().getString("reason"));
    assertEquals("w-paths", bogus.json().getJsonObject("details").getString("name"));
    assertEquals("widgets", bogus.json().getJsonObject("details").getString("kind"));
    assertEquals(404, http.get("/apis/example.com/v2/namespaces/ns1/widgets/w-paths/scale").code());
    assertEquals(404, http.get("/apis/example.com/v1/widgets/w-paths").code());
    assertEquals(404, http.get("/apis/example.com/v1/namespaces/ns1/gadgets").code());
    // customresource_handler.go: without a namespace a namespaced resource serves list and watch only; the rest
    // is the delegate's 404
    assertEquals(404, http.post("/apis/example.com/v1/widgets", widget("x")).code());
    assertEquals(404, http.send("DELETE", "/apis/example.com/v1/widgets", null, null, null).code());
    assertEquals(404, http.send("DELETE", "/apis/example.com/v1/widgets/w-paths", null, null, null).code());
    assertEquals(200, http.get("/apis/example.com/v1/widgets").code());
    Http.Res deleteStatus = http.send("DELETE", W + "/w-paths/status", null, null, null);
    assertEquals(405, deleteStatus.code());
    // customresource_handler.go serveStatus: NewMethodNotSupported
    assertEquals("delete is not supported on resources of kind \"widgets.example.com\"",
        deleteStatus.json().getString("message"));
    assertEquals(new JsonObject().put("group", "example.com").put("kind", "widgets"),
        deleteStatus.json().getJsonObject("details"));
    // PUT or PATCH of the collection: handlers/namer.go "name must be provided", the patch type checked first
    for (String[] c : new String[][] {{"PUT", "application/json"}, {"PATCH", "application/merge-patch+json"}}) {
      Http.Res r = http.send(c[0], W, c[1], "{}", "application/json");
      assertEquals(400, r.code(), c[0] + " " + r.body());
      assertEquals("name must be provided", r.json().getString("message"));
    }
    assertEquals(415, http.send("PATCH", W, "application/strategic-merge-patch+json", "{}", "application/json")
        .code());
    assertEquals(0, http.get(W + "?labelSelector=never").json().getJsonArray("items").size());
  }

  @Test
  void updateConflictAndGeneration() throws Exception {
    JsonObject c = create("ns1", "w-upd");
    JsonObject u = c.copy();
    u.getJsonObject("metadata").put("labels", new JsonObject().put("a", "b"));
    u.put("status", new JsonObject().put("replicas", 9));
    Http.Res r1 = http.put(W + "/w-upd", u);
    assertEquals(200, r1.code(), r1.body());
    assertEquals(1, r1.json().getJsonObject("metadata").getInteger("generation"));
    assertNull(r1.json().getValue("status"), "status ignored on the main resource");
    assertEquals("b", r1.json().getJsonObject("metadata").getJsonObject("labels").getString("a"));
    JsonObject u2 = r1.json().copy();
    u2.getJsonObject("spec").put("color", "blue");
    Http.Res r2 = http.put(W + "/w-upd", u2);
    assertEquals(200, r2.code());
    assertEquals(2, r2.json().getJsonObject("metadata").getInteger("generation"));
    Http.Res stale = http.put(W + "/w-upd", u2);
    assertEquals(409, stale.code());
    assertEquals("Conflict", stale.json().getString("reason"));
    assertEquals("Operation cannot be fulfilled on widgets.example.com \"w-upd\": the object has been modified; "
        + "please apply your changes to the latest version and try again", stale.json().getString("message"));
    JsonObject noRv = r2.json().copy();
    noRv.getJsonObject("metadata").remove("resourceVersion");
    Http.Res unconditional = http.put(W + "/w-upd", noRv);
    assertEquals(422, unconditional.code(), "a custom resource needs the resourceVersion (AllowUnconditionalUpdate)");
    assertEquals("widgets.example.com \"w-upd\" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be "
        + "specified for an update", unconditional.json().getString("message"), "named by resource, as store.go");
    noRv.getJsonObject("metadata").put("resourceVersion", "0");
    assertEquals(422, http.put(W + "/w-upd", noRv).code(), "0 is no resourceVersion (ParseUint)");
    noRv.getJsonObject("metadata").put("resourceVersion", "abc");
    Http.Res badRv = http.put(W + "/w-upd", noRv);
    assertEquals(500, badRv.code(), badRv.body());
    assertEquals("strconv.ParseUint: parsing \"abc\": invalid syntax", badRv.json().getString("message"));
    JsonObject otherUid = r2.json().copy();
    otherUid.getJsonObject("metadata").put("uid", "other");
    Http.Res uidConflict = http.put(W + "/w-upd", otherUid);
    assertEquals(409, uidConflict.code(), uidConflict.body());
    assertEquals("Operation cannot be fulfilled on widgets.example.com \"w-upd\": Precondition failed: UID in "
        + "precondition: other, UID in object meta: " + r2.json().getJsonObject("metadata").getString("uid"),
        uidConflict.json().getString("message"));
    JsonObject noName = r2.json().copy();
    noName.getJsonObject("metadata").remove("name");
    Http.Res nameless = http.put(W + "/w-upd", noName);
    assertEquals(400, nameless.code(), nameless.body());
    assertEquals("the name of the object (w-upd based on URL) was undeterminable: name must be provided",
        nameless.json().getString("message"));
    assertEquals(404, http.put(W + "/w-none", widget("w-none").put("metadata", widget("w-none")
        .getJsonObject("metadata").put("resourceVersion", "5"))).code());
    Http.Res absent = http.put(W + "/w-none", widget("w-none"));
    assertEquals(404, absent.code(), "absent before the resourceVersion is looked at (store.go Update): " + absent.body());
    assertEquals("widgets.example.com \"w-none\" not found", absent.json().getString("message"));
    JsonObject same = r2.json().copy();
    Http.Res noop = http.put(W + "/w-upd", same);
    assertEquals(r2.json().getJsonObject("metadata").getString("resourceVersion"),
        noop.json().getJsonObject("metadata").getString("resourceVersion"), "a no-op update is not written");
  }

  @Test
  void statusSubresource() throws Exception {
    JsonObject c = create("ns1", "w-status");
    JsonObject s = c.copy().put("status", new JsonObject().put("replicas", 3));
    s.getJsonObject("spec").put("color", "ignored");
    Http.Res r = http.put(W + "/w-status/status", s);
    assertEquals(200, r.code(), r.body());
    assertEquals(3, r.json().getJsonObject("status").getInteger("replicas"));
    assertEquals("red", r.json().getJsonObject("spec").getString("color"));
    assertEquals(1, r.json().getJsonObject("metadata").getInteger("generation"));
    Http.Res p = http.patch(W + "/w-status/status", "application/merge-patch+json",
        "{\"status\":{\"selector\":\"app=x\"}}");
    assertEquals(200, p.code());
    assertEquals("app=x", p.json().getJsonObject("status").getString("selector"));
    assertEquals(3, http.get(W + "/w-status/status").json().getJsonObject("status").getInteger("replicas"));
  }

  @Test
  void patches() throws Exception {
    create("ns1", "w-patch");
    Http.Res merge = http.patch(W + "/w-patch", "application/merge-patch+json",
        "{\"metadata\":{\"labels\":{\"x\":\"z\"}},\"spec\":{\"color\":null,\"size\":4}}");
    assertEquals(200, merge.code(), merge.body());
    assertFalse(merge.json().getJsonObject("spec").containsKey("color"));
    assertEquals(4, merge.json().getJsonObject("spec").getInteger("size"));
    assertEquals(2, merge.json().getJsonObject("metadata").getInteger("generation"));
    String rv = merge.json().getJsonObject("metadata").getString("resourceVersion");
    Http.Res jp = http.patch(W + "/w-patch", "application/json-patch+json; charset=utf-8",
        "[{\"op\":\"test\",\"path\":\"/spec/size\",\"value\":4},{\"op\":\"add\",\"path\":\"/metadata/labels\","
            + "\"value\":{\"a\":\"b\"}},{\"op\":\"add\",\"path\":\"/metadata/resourceVersion\",\"value\":\"" + rv
            + "\"}]");
    assertEquals(200, jp.code(), jp.body());
    assertEquals("b", jp.json().getJsonObject("metadata").getJsonObject("labels").getString("a"));
    Http.Res staleJp = http.patch(W + "/w-patch", "application/json-patch+json",
        "[{\"op\":\"add\",\"path\":\"/metadata/resourceVersion\",\"value\":\"" + rv + "\"}]");
    assertEquals(409, staleJp.code());
    Http.Res failedTest = http.patch(W + "/w-patch", "application/json-patch+json",
        "[{\"op\":\"test\",\"path\":\"/spec/size\",\"value\":5}]");
    assertEquals(422, failedTest.code());
    Http.Res smp = http.patch(W + "/w-patch", "application/strategic-merge-patch+json", "{}");
    assertEquals(415, smp.code());
    assertEquals("UnsupportedMediaType", smp.json().getString("reason"));
    assertEquals(404, http.patch(W + "/w-absent", "application/merge-patch+json", "{}").code());
    String apply = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w-apply\n  namespace: ns1\n"
        + "spec:\n  replicas: 2\n";
    Http.Res a1 = http.patch(W + "/w-apply?fieldManager=kubectl&force=false", "application/apply-patch+yaml", apply);
    assertEquals(201, a1.code(), a1.body());
    Http.Res a2 = http.patch(W + "/w-apply?fieldManager=kubectl&force=false", "application/apply-patch+yaml",
        apply.replace("replicas: 2", "replicas: 3"));
    assertEquals(200, a2.code(), a2.body());
    assertEquals(3, a2.json().getJsonObject("spec").getInteger("replicas"));
    assertEquals(400, http.patch(W + "/w-patch", "application/merge-patch+json", "{oops").code());
    // ValidateObjectMetaUpdate: a patch or an apply may repeat the uid, not change it
    String uid = a2.json().getJsonObject("metadata").getString("uid");
    Http.Res otherUid = http.patch(W + "/w-patch", "application/merge-patch+json", "{\"metadata\":{\"uid\":\"u-x\"}}");
    assertEquals(422, otherUid.code(), otherUid.body());
    assertEquals("Widget.example.com \"w-patch\" is invalid: metadata.uid: Invalid value: \"u-x\": field is immutable",
        otherUid.json().getString("message"));
    Http.Res applyOther = http.patch(W + "/w-apply?fieldManager=kubectl", "application/apply-patch+yaml",
        apply.replace("  namespace: ns1\n", "  namespace: ns1\n  uid: u-x\n"));
    assertEquals(422, applyOther.code(), applyOther.body());
    Http.Res applySame = http.patch(W + "/w-apply?fieldManager=kubectl", "application/apply-patch+yaml",
        apply.replace("  namespace: ns1\n", "  namespace: ns1\n  uid: " + uid + "\n").replace("replicas: 2", "replicas: 4"));
    assertEquals(200, applySame.code(), applySame.body());
    assertEquals(uid, applySame.json().getJsonObject("metadata").getString("uid"));
    // rest.BeforeUpdate + ValidateObjectMetaUpdate: an update may not start a deletion or set a grace period
    Http.Res setDeletion = http.patch(W + "/w-patch", "application/merge-patch+json",
        "{\"metadata\":{\"deletionTimestamp\":\"2026-12-07T11:00:00.5+02:00\",\"deletionGracePeriodSeconds\":30}}");
    assertEquals(422, setDeletion.code(), setDeletion.body());
    assertEquals("Widget.example.com \"w-patch\" is invalid: [metadata.deletionTimestamp: Invalid value: 2026-12-07 "
        + "09:00:00.5 +0000 UTC: field is immutable, metadata.deletionGracePeriodSeconds: Invalid value: 30: field is "
        + "immutable]", setDeletion.json().getString("message"));
    assertNull(http.get(W + "/w-patch").json().getJsonObject("metadata").getValue("deletionTimestamp"));
  }

  /** Once deleting, an update keeps the deletion timestamp whatever it sends, and the grace period unless it sends another. */
  @Test
  void deletionFieldsOfAnObjectBeingDeleted() throws Exception {
    JsonObject f = widget("w-deleting");
    f.getJsonObject("metadata").put("finalizers", new JsonArray().add("example.com/hold"));
    assertEquals(201, http.post(W, f).code());
    JsonObject marked = http.delete(W + "/w-deleting").json();
    String ts = marked.getJsonObject("metadata").getString("deletionTimestamp");
    assertNotNull(ts, marked.encode());
    Http.Res moved = http.patch(W + "/w-deleting", "application/merge-patch+json",
        "{\"metadata\":{\"deletionTimestamp\":\"2000-01-01T00:00:00Z\",\"labels\":{\"a\":\"b\"}}}");
    assertEquals(200, moved.code(), moved.body());
    assertEquals(ts, moved.json().getJsonObject("metadata").getString("deletionTimestamp"));
    Http.Res dropped = http.patch(W + "/w-deleting", "application/json-patch+json",
        "[{\"op\":\"remove\",\"path\":\"/metadata/deletionGracePeriodSeconds\"}]");
    assertEquals(200, dropped.code(), dropped.body());
    assertEquals(0, dropped.json().getJsonObject("metadata").getInteger("deletionGracePeriodSeconds"));
    Http.Res other = http.patch(W + "/w-deleting", "application/merge-patch+json",
        "{\"metadata\":{\"deletionGracePeriodSeconds\":5}}");
    assertEquals(422, other.code(), other.body());
    assertEquals("Widget.example.com \"w-deleting\" is invalid: metadata.deletionGracePeriodSeconds: Invalid value: "
        + "5: field is immutable", other.json().getString("message"));
    assertEquals(200, http.patch(W + "/w-deleting", "application/merge-patch+json",
        "{\"metadata\":{\"finalizers\":null}}").code());
  }

  /**
   * A GET with resourceVersion N reads not older than N (cacher.go Get): the current or an older revision is served at
   * once, one ahead of the store waits 3 s and is 504 Too large resource version; one that is not an unsigned integer
   * is the versioner's error as a 500 without reason.
   */
  @Test
  void getNotOlderThanAResourceVersion() throws Exception {
    JsonObject c = create("ns1", "w-getrv");
    String rv = c.getJsonObject("metadata").getString("resourceVersion");
    assertEquals(200, http.get(W + "/w-getrv?resourceVersion=" + rv).code());
    assertEquals(200, http.get(W + "/w-getrv?resourceVersion=1").code());
    long t0 = System.nanoTime();
    Http.Res ahead = http.get(W + "/w-getrv?resourceVersion=" + (Long.parseLong(rv) + 1_000_000));
    assertEquals(504, ahead.code(), ahead.body());
    assertTrue(ahead.json().getString("message").startsWith("Timeout: Too large resource version: "), ahead.body());
    assertTrue(System.nanoTime() - t0 >= 2_500_000_000L, "waited for the store first");
    Http.Res bad = http.get(W + "/w-getrv?resourceVersion=abc");
    assertEquals(500, bad.code(), bad.body());
    assertEquals("resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax",
        bad.json().getString("message"));
    assertFalse(bad.json().containsKey("reason"));
  }

  /** A duplicate field is named as Go's %q quotes it (the JSON decoder's strconv.Quote), an unknown one as "%s". */
  @Test
  void duplicateFieldWarningsQuoteAsGo() throws Exception {
    Http.Res r = http.send("POST", W, "application/json", "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\","
        + "\"metadata\":{\"name\":\"w-dupq\"},\"spec\":{\"q\\\"d\":1,\"q\\\"d\":2}}", "application/json");
    assertEquals(201, r.code(), r.body());
    assertEquals(List.of("299 - \"duplicate field \\\"spec.q\\\\\\\"d\\\"\""),
        r.raw().headers().allValues("Warning"));
  }

  /** Every request to a deprecated version warns (customresource_handler.go), whatever its answer. */
  @Test
  void requestsToADeprecatedVersionWarn() throws Exception {
    JsonObject crd = widgetManifests().get(0).copy();
    JsonObject spec = crd.getJsonObject("spec");
    spec.put("group", "deprecated.example.com");
    crd.getJsonObject("metadata").put("name", "widgets.deprecated.example.com");
    spec.getJsonArray("versions").getJsonObject(0).put("deprecated", true);
    node.addAll(List.of(crd));
    String base = "/apis/deprecated.example.com/v1/namespaces/ns1/widgets";
    String warning = "299 - \"deprecated.example.com/v1 Widget is deprecated; use deprecated.example.com/v2 Widget\"";
    Http.Res list = http.get(base);
    assertEquals(200, list.code(), list.body());
    assertEquals(warning, list.header("Warning"));
    assertEquals(warning, http.get(base + "/absent").header("Warning"));
    Http.Res noNamespace = http.get("/apis/deprecated.example.com/v1/widgets/absent");
    assertEquals(404, noNamespace.code());
    assertNull(noNamespace.header("Warning"), "a scope mismatch is handed on before the warning");
    assertNull(http.get("/apis/deprecated.example.com/v2/namespaces/ns1/widgets").header("Warning"));
  }

  /**
   * The field manager's checks of an apply configuration (managedfields versioncheck.go, structuredmerge.go Apply):
   * another version, another kind or none is {@code 400 invalid object type}, a configuration with managedFields
   * {@code 400 metadata.managedFields must be nil}; nothing is created or changed.
   */
  @Test
  void applyConfigurationsOfAnotherTypeOrWithManagedFieldsAre400() throws Exception {
    String path = W + "/w-apply-type?fieldManager=tester";
    String good = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w-apply-type\nspec:\n  replicas: 2\n";
    for (String[] row : new String[][] {
        {good.replace("example.com/v1", "example.com/v2"), "invalid object type: example.com/v2, Kind=Widget"},
        {good.replace("kind: Widget", "kind: Gadget"), "invalid object type: example.com/v1, Kind=Gadget"},
        {good.replace("apiVersion: example.com/v1\n", "").replace("kind: Widget\n", ""), "invalid object type: /, Kind="},
        {good.replace("example.com/v1", "a/b/c"), "invalid object type: /, Kind="},
        {good.replace("example.com/v1", "v1"), "invalid object type: /v1, Kind=Widget"},
        {good.replace("  name: w-apply-type\n", "  name: w-apply-type\n  managedFields:\n  - manager: x\n"),
            "metadata.managedFields must be nil"}}) {
      Http.Res r = http.patch(path, "application/apply-patch+yaml", row[0]);
      assertEquals(400, r.code(), row[0] + " -> " + r.body());
      assertEquals("BadRequest", r.json().getString("reason"));
      assertEquals(row[1], r.json().getString("message"));
    }
    assertEquals(404, http.get(W + "/w-apply-type").code(), "nothing created");
    Http.Res created = http.patch(path, "application/apply-patch+yaml",
        good.replace("  name: w-apply-type\n", "  name: w-apply-type\n  managedFields: null\n"));
    assertEquals(201, created.code(), created.body());
    // a uid in a configuration that creates: handlers/patch.go "uid mismatch" 409, nothing created
    Http.Res uid = http.patch(W + "/w-apply-uid?fieldManager=tester", "application/apply-patch+yaml",
        good.replace("w-apply-type", "w-apply-uid").replace("  name: w-apply-uid\n", "  name: w-apply-uid\n  uid: u-9\n"));
    assertEquals(409, uid.code(), uid.body());
    assertEquals("Operation cannot be fulfilled on widgets.example.com \"w-apply-uid\": uid mismatch: the provided "
        + "object specified uid u-9, and no existing object was found", uid.json().getString("message"));
    assertEquals(404, http.get(W + "/w-apply-uid").code());
    Http.Res other = http.patch(path, "application/apply-patch+yaml", good.replace("replicas: 2", "replicas: 3")
        .replace("kind: Widget", "kind: Gadget"));
    assertEquals(400, other.code(), other.body());
    assertEquals(2, http.get(W + "/w-apply-type").json().getJsonObject("spec").getInteger("replicas"));
    Http.Res status = http.patch(W + "/w-apply-type/status?fieldManager=tester", "application/apply-patch+yaml",
        good.replace("example.com/v1", "example.com/v2"));
    assertEquals(400, status.code(), status.body());
    assertEquals("invalid object type: example.com/v2, Kind=Widget", status.json().getString("message"));
  }

  /**
   * handlers/rest.go dedupOwnerReferences: exact duplicates of an owner reference are dropped with a warning naming
   * their uids (a create's and a PUT's text, and a patch's "after mutating admission" one); a reference with the same
   * uid but another field is kept; an exact duplicate of the controller reference is not a second controller.
   */
  @Test
  void duplicateOwnerReferencesAreDroppedWithAWarning() throws Exception {
    JsonObject owner = new JsonObject().put("apiVersion", "example.com/v1").put("kind", "Widget")
        .put("name", "o1").put("uid", "u-1").put("controller", true);
    JsonObject other = new JsonObject().put("apiVersion", "example.com/v1").put("kind", "Widget")
        .put("name", "o2").put("uid", "u-2");
    JsonObject w = widget("w-dedup");
    w.getJsonObject("metadata").put("ownerReferences", new JsonArray().add(owner).add(other).add(owner.copy())
        .add(other.copy().put("blockOwnerDeletion", null)).add(other.copy().put("blockOwnerDeletion", false)));
    Http.Res c = http.post(W, w);
    assertEquals(201, c.code(), c.body());
    assertEquals(new JsonArray().add(owner).add(other).add(other.copy().put("blockOwnerDeletion", false)),
        c.json().getJsonObject("metadata").getJsonArray("ownerReferences"));
    String tail = "API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; "
        + "please fix your requests; duplicate UID(s) observed: ";
    assertEquals("299 - \".metadata.ownerReferences contains duplicate entries; " + tail + "u-1, u-2\"",
        c.header("Warning"));
    JsonObject put = c.json();
    put.getJsonObject("metadata").getJsonArray("ownerReferences").add(other.copy());
    Http.Res u = http.put(W + "/w-dedup", put);
    assertEquals(200, u.code(), u.body());
    assertEquals(3, u.json().getJsonObject("metadata").getJsonArray("ownerReferences").size());
    assertEquals("299 - \".metadata.ownerReferences contains duplicate entries; " + tail + "u-2\"",
        u.header("Warning"));
    Http.Res p = http.patch(W + "/w-dedup", "application/json-patch+json",
        "[{\"op\":\"add\",\"path\":\"/metadata/ownerReferences/-\",\"value\":" + owner.encode() + "}]");
    assertEquals(200, p.code(), p.body());
    assertEquals(3, p.json().getJsonObject("metadata").getJsonArray("ownerReferences").size());
    assertEquals("299 - \".metadata.ownerReferences contains duplicate entries after mutating admission happens; "
        + tail + "u-1\"", p.header("Warning"));
    Http.Res same = http.patch(W + "/w-dedup", "application/merge-patch+json", "{}");
    assertEquals(200, same.code(), same.body());
    assertNull(same.header("Warning"));
    // a Scale is deduplicated and warned about too (update.go, patch.go), then only its replicas are taken
    Http.Res scale = http.get(W + "/w-dedup/scale");
    assertEquals(200, scale.code(), scale.body());
    JsonObject sc = scale.json();
    sc.getJsonObject("metadata").put("ownerReferences", new JsonArray().add(other).add(other.copy()));
    Http.Res scalePut = http.put(W + "/w-dedup/scale", sc);
    assertEquals(200, scalePut.code(), scalePut.body());
    assertEquals("299 - \".metadata.ownerReferences contains duplicate entries; " + tail + "u-2\"",
        scalePut.header("Warning"));
    Http.Res scalePatch = http.patch(W + "/w-dedup/scale", "application/merge-patch+json",
        "{\"metadata\":{\"ownerReferences\":[" + owner.encode() + "," + owner.encode() + "]}}");
    assertEquals(200, scalePatch.code(), scalePatch.body());
    assertEquals("299 - \".metadata.ownerReferences contains duplicate entries after mutating admission happens; "
        + tail + "u-1\"", scalePatch.header("Warning"));
    assertEquals(3, http.get(W + "/w-dedup").json().getJsonObject("metadata").getJsonArray("ownerReferences")
        .size(), "the object's own references are not the Scale's");
  }

  /** store.go DeleteCollection: an item's failed delete (here its precondition) is the answer, not an empty list. */
  @Test
  void deleteCollectionAnswersAnItemsError() throws Exception {
    create("dc1", "w-a");
    create("dc1", "w-b");
    String coll = "/apis/example.com/v1/namespaces/dc1/widgets";
    Http.Res r = http.send("DELETE", coll, "application/json", "{\"preconditions\":{\"uid\":\"x\"}}",
        "application/json");
    assertEquals(409, r.code(), r.body());
    assertTrue(r.json().getString("message").startsWith("Operation cannot be fulfilled on Widget.example.com \"w-"),
        r.body());
    assertEquals(2, http.get(coll).json().getJsonArray("items").size(), "nothing deleted");
    Http.Res all = http.send("DELETE", coll, null, null, "application/json");
    assertEquals(200, all.code(), all.body());
    assertEquals(2, all.json().getJsonArray("items").size());
  }

  @Test
  void deleteAndFinalizers() throws Exception {
    JsonObject c = create("ns1", "w-del");
    Http.Res pre = http.send("DELETE", W + "/w-del", "application/json",
        "{\"preconditions\":{\"uid\":\"other\"}}", "application/json");
    assertEquals(409, pre.code());
    assertEquals("Operation cannot be fulfilled on Widget.example.com \"w-del\": the UID in the precondition (other) "
        + "does not match the UID in record (" + c.getJsonObject("metadata").getString("uid") + "). The object might "
        + "have been deleted and then recreated", pre.json().getString("message"), "rest.BeforeDelete's text");
    assertEquals("Widget", pre.json().getJsonObject("details").getString("kind"));
    Http.Res d = http.delete(W + "/w-del");
    assertEquals(200, d.code());
    assertEquals("Success", d.json().getString("status"));
    assertEquals(c.getJsonObject("metadata").getString("uid"), d.json().getJsonObject("details").getString("uid"));
    assertEquals(404, http.get(W + "/w-del").code());
    assertEquals(404, http.delete(W + "/w-del").code());

    JsonObject f = widget("w-fin");
    f.getJsonObject("metadata").put("finalizers", new JsonArray().add("example.com/keep"));
    assertEquals(201, http.post(W, f).code());
    Http.Res d1 = http.delete(W + "/w-fin");
    assertEquals(200, d1.code());
    assertNotNull(d1.json().getJsonObject("metadata").getString("deletionTimestamp"));
    Http.Res still = http.get(W + "/w-fin");
    assertEquals(200, still.code());
    assertNotNull(still.json().getJsonObject("metadata").getString("deletionTimestamp"));
    Http.Res release = http.patch(W + "/w-fin", "application/merge-patch+json",
        "{\"metadata\":{\"finalizers\":null}}");
    assertEquals(200, release.code(), release.body());
    assertEquals(404, http.get(W + "/w-fin").code());
    // a re-create after delete works (tombstones are not objects)
    assertEquals(201, http.post(W, widget("w-del")).code());
  }

  @Test
  void deletePropagationSetsGcFinalizers() throws Exception {
    create("ns1", "w-fg");
    Http.Res fg = http.send("DELETE", W + "/w-fg", "application/json", "{\"propagationPolicy\":\"Foreground\"}",
        "application/json");
    assertEquals(200, fg.code(), fg.body());
    JsonObject md = http.get(W + "/w-fg").json().getJsonObject("metadata");
    assertEquals(new JsonArray().add("foregroundDeletion"), md.getJsonArray("finalizers"));
    assertNotNull(md.getString("deletionTimestamp"));
    // the garbage collector's finalizer removal: JSON patch guarded by uid and resourceVersion tests
    String guard = "[{\"op\":\"test\",\"path\":\"/metadata/uid\",\"value\":\"" + md.getString("uid") + "\"},"
        + "{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"" + md.getString("resourceVersion")
        + "\"},{\"op\":\"remove\",\"path\":\"/metadata/finalizers\"}]";
    Http.Res stale = http.patch(W + "/w-fg", "application/json-patch+json", guard.replace(md.getString("uid"), "x"));
    assertTrue(stale.code() >= 400, stale.body());
    assertEquals(200, http.patch(W + "/w-fg", "application/json-patch+json", guard).code());
    assertEquals(404, http.get(W + "/w-fg").code());

    create("ns1", "w-orphan");
    assertEquals(200, http.send("DELETE", W + "/w-orphan", "application/json", "{\"orphanDependents\":true}",
        "application/json").code());
    assertEquals(new JsonArray().add("orphan"), http.get(W + "/w-orphan").json().getJsonObject("metadata")
        .getJsonArray("finalizers"));
    // a later Background delete drops the orphan finalizer, and with it the object
    assertEquals(200, http.send("DELETE", W + "/w-orphan", "application/json",
        "{\"propagationPolicy\":\"Background\"}", "application/json").code());
    assertEquals(404, http.get(W + "/w-orphan").code());

    create("ns1", "w-bad");
    Http.Res bad = http.send("DELETE", W + "/w-bad", "application/json", "{\"propagationPolicy\":\"Sideways\"}",
        "application/json");
    assertEquals(422, bad.code());
    assertEquals("DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"Sideways\": "
        + "supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"", bad.json().getString("message"));
    assertEquals(200, http.get(W + "/w-bad").code());
  }

  /** DeleteOptions as query parameters (no body), as the Python client and curl send them; a body wins. */
  @Test
  void deleteOptionsFromQuery() throws Exception {
    String q = "/apis/example.com/v1/namespaces/dq/widgets";
    create("dq", "q-orphan");
    Http.Res orphan = http.send("DELETE", q + "/q-orphan?propagationPolicy=Orphan", null, null, "application/json");
    assertEquals(200, orphan.code(), orphan.body());
    assertEquals(new JsonArray().add("orphan"), http.get(q + "/q-orphan").json().getJsonObject("metadata")
        .getJsonArray("finalizers"));
    create("dq", "q-keep");
    String sideways = "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: "
        + "\"Sideways\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"";
    for (String path : List.of(q + "/q-keep", q)) {
      Http.Res bad = http.send("DELETE", path + "?propagationPolicy=Sideways", null, null, "application/json");
      assertEquals(422, bad.code(), bad.body());
      assertEquals(sideways, bad.json().getString("message"));
      assertEquals("DeleteOptions", bad.json().getJsonObject("details").getString("kind"));
      Http.Res grace = http.send("DELETE", path + "?gracePeriodSeconds=abc", null, null, "application/json");
      assertEquals(400, grace.code(), grace.body());
      assertEquals("strconv.ParseInt: parsing \"abc\": invalid syntax", grace.json().getString("message"));
      Http.Res both = http.send("DELETE", path + "?orphanDependents=true&propagationPolicy=Orphan", null, null,
          "application/json");
      assertEquals(422, both.code(), both.body());
      assertEquals("DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Invalid value: \"Orphan\": "
          + "orphanDependents and deletionPropagation cannot be both set", both.json().getString("message"));
      assertEquals(200, http.send("DELETE", path + "?dryRun=All&gracePeriodSeconds=0", null, null,
          "application/json").code());
      assertEquals(200, http.get(q + "/q-keep").code(), "nothing deleted by " + path);
    }
    // with a body the query is not read (apiserver's delete.go decodes one or the other)
    Http.Res body = http.send("DELETE", q + "/q-keep?propagationPolicy=Sideways&dryRun=All", "application/json",
        "{\"propagationPolicy\":\"Background\"}", "application/json");
    assertEquals(200, body.code(), body.body());
    assertEquals(404, http.get(q + "/q-keep").code());
    // deletecollection: the query's policy reaches every object
    create("dq", "q-c1");
    Http.Res all = http.send("DELETE", q + "?propagationPolicy=Orphan&labelSelector=", null, null,
        "application/json");
    assertEquals(200, all.code(), all.body());
    assertEquals(new JsonArray().add("orphan"), http.get(q + "/q-c1").json().getJsonObject("metadata")
        .getJsonArray("finalizers"));
  }

  @Test
  void listPagingAndSelectors() throws Exception {
    String base = "/apis/example.com/v1/namespaces/pg/widgets";
    for (String n : new String[] {"a", "b", "c"}) {
      JsonObject w = widget(n);
      w.getJsonObject("metadata").put("labels", new JsonObject().put("tier", n.equals("c") ? "db" : "web")
          .put("name", n));
      assertEquals(201, http.post(base, w).code());
    }
    Http.Res p1 = http.get(base + "?limit=1");
    assertEquals(1, p1.json().getJsonArray("items").size());
    String cont = p1.json().getJsonObject("metadata").getString("continue");
    assertNotNull(cont);
    assertEquals(2, p1.json().getJsonObject("metadata").getInteger("remainingItemCount"));
    Http.Res p2 = http.get(base + "?limit=1&continue=" + cont);
    assertEquals("b", p2.json().getJsonArray("items").getJsonObject(0).getJsonObject("metadata").getString("name"));
    Http.Res p3 = http.get(base + "?limit=5&continue=" + p2.json().getJsonObject("metadata").getString("continue"));
    assertEquals(1, p3.json().getJsonArray("items").size());
    assertNull(p3.json().getJsonObject("metadata").getString("continue"));
    assertEquals(400, http.get(base + "?continue=garbage").code());
    assertEquals(2, count(base + "?labelSelector=tier%3Dweb"));
    assertEquals(2, count(base + "?labelSelector=tier%3D%3Dweb"));
    assertEquals(1, count(base + "?labelSelector=tier!%3Dweb"));
    assertEquals(2, count(base + "?labelSelector=name%20in%20(a,c)"));
    assertEquals(1, count(base + "?labelSelector=name%20notin%20(a,c)"));
    assertEquals(3, count(base + "?labelSelector=tier"));
    assertEquals(0, count(base + "?labelSelector=!tier"));
    assertEquals(1, count(base + "?labelSelector=tier%3Dweb,name%3Db"));
    assertEquals(400, http.get(base + "?labelSelector=a%20in%20(").code());
    assertEquals(1, count(base + "?fieldSelector=metadata.name%3Db"));
    assertEquals(2, count(base + "?fieldSelector=metadata.name!%3Db"));
    assertEquals(400, http.get(base + "?fieldSelector=spec.color%3Dred").code());
    assertEquals(3, count("/apis/example.com/v1/widgets?fieldSelector=metadata.namespace%3Dpg"));
    Http.Res dc = http.send("DELETE", base + "?labelSelector=tier%3Dweb", null, null, "application/json");
    assertEquals(200, dc.code(), dc.body());
    assertEquals(2, dc.json().getJsonArray("items").size());
    assertEquals(1, count(base));
  }

  private int count(String path) throws Exception {
    Http.Res r = http.get(path);
    assertEquals(200, r.code(), r.body());
    return r.json().getJsonArray("items").size();
  }

  @Test
  void clusterScoped() throws Exception {
    String g = "/apis/example.com/v1/gadgets";
    JsonObject o = new JsonObject().put("apiVersion", "example.com/v1").put("kind", "Gadget")
        .put("metadata", new JsonObject().put("name", "g1").put("namespace", "ignored"));
    Http.Res c = http.post(g, o);
    assertEquals(201, c.code(), c.body());
    assertNull(c.json().getJsonObject("metadata").getString("namespace"));
    assertEquals(200, http.get(g + "/g1").code());
    assertEquals(1, count(g));
    assertEquals(404, http.get("/apis/example.com/v1/gadgets/g1/status").code());
    assertEquals(200, http.delete(g + "/g1").code());
  }

  @Test
  void fabric8RequestSequenceFromCapture() throws Exception {
    String f8 = "/apis/example.com/v1/namespaces/f8/widgets";
    String json = "application/json; charset=utf-8";
    assertEquals(200, http.send("GET", f8, null, null, null).code());
    Http.Res c = http.send("POST", f8, json, "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\","
        + "\"metadata\":{\"name\":\"f8-w\",\"namespace\":\"f8\"},\"spec\":{\"replicas\":1}}", null);
    assertEquals(201, c.code(), c.body());
    String rv = c.json().getJsonObject("metadata").getString("resourceVersion");
    Http.Res ssa = http.send("PATCH", f8 + "/f8-w2?fieldManager=fabric8&force=true",
        "application/apply-patch+yaml; charset=utf-8", "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\","
        + "\"metadata\":{\"name\":\"f8-w2\",\"namespace\":\"f8\"}}", null);
    assertEquals(201, ssa.code(), ssa.body());
    Http.Res edit = http.send("PATCH", f8 + "/f8-w", "application/json-patch+json; charset=utf-8",
        "[{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{\"a\":\"b\"}},"
        + "{\"op\":\"add\",\"path\":\"/metadata/resourceVersion\",\"value\":\"" + rv + "\"}]", null);
    assertEquals(200, edit.code(), edit.body());
    Http.Res del = http.send("DELETE", f8 + "/f8-w", json,
        "{\"apiVersion\":\"v1\",\"kind\":\"DeleteOptions\",\"propagationPolicy\":\"Background\"}", null);
    assertEquals(200, del.code(), del.body());
    assertEquals(404, http.send("GET", f8 + "/nope", null, null, null).code());
    Http.Res dup = http.send("POST", f8, json, "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\","
        + "\"metadata\":{\"name\":\"f8-w2\",\"namespace\":\"f8\"}}", null);
    assertEquals(409, dup.code());
  }

  @Test
  void serverSideApplyRemovesFieldsTheManagerDropped() throws Exception {
    String path = W + "/w-ssa?fieldManager=kubectl&force=false";
    String v1 = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w-ssa\n  labels:\n    x: y\n"
        + "spec:\n  replicas: 2\n  color: red\n";
    assertEquals(201, http.patch(path, "application/apply-patch+yaml", v1).code());
    Http.Res other = http.patch(W + "/w-ssa", "application/merge-patch+json", "{\"spec\":{\"size\":9}}");
    assertEquals(200, other.code());
    String v2 = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w-ssa\nspec:\n  replicas: 3\n";
    Http.Res r = http.patch(path, "application/apply-patch+yaml", v2);
    assertEquals(200, r.code(), r.body());
    JsonObject spec = r.json().getJsonObject("spec");
    assertEquals(3, spec.getInteger("replicas"));
    assertFalse(spec.containsKey("color"), "dropped by its manager");
    assertEquals(9, spec.getInteger("size"), "set by another writer: kept");
    assertNull(r.json().getJsonObject("metadata").getJsonObject("labels"));
    JsonArray mf = r.json().getJsonObject("metadata").getJsonArray("managedFields");
    assertEquals("kubectl", mf.getJsonObject(0).getString("manager"));
    assertEquals("Apply", mf.getJsonObject(0).getString("operation"));
    assertTrue(mf.getJsonObject(0).getJsonObject("fieldsV1").getJsonObject("f:spec").containsKey("f:replicas"));
  }
}
