package io.mvproxy.crd;

import io.mvproxy.registry.impl.CrdSourceOptions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.registry.impl.rest.ObjectBounds;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Bad input against one CRD node (real Hazelcast, real HTTP): each case answers a Status with kube-apiserver's code
 * and text, and nothing is stored; the deepest object the bounds allow is read back in every format.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("unit")
class InputBoundsTest {
  static final String W = "/apis/example.com/v1/namespaces/nsb/widgets";
  @AutoClose
  TestNode node;
  Http http;

  @BeforeAll
  void start() throws Exception {
    node = TestNode.withOwnMember(CrdSourceOptions.DEFAULTS);
    node.addAll(CrdRestTest.widgetManifests());
    http = new Http(node.base());
  }

  /** An object whose nesting depth (the object itself is level 1) is exactly {@code depth}. */
  static JsonObject nested(String name, int depth) {
    JsonObject leaf = new JsonObject().put("v", 1);
    JsonObject cur = leaf;
    for (int d = 2; d < depth; d++) {
      cur = new JsonObject().put("a", cur);
    }
    return new JsonObject().put("apiVersion", "example.com/v1").put("kind", "Widget")
        .put("metadata", new JsonObject().put("name", name)).put("spec", cur);
  }

  void assertAbsent(String name) throws Exception {
    assertEquals(404, http.get(W + "/" + name).code());
  }

  static String brief(Http.Res r) {
    return r.code() + " " + (r.body().length() > 300 ? r.body().substring(0, 300) + "..." : r.body());
  }

  @Test
  void deepestAllowedObjectReadsBackInEveryFormat() throws Exception {
    String W = "/apis/example.com/v1/namespaces/nsdeep/widgets";
    JsonObject deep = nested("deep", ObjectBounds.MAX_DEPTH);
    Http.Res c = http.post(W, deep);
    assertEquals(201, c.code(), () -> brief(c));
    JsonObject got = http.get(W + "/deep").json();
    assertEquals(deep.getJsonObject("spec"), got.getJsonObject("spec"));
    Http.Res list = http.get(W);
    assertEquals(200, list.code(), () -> brief(list));
    assertEquals(deep.getJsonObject("spec"), list.json().getJsonArray("items").getJsonObject(0).getJsonObject("spec"));
    for (String inc : new String[] {"Metadata", "Object"}) {
      Http.Res table = http.get(W + "?includeObject=" + inc, "application/json;as=Table;v=v1;g=meta.k8s.io");
      assertEquals(200, table.code(), () -> brief(table));
      assertEquals("deep", table.json().getJsonArray("rows").getJsonObject(0).getJsonArray("cells").getString(0));
    }
    try (Http.Watch w = http.new Watch(W + "?watch=True&fieldSelector=metadata.name%3Ddeep", "application/json")) {
      assertEquals(200, w.code);
      JsonObject e = w.next(20);
      assertEquals("ADDED", e.getString("type"));
      assertEquals(deep.getJsonObject("spec"), e.getJsonObject("object").getJsonObject("spec"));
    }
  }

  @Test
  void tooDeepIsInvalidAndNotStored() throws Exception {
    Http.Res r = http.post(W, nested("too-deep", ObjectBounds.MAX_DEPTH + 1));
    assertEquals(422, r.code(), () -> brief(r));
    assertTrue(r.json().getString("message").contains("must have at most " + ObjectBounds.MAX_DEPTH
        + " levels of nesting"), r.body());
    assertAbsent("too-deep");
    String body = "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"way-too-deep\"},"
        + "\"spec\":" + "{\"a\":".repeat(1200) + "1" + "}".repeat(1200) + "}";
    Http.Res parse = http.send("POST", W, "application/json", body, "application/json");
    assertEquals(400, parse.code(), () -> brief(parse));
    assertAbsent("way-too-deep");
  }

