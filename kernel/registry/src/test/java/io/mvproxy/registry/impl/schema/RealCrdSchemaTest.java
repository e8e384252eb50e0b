package io.mvproxy.registry.impl.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.registry.impl.CrdManifests;
import io.mvproxy.registry.impl.model.CrdDefinition;
import io.mvproxy.registry.impl.model.CrdParser;
import io.mvproxy.testkit.SharedTestData;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Real CRDs (gateway-api, shared test data) with their projects' example objects and hand-made invalid variants.
 * Expected causes are worked out from the Kubernetes 1.33 code (apiextensions-apiserver v0.33.0, kube-openapi
 * c8a335a9a2ff, apimachinery v0.33.0 {@code field/errors.go}); each case names the code producing its text.
 */
@Tag("unit")
class RealCrdSchemaTest {
  static final Path DATA = Path.of("src/test/resources/schema-crds");

  private static final java.util.Map<Path, CrdDefinition> PARSED = new java.util.concurrent.ConcurrentHashMap<>();

  static CrdDefinition crd(Path file) {
    return PARSED.computeIfAbsent(file, f -> CrdParser.parse(CrdManifests.read(f).get(0)));
  }

  static VersionSchema version(Path file, String v) {
    return crd(file).served(v).orElseThrow().validation();
  }

  /** Decodes like kube-apiserver (prune, default), then validates; causes as {@code reason|field|message}. */
  static List<String> check(VersionSchema vs, JsonObject obj, JsonObject old) {
    vs.prune(obj);
    vs.applyDefaults(obj);
    List<String> out = new ArrayList<>();
    for (FieldError e : vs.validate(obj, old, false)) {
      out.add(e.type() + "|" + e.field() + "|" + e.body());
    }
    return out;
  }

  static JsonObject example(String file, String kind) {
    return CrdManifests.read(DATA.resolve(file)).stream().filter(o -> kind.equals(o.getString("kind"))).findFirst()
        .orElseThrow();
  }

  @Test
  void everyRealCrdLoads() throws Exception {
    List<Path> files = new ArrayList<>();
    try (var s = Files.list(DATA)) {
      s.filter(p -> p.getFileName().toString().startsWith("gateway-api-") && !p.toString().contains("example"))
          .forEach(files::add);
    }
    Path shared = SharedTestData.file("crds");
    try (var s = Files.list(shared)) {
      s.forEach(files::add);
    }
    assertTrue(files.size() >= 7, files.toString());
    for (Path f : files) {
      CrdDefinition d = crd(f);
      d.servedVersions().forEach(v -> assertTrue(v.validation() != null, f + " " + v.name()));
    }
  }

  @Test
  void gatewayClassExampleValidAndControllerNameImmutable() {
    VersionSchema v1 = version(DATA.resolve("gateway-api-gatewayclasses.yaml"), "v1");
    JsonObject gc = example("gateway-api-example-basic-http.yaml", "GatewayClass");
    assertEquals(List.of(), check(v1, gc.copy(), null));
    // status.conditions is defaulted by the schema (default: [{type: Accepted, status: Unknown, ...}])
    JsonObject stored = gc.copy();
    v1.prune(stored);
    v1.applyDefaults(stored);
    assertEquals("Accepted", stored.getJsonObject("status").getJsonArray("conditions").getJsonObject(0)
        .getString("type"));
    // x-kubernetes-validations on spec.controllerName: {rule: self == oldSelf, message: field is immutable};
    // schema/cel/validation.go: field.Invalid(fldPath, sts.Type, message) -> Invalid value: "string": <message>
    JsonObject changed = stored.copy();
    changed.getJsonObject("spec").put("controllerName", "example.com/other");
    assertEquals(List.of("FieldValueInvalid|spec.controllerName|Invalid value: \"string\": field is immutable"),
        check(v1, changed, stored.copy()));
    // unchanged: transition rule holds; ratcheting leaves an untouched invalid description alone
    JsonObject same = stored.copy();
    same.getJsonObject("spec").put("description", "d");
    assertEquals(List.of(), check(v1, same, stored.copy()));
  }

  @Test
  void gatewayClassPatternAndLength() {
    VersionSchema v1 = version(DATA.resolve("gateway-api-gatewayclasses.yaml"), "v1");
    JsonObject gc = example("gateway-api-example-basic-http.yaml", "GatewayClass");
    gc.getJsonObject("spec").put("controllerName", "no-slash").put("description", "x".repeat(65));
    // kube-openapi errors/schema.go patternFail "%s in %s should match '%s'" -> field.Invalid;
    // maxLength -> TooLongFailCode -> field.TooLong "may not be more than %d bytes" (v0.33.0)
    assertEquals(List.of(
        "FieldValueInvalid|spec.controllerName|Invalid value: \"no-slash\": spec.controllerName in body should match "
            + "'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\\/[A-Za-z0-9\\/\\-._~%!$&'()*+,;=:]+$'",
        "FieldValueTooLong|spec.description|Too long: may not be more than 64 bytes",
        "FieldValueInvalid|<nil>|Invalid value: \"null\": some validation rules were not checked because the object "
            + "was invalid; correct the existing errors to complete validation"),
        check(v1, gc, null));
  }

