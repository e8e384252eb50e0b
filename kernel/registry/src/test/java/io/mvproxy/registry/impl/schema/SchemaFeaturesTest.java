package io.mvproxy.registry.impl.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.StatusException;
import io.mvproxy.registry.impl.CrdManifests;
import io.mvproxy.registry.impl.model.CrdParser;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * One schema feature at a time on a hand-made CRD ({@code features-crd.yaml}); the expected texts follow the
 * Kubernetes 1.33 sources named beside each case (kube-openapi {@code errors/schema.go}, apimachinery
 * {@code field/errors.go}, apiextensions-apiserver {@code schema/...}).
 */
@Tag("unit")
class SchemaFeaturesTest {
  static final JsonObject MANIFEST = CrdManifests.read(RealCrdSchemaTest.DATA.resolve("features-crd.yaml")).get(0);
  static final VersionSchema V1 = CrdParser.parse(MANIFEST).served("v1").orElseThrow().validation();

  static JsonObject probe(Consumer<JsonObject> spec) {
    JsonObject s = new JsonObject().put("min", 1).put("max", 2);
    spec.accept(s);
    return new JsonObject().put("apiVersion", "fidelity.mvproxy.io/v1").put("kind", "Probe")
        .put("metadata", new JsonObject().put("name", "p1").put("namespace", "default")).put("spec", s);
  }

  static List<String> check(JsonObject obj) {
    return RealCrdSchemaTest.check(V1, obj, null);
  }

  static List<String> update(JsonObject obj, JsonObject old) {
    V1.prune(old);
    V1.applyDefaults(old);
    return RealCrdSchemaTest.check(V1, obj, old);
  }

  @Test
  void validObjectIsDefaultedAndPruned() {
    JsonObject o = probe(s -> s.put("unknownField", 1).put("strict", null).put("optionalText", null)
        .put("ports", new JsonArray().add(new JsonObject().put("port", 80)))
        .put("extra", new JsonObject().put("known", 1).put("other", "kept"))
        .put("target", "50%").put("custom", "anything goes").put("when", "2024-01-02T03:04:05Z")
        .put("timeout", "1h30m").put("day", "2024-02-29").put("id", "123e4567-e89b-12d3-a456-426614174000")
        .put("addr", "10.0.0.1").put("net", "10.0.0.0/8").put("blob", "aGk=").put("host", "a.example.com")
        .put("quantity", "500Mi").put("cidrs", new JsonArray().add("10.0.0.0/8").add("192.168.0.0/16"))
        .put("url", "https://example.com/x?a=1"));
    o.put("status", new JsonObject().put("phase", "Ready").put("bogus", 1));
    assertEquals(List.of("spec.unknownField", "status.bogus"), V1.prune(o), "pruning/algorithm.go paths, sorted");
    V1.applyDefaults(o);
    JsonObject spec = o.getJsonObject("spec");
    assertFalse(spec.containsKey("strict"), "prunenulls.go: a non-nullable null without default is dropped");
    assertTrue(spec.containsKey("optionalText") && spec.getValue("optionalText") == null, "nullable keeps null");
    assertEquals("Open", spec.getString("mode"), "default");
    assertEquals("TCP", spec.getJsonArray("ports").getJsonObject(0).getString("protocol"), "default in list items");
    assertEquals("kept", spec.getJsonObject("extra").getString("other"), "x-kubernetes-preserve-unknown-fields");
    assertEquals(List.of(), V1.validate(o, null, false));
  }