  @Test
  void tooLargeIs413() throws Exception {
    JsonObject o = CrdRestTest.widget("big");
    o.getJsonObject("spec").put("blob", "x".repeat(ObjectBounds.MAX_OBJECT_BYTES));
    Http.Res r = http.post(W, o);
    assertEquals(413, r.code(), r.body());
    assertEquals("RequestEntityTooLarge", r.json().getString("reason"));
    assertAbsent("big");
  }

  @Test
  void contentTypeIsChecked() throws Exception {
    Http.Res r = http.send("POST", W, "text/plain", CrdRestTest.widget("plain").encode(), "application/json");
    assertEquals(415, r.code(), r.body());
    assertEquals("the body of the request was in an unknown format - accepted media types include: "
        + "application/json, application/yaml", r.json().getString("message"));
    assertAbsent("plain");
    Http.Res yaml = http.send("POST", W, "application/yaml",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: from-yaml}\nspec: {color: &c red, other: *c}\n",
        "application/json");
    assertEquals(201, yaml.code(), yaml.body());
    assertEquals("red", yaml.json().getJsonObject("spec").getString("other"));
  }

  @Test
  void duplicateFieldsStrictAndWarn() throws Exception {
    String body = "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"%s\"},"
        + "\"spec\":{\"color\":\"red\",\"color\":\"blue\"}}";
    Http.Res strict = http.send("POST", W + "?fieldValidation=Strict", "application/json", body.formatted("dup-s"),
        "application/json");
    assertEquals(400, strict.code(), strict.body());
    assertEquals("Widget in version \"v1\" cannot be handled as a Widget: strict decoding error: duplicate field "
        + "\"spec.color\"", strict.json().getString("message"));
    assertAbsent("dup-s");
    Http.Res loud = http.send("POST", W + "?fieldValidation=Loud", "application/json", body.formatted("dup-l"),
        "application/json");
    assertEquals(422, loud.code(), loud.body());
    assertEquals("CreateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value: \"Loud\": supported "
        + "values: \"\", \"Ignore\", \"Strict\", \"Warn\"", loud.json().getString("message"));
    // upstream's allowed set includes "" (validation.go allowedFieldValidationValues), and NotSupported lists it
    Http.Res warn = http.send("POST", W, "application/json", body.formatted("dup-w"), "application/json");
    assertEquals(201, warn.code(), warn.body());
    assertEquals("299 - \"duplicate field \\\"spec.color\\\"\"", warn.header("Warning"));
    assertEquals("blue", warn.json().getJsonObject("spec").getString("color"));
  }

  /**
   * A YAML body with a repeated key, as kube's YAML serializer: YAMLToJSON keeps the last value; with Strict
   * YAMLToJSONStrict's error is the strict decoding error (go-yaml's text, the repeat's line); with Warn its warning
   * has newlines, which kube-apiserver's warning recorder drops (control characters); Ignore takes it.
   */
  @Test
  void yamlBodiesWithARepeatedKey() throws Exception {
    String yaml = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: %s}\nspec:\n  color: red\n  color: blue\n";
    Http.Res strict = http.send("POST", W + "?fieldValidation=Strict", "application/yaml", yaml.formatted("ydup-s"),
        "application/json");
    assertEquals(400, strict.code(), strict.body());
    assertEquals("Widget in version \"v1\" cannot be handled as a Widget: strict decoding error: error converting YAML to "
        + "JSON: yaml: unmarshal errors:\n  line 6: key \"color\" already set in map", strict.json().getString("message"));
    assertAbsent("ydup-s");
    for (String mode : List.of("", "?fieldValidation=Ignore")) {
      String name = mode.isEmpty() ? "ydup-w" : "ydup-i";
      Http.Res r = http.send("POST", W + mode, "application/yaml", yaml.formatted(name), "application/json");
      assertEquals(201, r.code(), r.body());
      assertEquals(null, r.header("Warning"), "a warning with newlines is not sent");
      assertEquals("blue", r.json().getJsonObject("spec").getString("color"), "the last value");
    }
  }

  /**
   * A patch body's own strict problems (patch.go applyJSPatch: kjson.UnmarshalStrict into []jsonPatchOp, each error
   * prefixed "json patch "; a merge patch's duplicate fields): Strict is the 422 on field patch naming the patched
   * object, Warn a warning each, Ignore nothing (and json-patch's own decoding texts).
   */
  @Test
  void patchBodiesOwnStrictProblems() throws Exception {
    assertEquals(201, http.post(W, CrdRestTest.widget("jp-strict")).code());
    String path = W + "/jp-strict";
    String jp = "[{\"op\":\"replace\",\"path\":\"/spec/color\",\"value\":\"blue\",\"foo\":1}]";
    Http.Res strict = http.patch(path + "?fieldValidation=Strict", "application/json-patch+json", jp);
    assertEquals(422, strict.code(), strict.body());
    String msg = strict.json().getString("message");
    assertTrue(msg.startsWith(" \"\" is invalid: patch: Invalid value: \"{"), msg);
    assertTrue(msg.endsWith("\": strict decoding error: json patch unknown field \"[0].foo\""), msg);
    assertEquals("patch", strict.json().getJsonObject("details").getJsonArray("causes").getJsonObject(0)
        .getString("field"));
    assertEquals("red", http.get(path).json().getJsonObject("spec").getString("color"), "not stored");
    Http.Res warn = http.patch(path, "application/json-patch+json", jp);
    assertEquals(200, warn.code(), warn.body());
    assertEquals("299 - \"json patch unknown field \\\"[0].foo\\\"\"", warn.header("Warning"));
    assertEquals("blue", warn.json().getJsonObject("spec").getString("color"));
    Http.Res dupOp = http.patch(path, "application/json-patch+json",
        "[{\"op\":\"add\",\"op\":\"replace\",\"path\":\"/spec/color\",\"value\":\"green\"}]");
    assertEquals(200, dupOp.code(), dupOp.body());
    assertEquals("299 - \"json patch duplicate field \\\"[0].op\\\"\"", dupOp.header("Warning"));
    Http.Res ignore = http.patch(path + "?fieldValidation=Ignore", "application/json-patch+json", jp);
    assertEquals(200, ignore.code(), ignore.body());
    assertEquals(null, ignore.header("Warning"));
    Http.Res mergeDup = http.patch(path, "application/merge-patch+json",
        "{\"spec\":{\"color\":\"red\",\"color\":\"green\"}}");
    assertEquals(200, mergeDup.code(), mergeDup.body());
    assertEquals("299 - \"duplicate field \\\"spec.color\\\"\"", mergeDup.header("Warning"));
    assertEquals("green", mergeDup.json().getJsonObject("spec").getString("color"));
    // fieldValidation=Ignore skips kjson: json-patch's DecodePatch texts, without "error decoding patch: "
    Http.Res notList = http.patch(path + "?fieldValidation=Ignore", "application/json-patch+json", "{}");
    assertEquals(400, notList.code(), notList.body());
    assertEquals("json: cannot unmarshal object into Go value of type jsonpatch.Patch",
        notList.json().getString("message"));
    Http.Res notOp = http.patch(path + "?fieldValidation=Ignore", "application/json-patch+json", "[5]");
    assertEquals("json: cannot unmarshal number into Go value of type jsonpatch.Operation",
        notOp.json().getString("message"));
    Http.Res badOp = http.patch(path + "?fieldValidation=Ignore", "application/json-patch+json", "[{\"op\":5}]");
    assertEquals(422, badOp.code(), badOp.body());
  }

  @Test
  void numbersOutOfRangeAreRefused() throws Exception {
    String body = "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"inf\"},"
        + "\"spec\":{\"n\":1e999999}}";
    Http.Res r = http.send("POST", W, "application/json", body, "application/json");
    assertEquals(400, r.code(), r.body());
    assertTrue(r.json().getString("message").contains("value out of range"), r.body());
    assertAbsent("inf");
    Http.Res big = http.send("POST", W, "application/json", body.replace("1e999999", "123456789012345678901234567890")
        .replace("\"inf\"", "\"bigint\""), "application/json");
    assertEquals(201, big.code(), big.body());
  }

  @Test
  void prettyAcceptAndNames() throws Exception {
    assertEquals(201, http.post(W, CrdRestTest.widget("pretty")).code());
    Http.Res p = http.get(W + "/pretty?pretty=true");
    assertTrue(p.body().startsWith("{\n  \"apiVersion\": \"example.com/v1\",\n"), p.body());
    Http.Res proto = http.get(W + "/pretty", "application/vnd.kubernetes.protobuf");
    assertEquals(406, proto.code(), proto.body());
    assertEquals("only the following media types are accepted: application/json, application/yaml",
        proto.json().getString("message"));
    Http.Res pct = http.get(W + "/a%25b");
    assertEquals(400, pct.code(), pct.body());
    assertEquals("Name parameter invalid: \"a%b\": may not contain '%'", pct.json().getString("message"));
    Http.Res dotdot = http.post("/apis/example.com/v1/namespaces/%2E%2E/widgets", CrdRestTest.widget("dots"));
    assertEquals(422, dotdot.code(), dotdot.body());
  }

  @Test
  void serverSideApplyConflictsBetweenManagers() throws Exception {
    String cfg = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: ssa\nspec:\n  color: %s\n";
    String path = W + "/ssa?fieldManager=%s";
    assertEquals(201, http.patch(path.formatted("alice"), "application/apply-patch+yaml", cfg.formatted("red")).code());
    assertEquals(200, http.patch(path.formatted("bob"), "application/apply-patch+yaml", cfg.formatted("red")).code(),
        "same value: shared ownership, no conflict");
    Http.Res c = http.patch(path.formatted("carol"), "application/apply-patch+yaml", cfg.formatted("blue"));
    assertEquals(409, c.code(), c.body());
    JsonObject s = c.json();
    assertEquals("Conflict", s.getString("reason"));
    assertEquals("Apply failed with 2 conflicts: conflicts with \"alice\":\n- .spec.color\nconflicts with \"bob\":\n"
        + "- .spec.color", s.getString("message"));
    Http.Res forced = http.patch(path.formatted("carol") + "&force=true", "application/apply-patch+yaml",
        cfg.formatted("blue"));
    assertEquals(200, forced.code(), forced.body());
    assertEquals("blue", forced.json().getJsonObject("spec").getString("color"));
    JsonArray mf = forced.json().getJsonObject("metadata").getJsonArray("managedFields");
    assertEquals(1, mf.size(), mf.encode());
    Http.Res again = http.patch(path.formatted("alice"), "application/apply-patch+yaml", cfg.formatted("green"));
    assertEquals(409, again.code(), again.body());
    assertEquals("Apply failed with 1 conflict: conflict with \"carol\": .spec.color",
        again.json().getString("message"));
  }

  @Test
  void serverSideApplyConflictsWithUpdateManagers() throws Exception {
    JsonObject w = new JsonObject().put("apiVersion", "example.com/v1").put("kind", "Widget")
        .put("metadata", new JsonObject().put("name", "csa")).put("spec", new JsonObject().put("color", "red")
            .put("size", 1));
    Http.Res c = http.post(W + "?fieldManager=kubectl-client-side-apply", w);
    assertEquals(201, c.code(), c.body());
    JsonArray mf = c.json().getJsonObject("metadata").getJsonArray("managedFields");
    assertEquals(1, mf.size(), mf.encode());
    assertEquals("kubectl-client-side-apply", mf.getJsonObject(0).getString("manager"));
    assertEquals("Update", mf.getJsonObject(0).getString("operation"));
    assertEquals("example.com/v1", mf.getJsonObject(0).getString("apiVersion"));
    assertEquals(new JsonObject().put("f:spec", new JsonObject().put("f:color", new JsonObject())
        .put("f:size", new JsonObject())), mf.getJsonObject(0).getJsonObject("fieldsV1"));

    String cfg = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: csa\nspec:\n  color: %s\n";
    String path = W + "/csa?fieldManager=kubectl";
    Http.Res conflict = http.patch(path, "application/apply-patch+yaml", cfg.formatted("blue"));
    assertEquals(409, conflict.code(), conflict.body());
    assertEquals("Apply failed with 1 conflict: conflict with \"kubectl-client-side-apply\" using example.com/v1:"
        + " .spec.color", conflict.json().getString("message"));
    JsonObject cause = conflict.json().getJsonObject("details").getJsonArray("causes").getJsonObject(0);
    assertEquals("FieldManagerConflict", cause.getString("reason"));
    assertEquals("conflict with \"kubectl-client-side-apply\" using example.com/v1", cause.getString("message"));
    assertEquals(".spec.color", cause.getString("field"));
    assertEquals("red", http.get(W + "/csa").json().getJsonObject("spec").getString("color"), "nothing stored");

    Http.Res same = http.patch(path, "application/apply-patch+yaml", cfg.formatted("red"));
    assertEquals(200, same.code(), same.body());

    Http.Res merge = http.patch(W + "/csa", "application/merge-patch+json", "{\"spec\":{\"size\":2}}");
    assertEquals(200, merge.code(), merge.body());
    JsonArray after = merge.json().getJsonObject("metadata").getJsonArray("managedFields");
    assertEquals("kubectl/Apply", managers(after).get(0), "Apply entries first");
    assertEquals(java.util.Set.of("kubectl-client-side-apply/Update", "Java-http-client/Update"),
        java.util.Set.copyOf(managers(after).subList(1, after.size())));
    assertEquals(new JsonObject().put("f:spec", new JsonObject().put("f:color", new JsonObject())),
        entry(after, "kubectl-client-side-apply").getJsonObject("fieldsV1"),
        "size went to the merge patch's manager (User-Agent)");
    assertEquals(new JsonObject().put("f:spec", new JsonObject().put("f:size", new JsonObject())),
        entry(after, "Java-http-client").getJsonObject("fieldsV1"));
    String rv = merge.json().getJsonObject("metadata").getString("resourceVersion");
    Http.Res noop = http.patch(W + "/csa", "application/merge-patch+json", "{\"spec\":{\"size\":2}}");
    assertEquals(rv, noop.json().getJsonObject("metadata").getString("resourceVersion"), "a no-op writes nothing");

    Http.Res forced = http.patch(path + "&force=true", "application/apply-patch+yaml", cfg.formatted("blue"));
    assertEquals(200, forced.code(), forced.body());
    assertEquals("blue", forced.json().getJsonObject("spec").getString("color"));
    assertEquals(List.of("kubectl/Apply", "Java-http-client/Update"),
        managers(forced.json().getJsonObject("metadata").getJsonArray("managedFields")),
        "the client-side manager lost its last field and is gone");

    Http.Res update = http.patch(W + "/csa?fieldManager=kubectl-edit", "application/merge-patch+json",
        "{\"spec\":{\"color\":\"green\"}}");
    assertEquals(200, update.code(), update.body());
    Http.Res back = http.patch(path, "application/apply-patch+yaml", cfg.formatted("blue"));
    assertEquals(409, back.code(), back.body());
    assertEquals("Apply failed with 1 conflict: conflict with \"kubectl-edit\" using example.com/v1: .spec.color",
        back.json().getString("message"));
  }

  private static JsonObject entry(JsonArray mf, String manager) {
    for (Object o : mf) {
      if (manager.equals(((JsonObject) o).getString("manager"))) {
        return (JsonObject) o;
      }
    }
    throw new AssertionError(manager + " not in " + mf.encode());
  }

  private static List<String> managers(JsonArray mf) {
    List<String> out = new java.util.ArrayList<>();
    for (Object o : mf) {
      out.add(((JsonObject) o).getString("manager") + "/" + ((JsonObject) o).getString("operation"));
    }
    return out;
  }
}