  @Test
  void gatewayListenersDefaultsListMapAndCel() {
    VersionSchema v1 = version(DATA.resolve("gateway-api-gateways.yaml"), "v1");
    JsonObject gw = example("gateway-api-example-basic-http.yaml", "Gateway");
    JsonObject ok = gw.copy();
    assertEquals(List.of(), check(v1, ok, null));
    // default: {namespaces: {from: Same}} on listeners[].allowedRoutes (defaulting/algorithm.go)
    assertEquals(new JsonObject().put("namespaces", new JsonObject().put("from", "Same")),
        ok.getJsonObject("spec").getJsonArray("listeners").getJsonObject(0).getJsonObject("allowedRoutes"));
    JsonObject dup = gw.copy();
    JsonArray listeners = dup.getJsonObject("spec").getJsonArray("listeners");
    listeners.add(new JsonObject().put("name", "http").put("protocol", "HTTP").put("port", 0));
    // kube-openapi minimum -> field.Invalid "should be greater than or equal to 1"; listtype/validation.go
    // Duplicate(fldPath.Index(i), map[string]interface{}{key: v}) printed with %#v; then the CEL rule on
    // listeners (Invalid value: "array": <message>)
    assertEquals(List.of(
        "FieldValueInvalid|spec.listeners[1].port|Invalid value: 0: spec.listeners[1].port in body should be greater "
            + "than or equal to 1",
        "FieldValueDuplicate|spec.listeners[1]|Duplicate value: map[string]interface {}{\"name\":\"http\"}",
        "FieldValueInvalid|spec.listeners|Invalid value: \"array\": Listener name must be unique within the Gateway"),
        check(v1, dup, null));
  }

  @Test
  void httpRouteExamplesAndEnum() {
    VersionSchema v1 = version(DATA.resolve("gateway-api-httproutes.yaml"), "v1");
    JsonObject route = example("gateway-api-example-basic-http.yaml", "HTTPRoute");
    assertEquals(List.of(), check(v1, route.copy(), null));
    assertEquals(List.of(), check(v1, example("gateway-api-example-httproute-cors.yaml", "HTTPRoute"), null));
    JsonObject bad = route.copy();
    JsonObject match = bad.getJsonObject("spec").getJsonArray("rules").getJsonObject(0).getJsonArray("matches")
        .getJsonObject(0);
    match.getJsonObject("path").put("type", "Bogus");
    // EnumFailCode -> field.NotSupported(path, value, values): supported values quoted with strconv.Quote;
    // NotSupported blocks CEL (strategy.go hasBlockingErr)
    assertEquals(List.of(
        "FieldValueNotSupported|spec.rules[0].matches[0].path.type|Unsupported value: \"Bogus\": supported values: "
            + "\"Exact\", \"PathPrefix\", \"RegularExpression\"",
        "FieldValueInvalid|<nil>|Invalid value: \"null\": some validation rules were not checked because the object "
            + "was invalid; correct the existing errors to complete validation"),
        check(v1, bad, null));
    JsonObject dots = route.copy();
    dots.getJsonObject("spec").getJsonArray("rules").getJsonObject(0).getJsonArray("matches").getJsonObject(0)
        .getJsonObject("path").put("value", "/a//b");
    assertEquals(List.of("FieldValueInvalid|spec.rules[0].matches[0].path|Invalid value: \"object\": must not "
        + "contain '//' when type one of ['Exact', 'PathPrefix']"), check(v1, dots, null));
  }

  @Test
  void sharedTestDataObjects() {
    Path crds = SharedTestData.file("crds");
    Path objects = SharedTestData.file("objects");
    VersionSchema foo = version(crds.resolve("samplecontroller-foos.yaml"), "v1alpha1");
    JsonObject f = CrdManifests.read(objects.resolve("samplecontroller-example-foo.yaml")).get(0);
    assertEquals(List.of(), check(foo, f.copy(), null));
    f.getJsonObject("spec").put("replicas", 11).put("deploymentName", 5);
    // maximum 10 on an int64 -> ExceedsMaximumInt "should be less than or equal to 10"; a number where a string is
    // declared -> InvalidTypeCode: field.TypeInvalid(path, "integer", "... must be of type string: \"integer\"")
    assertEquals(List.of(
        "FieldValueTypeInvalid|spec.deploymentName|Invalid value: \"integer\": spec.deploymentName in body must be of "
            + "type string: \"integer\"",
        "FieldValueInvalid|spec.replicas|Invalid value: 11: spec.replicas in body should be less than or equal to 10"),
        check(foo, f, null));
    VersionSchema am = version(crds.resolve("prometheus-operator-alertmanagers.yaml"), "v1");
    JsonObject a = CrdManifests.read(objects.resolve("prometheus-operator-alertmanager-example.yaml")).get(0);
    assertEquals(List.of(), check(am, a.copy(), null));
    a.getJsonObject("spec").put("replicas", -1).put("logLevel", "verbose").put("retention", "3 days");
    List<String> errs = check(am, a, null);
    assertTrue(errs.contains("FieldValueNotSupported|spec.logLevel|Unsupported value: \"verbose\": supported values: "
        + "\"\", \"debug\", \"info\", \"warn\", \"error\""), errs.toString());
    assertTrue(errs.stream().anyMatch(e -> e.startsWith("FieldValueInvalid|spec.retention|Invalid value: \"3 days\": "
        + "spec.retention in body should match '")), errs.toString());
    VersionSchema kafka = version(crds.resolve("knative-kafka-consumergroups.yaml"), "v1alpha1");
    JsonObject cg = new JsonObject().put("apiVersion", "internal.kafka.eventing.knative.dev/v1alpha1")
        .put("kind", "ConsumerGroup").put("metadata", new JsonObject().put("name", "g"))
        .put("spec", new JsonObject().put("anything", new JsonObject().put("goes", 1)));
    assertEquals(List.of(), kafka.prune(cg), "x-kubernetes-preserve-unknown-fields at the root keeps everything");
  }
}