  @Test
  void formats() {
    // validate/formats.go FormatOf -> errors.InvalidType(path, in, format, data): code InvalidTypeCode ->
    // field.TypeInvalid(path, value, "<path> in body must be of type <format>: \"<value>\"")
    assertEquals(List.of(
        "FieldValueTypeInvalid|spec.when|Invalid value: \"yesterday\": spec.when in body must be of type date-time: "
            + "\"yesterday\"",
        "FieldValueTypeInvalid|spec.day|Invalid value: \"2024-02-30\": spec.day in body must be of type date: "
            + "\"2024-02-30\"",
        "FieldValueTypeInvalid|spec.timeout|Invalid value: \"5 parsecs\": spec.timeout in body must be of type "
            + "duration: \"5 parsecs\"",
        "FieldValueTypeInvalid|spec.id|Invalid value: \"not-a-uuid\": spec.id in body must be of type uuid: "
            + "\"not-a-uuid\"",
        "FieldValueTypeInvalid|spec.addr|Invalid value: \"1.2.3\": spec.addr in body must be of type ipv4: \"1.2.3\"",
        "FieldValueTypeInvalid|spec.net|Invalid value: \"10.0.0.0/33\": spec.net in body must be of type cidr: "
            + "\"10.0.0.0/33\"",
        "FieldValueTypeInvalid|spec.blob|Invalid value: \"###\": spec.blob in body must be of type byte: \"###\"",
        "FieldValueTypeInvalid|spec.mail|Invalid value: \"nope\": spec.mail in body must be of type email: \"nope\"",
        "FieldValueTypeInvalid|spec.host|Invalid value: \"-bad-\": spec.host in body must be of type hostname: "
            + "\"-bad-\"",
        "FieldValueInvalid|<nil>|Invalid value: \"null\": some validation rules were not checked because the object "
            + "was invalid; correct the existing errors to complete validation"),
        check(probe(s -> s.put("when", "yesterday").put("day", "2024-02-30").put("timeout", "5 parsecs")
            .put("id", "not-a-uuid").put("addr", "1.2.3").put("net", "10.0.0.0/33").put("blob", "###")
            .put("mail", "nope").put("host", "-bad-").put("custom", "unsupported formats are ignored"))));
  }

  @Test
  void numbersAndSizes() {
    // multipleOfFail, maxExcFail, minIncFail: field.Invalid(path, value, msg); tooFewProperties: Invalid with the
    // count; TooManyPropertiesCode / MaxItemsFailCode -> field.TooMany; TooLongFailCode -> field.TooLong
    assertEquals(List.of(
        "FieldValueInvalid|spec.step|Invalid value: 0.7: spec.step in body should be a multiple of 0.5",
        "FieldValueInvalid|spec.size|Invalid value: 100: spec.size in body should be less than 100",
        "FieldValueInvalid|spec.labels|Invalid value: 0: spec.labels in body should have at least 1 properties"),
        check(probe(s -> s.put("step", 0.7).put("size", 100).put("labels", new JsonObject()))));
    assertEquals(List.of(
        "FieldValueInvalid|spec.size|Invalid value: 0: spec.size in body should be greater than or equal to 1",
        "FieldValueTooMany|spec.labels|Too many: 3: must have at most 2 items",
        "FieldValueTooLong|spec.labels.a|Too long: may not be more than 5 bytes",
        "FieldValueTooMany|spec.tags|Too many: 4: must have at most 3 items",
        "FieldValueInvalid|<nil>|Invalid value: \"null\": some validation rules were not checked because the object "
            + "was invalid; correct the existing errors to complete validation"),
        check(probe(s -> s.put("size", 0).put("labels", new JsonObject().put("a", "toolong").put("b", "").put("c", ""))
            .put("tags", new JsonArray().add("a").add("b").add("c").add("d")))));
  }

  @Test
  void listTypesAndIntOrString() {
    // listtype/validation.go: Duplicate(fldPath.Index(i), value) per repeated item, list-map keys as a map (%#v)
    assertEquals(List.of(
        "FieldValueInvalid|spec.tags[1]|Invalid value: \"A\": spec.tags[1] in body should match '^[a-z]+$'",
        "FieldValueInvalid|spec.target|Invalid value: \"abc\": spec.target in body should match '^\\d+%?$'",
        "FieldValueDuplicate|spec.tags[2]|Duplicate value: \"a\"",
        "FieldValueDuplicate|spec.ports[1]|Duplicate value: map[string]interface {}{\"port\":80, \"protocol\":\"TCP\"}"),
        check(probe(s -> s.put("tags", new JsonArray().add("a").add("A").add("a")).put("target", "abc")
            .put("ports", new JsonArray().add(new JsonObject().put("port", 80))
                .add(new JsonObject().put("port", 80).put("protocol", "TCP"))))));
    assertEquals(List.of(
        "FieldValueRequired|spec.ports[0].port|Required value",
        "FieldValueTypeInvalid|spec.target|Invalid value: \"boolean\": spec.target in body must be of type "
            + "integer,string: \"boolean\"",
        "FieldValueInvalid|<nil>|Invalid value: \"null\": some validation rules were not checked because the object "
            + "was invalid; correct the existing errors to complete validation"),
        check(probe(s -> s.put("target", true).put("ports", new JsonArray().add(new JsonObject())))));
    assertEquals(List.of(), check(probe(s -> s.put("target", 5))));
  }

  @Test
  void junctorsAndEmbeddedResources() {
    // schema_props.go: errors.New(422, MustValidateOnlyOneSchemaError, path, ...) has no Name -> field <nil>,
    // value "" ; then the best failing alternative's errors; mustNotValidatechemaMsg likewise
    assertEquals(List.of(
        "FieldValueInvalid|<nil>|Invalid value: \"\": \"spec.choice\" must validate one and only one schema (oneOf). "
            + "Found none valid",
        "FieldValueRequired|spec.choice.a|Required value",
        "FieldValueInvalid|<nil>|Invalid value: \"\": \"spec.notEmpty\" must not validate the schema (not)",
        "FieldValueRequired|spec.template.apiVersion|Required value",
        "FieldValueRequired|spec.template.kind|Required value",
        "FieldValueInvalid|<nil>|Invalid value: \"null\": some validation rules were not checked because the object "
            + "was invalid; correct the existing errors to complete validation"),
        check(probe(s -> s.put("choice", new JsonObject()).put("notEmpty", "")
            .put("template", new JsonObject().put("spec", new JsonObject())))));
    assertEquals(List.of("FieldValueInvalid|<nil>|Invalid value: \"\": \"spec.choice\" must validate one and only one "
            + "schema (oneOf). Found 2 valid alternatives"),
        check(probe(s -> s.put("choice", new JsonObject().put("a", "x").put("b", "y"))
            .put("template", new JsonObject().put("apiVersion", "v1").put("kind", "ConfigMap")))));
  }

  @Test
  void celRules() {
    // schema/cel/validation.go (v0.33.0): failed rule -> fieldErrorForReason(fldPath[.fieldPath], sts.Type,
    // messageExpression | message | "failed rule: <rule>", reason); evaluation errors "<err> evaluating rule: <rule>"
    JsonObject o = probe(s -> s.put("min", 5).put("quantity", "2Gi").put("cidrs", new JsonArray().add("10.0.0.0/4"))
        .put("url", "http://example.com").put("divide", 0));
    o.getJsonObject("metadata").put("name", "q1");
    assertEquals(List.of(
        "FieldValueInvalid|<nil>|Invalid value: \"object\": name must start with p",
        "FieldValueInvalid|spec.min|Invalid value: \"object\": min (5) must not exceed max (2)",
        "FieldValueInvalid|spec.quantity|Invalid value: \"string\": must be a quantity below 1Gi",
        "FieldValueInvalid|spec.cidrs|Invalid value: \"array\": must be CIDRs of /8 or longer",
        "FieldValueInvalid|spec.url|Invalid value: \"string\": must be an https URL",
        "FieldValueInvalid|spec.divide|Invalid value: \"integer\": division by zero evaluating rule: 10 / self > 1"),
        check(o));
    assertEquals(List.of("FieldValueInvalid|spec.divide|Invalid value: \"integer\": failed rule: 10 / self > 1",
            "FieldValueInvalid|spec.cidrs|Invalid value: \"array\": must be sorted"),
        check(probe(s -> s.put("divide", 20).put("cidrs", new JsonArray().add("192.168.0.0/16").add("10.0.0.0/8")))));
  }

  @Test
  void transitionRulesAndRatcheting() {
    JsonObject old = probe(s -> s.put("mode", "Open").put("immutableOnceSet", "a")
        .put("tags", new JsonArray().add("A")));
    // reason FieldValueForbidden -> field.Forbidden(path, message); optionalOldSelf rule runs with oldSelf
    JsonObject locked = probe(s -> s.put("mode", "Locked").put("immutableOnceSet", "b")
        .put("tags", new JsonArray().add("A")));
    assertEquals(List.of("FieldValueForbidden|spec|Forbidden: cannot lock here",
        "FieldValueInvalid|spec|Invalid value: \"object\": immutableOnceSet may not change"), update(locked,
        old.copy()));
    // ratcheting (validation/ratcheting.go): the invalid tags[0] "A" is unchanged, so not reported
    JsonObject minChanged = probe(s -> s.put("min", 0).put("mode", "Open").put("immutableOnceSet", "a")
        .put("tags", new JsonArray().add("A")));
    assertEquals(List.of(), update(minChanged, old.copy()));
    assertEquals(List.of("FieldValueInvalid|spec.tags[0]|Invalid value: \"B\": spec.tags[0] in body should match "
        + "'^[a-z]+$'"), update(probe(s -> s.put("tags", new JsonArray().add("B"))), old.copy()));
    // a CEL rule without oldSelf failing on an unchanged value is ratcheted into a warning (warning.AddWarning)
    JsonObject oldDivide = probe(s -> s.put("divide", 20));
    V1.prune(oldDivide);
    V1.applyDefaults(oldDivide);
    JsonObject newDivide = oldDivide.copy();
    newDivide.getJsonObject("spec").put("min", 0);
    List<String> warnings = new ArrayList<>();
    assertEquals(List.of(), V1.validate(newDivide, oldDivide, false, warnings));
    assertEquals(List.of("spec.divide: Invalid value: \"integer\": failed rule: 10 / self > 1"), warnings);
    // on create the optionalOldSelf rule sees oldSelf = optional.none(); the transition rule without it is skipped
    assertEquals(List.of(), check(probe(s -> s.put("mode", "Locked").put("immutableOnceSet", "z"))));
  }

  @Test
  void statusSubresourceValidatesStatusOnly() {
    JsonObject o = probe(s -> { });
    o.put("status", new JsonObject().put("phase", "Bogus"));
    List<String> errs = new ArrayList<>();
    V1.validate(o, o.copy().put("status", new JsonObject()), true).forEach(e -> errs.add(e.type() + "|" + e.field()
        + "|" + e.body()));
    // status_strategy.go: ValidateCustomResourceUpdate(field.NewPath("status"), status, ...): names relative to it
    assertEquals(List.of("FieldValueNotSupported|status.phase|Unsupported value: \"Bogus\": supported values: "
        + "\"Pending\", \"Ready\"", "FieldValueInvalid|<nil>|Invalid value: \"null\": some validation rules were not "
        + "checked because the object was invalid; correct the existing errors to complete validation"), errs);
  }

  @Test
  void runtimeCostLimit() {
    JsonArray l = new JsonArray();
    for (int i = 0; i < 1500; i++) {
      l.add(i);
    }
    assertEquals(List.of("FieldValueInvalid|spec.free|Invalid value: \"object\": 'operation cancelled: actual cost "
            + "limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: "
            + "self.l.all(x, self.l.all(y, x == y || true))"),
        check(probe(s -> s.put("free", new JsonObject().put("l", l)))));
  }

  static StatusException loadFailure(Consumer<JsonObject> specProps) {
    JsonObject m = MANIFEST.copy();
    specProps.accept(m.getJsonObject("spec").getJsonArray("versions").getJsonObject(0).getJsonObject("schema")
        .getJsonObject("openAPIV3Schema").getJsonObject("properties").getJsonObject("spec")
        .getJsonObject("properties"));
    return assertThrows(StatusException.class, () -> CrdParser.parse(m));
  }

  static List<String> causes(StatusException e) {
    List<String> out = new ArrayList<>();
    e.toStatus().getJsonObject("details").getJsonArray("causes").forEach(c -> {
      JsonObject o = (JsonObject) c;
      out.add(o.getString("reason") + "|" + o.getString("field") + "|" + o.getString("message"));
    });
    return out;
  }

  @Test
  void crdLoadRefusesNonStructuralAndBadRules() {
    String p = "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties";
    // schema/validation.go validateStructuralInvariants
    assertEquals(List.of("FieldValueRequired|" + p + "[untyped].type|Required value: must not be empty for specified "
        + "object fields"), causes(loadFailure(props -> props.put("untyped", new JsonObject()))));
    StatusException compile = loadFailure(props -> props.put("bad", new JsonObject().put("type", "string")
        .put("x-kubernetes-validations", new JsonArray().add(new JsonObject().put("rule", "self ==")))));
    // validation.go: field.Invalid(...rule, schema.XValidations[i] (%#v), "compilation failed: " + issues)
    String c = causes(compile).get(0);
    assertTrue(c.startsWith("FieldValueInvalid|" + p + "[bad].x-kubernetes-validations[0].rule|Invalid value: "
        + "apiextensions.ValidationRule{Rule:\"self ==\", Message:\"\", MessageExpression:\"\", "
        + "Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:\"\", OptionalOldSelf:(*bool)(nil)}: "
        + "compilation failed: ERROR: <input>:1:8: Syntax error: "), c);
    assertTrue(compile.getMessage().startsWith("CustomResourceDefinition.apiextensions.k8s.io \"probes.fidelity.mvproxy"
        + ".io\" is invalid: " + p + "[bad].x-kubernetes-validations[0].rule: Invalid value: "), compile.getMessage());
    assertEquals(List.of("FieldValueForbidden|" + p + "[costly].x-kubernetes-validations[0].rule|Forbidden: estimated "
            + "rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, "
            + "maxProperties, and maxLength where arrays, maps, and strings are declared)"),
        causes(loadFailure(props -> props.put("costly", new JsonObject().put("type", "array")
            .put("items", new JsonObject().put("type", "string"))
            .put("x-kubernetes-validations", new JsonArray().add(new JsonObject()
                .put("rule", "self.all(x, self.all(y, x.contains(y)))")))))));
    // defaulting/validation.go ValidateDefaults: pruned, then ValidateCustomResource(pth.Child("default"), ...)
    assertEquals(List.of("FieldValueNotSupported|" + p + "[color].default|Unsupported value: \"pink\": supported "
            + "values: \"red\", \"blue\""),
        causes(loadFailure(props -> props.put("color", new JsonObject().put("type", "string")
            .put("enum", new JsonArray().add("red").add("blue")).put("default", "pink")))));
    assertEquals(List.of("FieldValueInvalid|" + p + "[box].default|Invalid value: map[string]interface {}{\"extra\":1}: "
            + "must not have unknown fields"),
        causes(loadFailure(props -> props.put("box", new JsonObject().put("type", "object")
            .put("properties", new JsonObject().put("a", new JsonObject().put("type", "string")))
            .put("default", new JsonObject().put("extra", 1))))));
    assertEquals(List.of("FieldValueNotSupported|" + p + "[why].x-kubernetes-validations[0].reason|Unsupported value: "
            + "\"Bogus\": supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", "
            + "\"FieldValueRequired\""),
        causes(loadFailure(props -> props.put("why", new JsonObject().put("type", "string")
            .put("x-kubernetes-validations", new JsonArray().add(new JsonObject().put("rule", "true")
                .put("reason", "Bogus")))))));
  }
}
