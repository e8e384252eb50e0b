package io.mvproxy.registry.impl.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.admission.Admission;
import io.mvproxy.api.storage.StoredObject;
import io.mvproxy.api.storage.WatchEvent;
import io.mvproxy.registry.impl.schema.FieldError;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** ValidatingAdmissionPolicy: validation of policies and bindings, matching, CEL evaluation, kube's denial texts. */
@Tag("unit")
class ValidatingPoliciesTest {
  static JsonObject policy(String name, String failurePolicy, JsonObject... validations) {
    JsonArray v = new JsonArray();
    for (JsonObject x : validations) {
      v.add(x);
    }
    JsonObject spec = new JsonObject().put("matchConstraints", new JsonObject().put("resourceRules", new JsonArray()
        .add(new JsonObject().put("operations", new JsonArray().add("CREATE").add("UPDATE"))
            .put("apiGroups", new JsonArray().add("demo.io")).put("apiVersions", new JsonArray().add("*"))
            .put("resources", new JsonArray().add("widgets")))))
        .put("validations", v)
        .put("variables", new JsonArray().add(new JsonObject().put("name", "size")
            .put("expression", "has(object.spec) && has(object.spec.size) ? object.spec.size : 0")));
    if (failurePolicy != null) {
      spec.put("failurePolicy", failurePolicy);
    }
    return new JsonObject().put("metadata", new JsonObject().put("name", name)).put("spec", spec);
  }

  static JsonObject binding(String name, String policy, String... actions) {
    return new JsonObject().put("metadata", new JsonObject().put("name", name)).put("spec", new JsonObject()
        .put("policyName", policy).put("validationActions", new JsonArray(List.of((Object[]) actions))));
  }

  static WatchEvent added(JsonObject o) {
    return new WatchEvent(WatchEvent.Type.ADDED, new StoredObject(o.getJsonObject("metadata").getString("name"), o,
        1), null);
  }

  static Admission.Attributes create(JsonObject obj) {
    return new Admission.Attributes("demo.io", "v1", "widgets", "", "Widget", "default", "w1", "CREATE", obj, null,
        new JsonObject(), false, new UserInfo("alice", "", List.of(), Map.of()), true, List.of());
  }

  static JsonObject widget(Object size) {
    return new JsonObject().put("apiVersion", "demo.io/v1").put("kind", "Widget")
        .put("metadata", new JsonObject().put("name", "w1")).put("spec", new JsonObject().put("size", size));
  }

  @Test
  void denyWithMessageReasonAndVariables() {
    ValidatingPolicies p = new ValidatingPolicies();
    p.policyEvent(added(policy("max-size", null, new JsonObject().put("expression", "variables.size <= 10")
        .put("message", "size must be at most 10"))));
    assertEquals(false, p.active());
    p.bindingEvent(added(binding("max-size-binding", "max-size", "Deny")));
    assertEquals(true, p.active());
    assertNull(p.evaluate(create(widget(3)), null));
    StatusException e = p.evaluate(create(widget(11)), null);
    assertEquals(422, e.code());
    assertEquals("widgets.demo.io \"w1\" is forbidden: ValidatingAdmissionPolicy 'max-size' with binding "
        + "'max-size-binding' denied request: size must be at most 10", e.getMessage());
    assertEquals("Invalid", e.toStatus().getString("reason"));
    assertEquals("ValidatingAdmissionPolicy 'max-size' with binding 'max-size-binding' denied request: size must be "
        + "at most 10", e.toStatus().getJsonObject("details").getJsonArray("causes").getJsonObject(0)
        .getString("message"));
    // other operations and resources are not covered
    Admission.Attributes del = new Admission.Attributes("demo.io", "v1", "widgets", "", "Widget", "default", "w1",
        "DELETE", null, widget(11), new JsonObject(), false, new UserInfo("a", "", List.of(), Map.of()), true,
        List.of());
    assertNull(p.evaluate(del, null));
  }

  /** @return {@code a} with warnings and audit annotations recorded into the given collections */
  static Admission.Attributes recording(Admission.Attributes a, List<String> warnings, Map<String, String> annotations) {
    return new Admission.Attributes(a.group(), a.version(), a.resource(), a.subresource(), a.kind(), a.namespace(),
        a.name(), a.operation(), a.object(), a.oldObject(), a.options(), a.dryRun(), a.user(), a.namespaced(),
        a.equivalentVersions(), warnings::add, annotations::put);
  }

  /**
   * dispatcher.go: an Audit binding's failures go into validation.policy.admission.k8s.io/validation_failure (JSON as
   * Go marshals it), auditAnnotations into "<policy>/<key>" with distinct values of several bindings joined; a value
   * expression that fails denies under failurePolicy Fail whatever the actions, null or blank leaves it out.
   */
  @Test
  void auditActionAndAuditAnnotations() {
    JsonObject p = policy("audited", "Fail", new JsonObject().put("expression", "variables.size < 5")
        .put("message", "size <5> & more"), new JsonObject().put("expression", "true"),
        new JsonObject().put("expression", "object.metadata.name != 'w1'"));
    p.getJsonObject("spec").put("auditAnnotations", new JsonArray()
        .add(new JsonObject().put("key", "size").put("valueExpression", "' size ' + string(variables.size) + ' '"))
        .add(new JsonObject().put("key", "none").put("valueExpression", "null"))
        .add(new JsonObject().put("key", "blank").put("valueExpression", "'  '")));
    assertEquals(List.of(), AdmissionPolicies.validatePolicy(AdmissionPolicies.setPolicyDefaults(p.copy())));
    ValidatingPolicies v = new ValidatingPolicies();
    v.policyEvent(added(p));
    v.bindingEvent(added(binding("a-audit", "audited", "Audit", "Warn")));
    v.bindingEvent(added(binding("b-audit", "audited", "Audit")));
    List<String> warnings = new java.util.ArrayList<>();
    Map<String, String> annotations = new java.util.LinkedHashMap<>();
    assertNull(v.evaluate(recording(create(widget(7)), warnings, annotations), null), "Audit and Warn do not deny");
    assertEquals(2, warnings.size(), warnings.toString());
    assertEquals(Map.of("audited/size", "size 7", ValidatingPolicies.VALIDATION_FAILURE_ANNOTATION,
        "[{\"message\":\"size \\u003c5\\u003e \\u0026 more\",\"policy\":\"audited\",\"binding\":\"a-audit\","
            + "\"expressionIndex\":0,\"validationActions\":[\"Audit\",\"Warn\"]},"
            + "{\"message\":\"failed expression: object.metadata.name != 'w1'\",\"policy\":\"audited\","
            + "\"binding\":\"a-audit\",\"expressionIndex\":2,\"validationActions\":[\"Audit\",\"Warn\"]},"
            + "{\"message\":\"size \\u003c5\\u003e \\u0026 more\",\"policy\":\"audited\",\"binding\":\"b-audit\","
            + "\"expressionIndex\":0,\"validationActions\":[\"Audit\"]},"
            + "{\"message\":\"failed expression: object.metadata.name != 'w1'\",\"policy\":\"audited\","
            + "\"binding\":\"b-audit\",\"expressionIndex\":2,\"validationActions\":[\"Audit\"]}]"), annotations);
    // a value expression that fails or gives another type denies under Fail (an Audit-only binding too)
    JsonObject bad = policy("typed", "Fail", new JsonObject().put("expression", "true"));
    bad.getJsonObject("spec").put("auditAnnotations", new JsonArray()
        .add(new JsonObject().put("key", "n").put("valueExpression", "variables.size")));
    ValidatingPolicies t = new ValidatingPolicies();
    t.policyEvent(added(bad));
    t.bindingEvent(added(binding("b", "typed", "Audit")));
    StatusException e = t.evaluate(create(widget(3)), null);
    assertEquals("widgets.demo.io \"w1\" is forbidden: ValidatingAdmissionPolicy 'typed' with binding 'b' denied "
        + "request: valueExpression 'variables.size' resulted in unsupported return type: int. Return type must be "
        + "either string or null.", e.getMessage());
    bad.getJsonObject("spec").put("failurePolicy", "Ignore").getJsonArray("auditAnnotations").getJsonObject(0)
        .put("valueExpression", "object.spec.missing");
    ValidatingPolicies i = new ValidatingPolicies();
    i.policyEvent(added(bad));
    i.bindingEvent(added(binding("b", "typed", "Audit")));
    Map<String, String> none = new java.util.HashMap<>();
    assertNull(i.evaluate(recording(create(widget(3)), new java.util.ArrayList<>(), none), null));
    assertEquals(Map.of(), none, "an error under Ignore leaves the annotation out");
    // validateAuditAnnotation
    JsonObject invalid = policy("p", null);
    invalid.getJsonObject("spec").put("auditAnnotations", new JsonArray()
        .add(new JsonObject().put("key", "bad key").put("valueExpression", "'x'"))
        .add(new JsonObject().put("key", "k").put("valueExpression", " "))
        .add(new JsonObject().put("key", "k").put("valueExpression", "object.spec.size +")));
    List<String> errs = AdmissionPolicies.validatePolicy(AdmissionPolicies.setPolicyDefaults(invalid)).stream()
        .map(FieldError::error).toList();
    assertEquals(4, errs.size(), errs.toString());
    assertTrue(errs.get(0).startsWith("spec.auditAnnotations[0].key: Invalid value: \"p/bad key\": name part must "
        + "consist of alphanumeric characters"), errs.get(0));
    assertEquals("spec.auditAnnotations[1].valueExpression: Required value: valueExpression is not specified",
        errs.get(1));
    assertTrue(errs.get(2).startsWith("spec.auditAnnotations[2].valueExpression: Invalid value: \"object.spec.size +\""
        + ": compilation failed: "), errs.get(2));
    assertEquals("spec.auditAnnotations[2].key: Duplicate value: \"k\"", errs.get(3));
    // compile.go CompileCELExpression: a known type that is not one of the expression's return types
    JsonObject typed = policy("p", null, new JsonObject().put("expression", "1 + 1")
        .put("messageExpression", "size(object.metadata.name)"));
    typed.getJsonObject("spec").put("auditAnnotations", new JsonArray()
        .add(new JsonObject().put("key", "n").put("valueExpression", "size(object.metadata.name)"))
        .add(new JsonObject().put("key", "l").put("valueExpression", "[1, 2]"))
        .add(new JsonObject().put("key", "ok").put("valueExpression", "object.metadata.name")));
    assertEquals(List.of("spec.validations[0].expression: Invalid value: \"1 + 1\": must evaluate to bool but got int",
        "spec.validations[0].messageExpression: Invalid value: \"size(object.metadata.name)\": must evaluate to "
            + "string but got int",
        "spec.auditAnnotations[0].valueExpression: Invalid value: \"size(object.metadata.name)\": must evaluate to "
            + "one of [string null_type] but got int",
        "spec.auditAnnotations[1].valueExpression: Invalid value: \"[1, 2]\": must evaluate to one of [string "
            + "null_type] but got list(int)"),
        AdmissionPolicies.validatePolicy(AdmissionPolicies.setPolicyDefaults(typed)).stream().map(FieldError::error)
            .toList());
  }

  @Test
  void messageExpressionReasonAndDefaultMessage() {
    ValidatingPolicies p = new ValidatingPolicies();
    p.policyEvent(added(policy("p", null, new JsonObject().put("expression", "object.metadata.name != 'w1'")
        .put("messageExpression", "'name ' + object.metadata.name + ' is taken'").put("reason", "Forbidden"))));
    p.bindingEvent(added(binding("b", "p", "Deny")));
    StatusException e = p.evaluate(create(widget(1)), null);
    assertEquals(403, e.code());
    assertEquals("widgets.demo.io \"w1\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied "
        + "request: name w1 is taken", e.getMessage());
    ValidatingPolicies q = new ValidatingPolicies();
    q.policyEvent(added(policy("q", null, new JsonObject().put("expression", " variables.size < 2 "))));
    q.bindingEvent(added(binding("b", "q", "Deny")));
    assertEquals("widgets.demo.io \"w1\" is forbidden: ValidatingAdmissionPolicy 'q' with binding 'b' denied "
        + "request: failed expression: variables.size < 2", q.evaluate(create(widget(5)), null).getMessage());
  }

  @Test
  void evaluationErrorsFollowFailurePolicyAndWarnDoesNotDeny() {
    JsonObject boom = new JsonObject().put("expression", "object.spec.missing > 1");
    ValidatingPolicies fail = new ValidatingPolicies();
    fail.policyEvent(added(policy("p", "Fail", boom)));
    fail.bindingEvent(added(binding("b", "p", "Deny")));
    assertEquals("widgets.demo.io \"w1\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied "
        + "request: expression 'object.spec.missing > 1' resulted in error: no such key: missing",
        fail.evaluate(create(widget(1)), null).getMessage());
    ValidatingPolicies ignore = new ValidatingPolicies();
    ignore.policyEvent(added(policy("p", "Ignore", boom)));
    ignore.bindingEvent(added(binding("b", "p", "Deny")));
    assertNull(ignore.evaluate(create(widget(1)), null));
    ValidatingPolicies warn = new ValidatingPolicies();
    warn.policyEvent(added(policy("p", null, new JsonObject().put("expression", "false"))));
    warn.bindingEvent(added(binding("b", "p", "Warn", "Audit")));
    List<String> warnings = new java.util.ArrayList<>();
    Admission.Attributes a = create(widget(1));
    assertNull(warn.evaluate(new Admission.Attributes(a.group(), a.version(), a.resource(), a.subresource(), a.kind(),
        a.namespace(), a.name(), a.operation(), a.object(), a.oldObject(), a.options(), a.dryRun(), a.user(),
        a.namespaced(), a.equivalentVersions(), warnings::add), null));
    assertEquals(List.of("Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': failed expression: "
        + "false"), warnings);
    // a binding to a policy that does not exist does nothing
    ValidatingPolicies orphan = new ValidatingPolicies();
    orphan.bindingEvent(added(binding("b", "nope", "Deny")));
    assertNull(orphan.evaluate(create(widget(1)), null));
  }

  /**
   * validating/dispatcher.go: every failed validation of a Warn binding is a warning, a denial is answered once every
   * binding was evaluated (a later binding's warnings are sent too), with the first Deny failure; validator.go trims
   * messages.
   */
  @Test
  void everyFailureWarnsAndTheFirstDenialIsAnsweredAfterAllBindings() {
    ValidatingPolicies p = new ValidatingPolicies();
    p.policyEvent(added(policy("a", null, new JsonObject().put("expression", "false").put("message", "  single line  "),
        new JsonObject().put("expression", "false").put("messageExpression", "' from expression '"),
        new JsonObject().put("expression", "true").put("message", "never"),
        new JsonObject().put("expression", "false").put("messageExpression", "'two\\nlines'")
            .put("message", "static fallback"))));
    p.policyEvent(added(policy("b", null, new JsonObject().put("expression", "false").put("message", "later"))));
    p.bindingEvent(added(binding("a-deny", "a", "Deny", "Warn")));
    p.bindingEvent(added(binding("b-warn", "b", "Warn")));
    List<String> warnings = new java.util.ArrayList<>();
    Admission.Attributes a = create(widget(1));
    StatusException e = p.evaluate(new Admission.Attributes(a.group(), a.version(), a.resource(), a.subresource(),
        a.kind(), a.namespace(), a.name(), a.operation(), a.object(), a.oldObject(), a.options(), a.dryRun(), a.user(),
        a.namespaced(), a.equivalentVersions(), warnings::add), null);
    assertEquals("widgets.demo.io \"w1\" is forbidden: ValidatingAdmissionPolicy 'a' with binding 'a-deny' denied "
        + "request: single line", e.getMessage());
    String w = "Validation failed for ValidatingAdmissionPolicy ";
    assertEquals(List.of(w + "'a' with binding 'a-deny': single line", w + "'a' with binding 'a-deny': from expression",
        w + "'a' with binding 'a-deny': static fallback", w + "'b' with binding 'b-warn': later"), warnings);
  }

  /**
   * matchconditions/matcher.go: a false condition is no match even after one that failed to evaluate; errors alone
   * follow failurePolicy with the CEL filter's text. validator.go trims messages as Go's strings.TrimSpace (NBSP and
   * U+0085 are space, U+001F is not).
   */
  @Test
  void matchConditionErrorsCountOnlyWithoutAFalseOneAndMessagesAreTrimmedAsGo() {
    JsonObject p = policy("p", "Fail", new JsonObject().put("expression", "false")
        .put("message", "\u00a0\u2007 nbsp msg\u202f\u0085"));
    JsonArray conditions = new JsonArray().add(new JsonObject().put("name", "errs")
        .put("expression", "object.spec.nope == 1"));
    p.getJsonObject("spec").put("matchConditions", conditions);
    ValidatingPolicies v = new ValidatingPolicies();
    v.policyEvent(added(p));
    v.bindingEvent(added(binding("b", "p", "Deny")));
    assertEquals("widgets.demo.io \"w1\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied "
        + "request: expression 'object.spec.nope == 1' resulted in error: no such key: nope",
        v.evaluate(create(widget(1)), null).getMessage());
    // utilerrors aggregate: the same text twice is one error, without brackets
    conditions.add(new JsonObject().put("name", "errs2").put("expression", "object.spec.nope == 1"));
    v.policyEvent(added(p));
    assertEquals("widgets.demo.io \"w1\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied "
        + "request: expression 'object.spec.nope == 1' resulted in error: no such key: nope",
        v.evaluate(create(widget(1)), null).getMessage());
    conditions.remove(1);
    conditions.add(new JsonObject().put("name", "falsy").put("expression", "false"));
    v.policyEvent(added(p));
    assertNull(v.evaluate(create(widget(1)), null), "a false condition: no match");
    conditions.remove(1);
    conditions.getJsonObject(0).put("expression", "true");
    v.policyEvent(added(p));
    assertEquals("widgets.demo.io \"w1\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied "
        + "request: nbsp msg", v.evaluate(create(widget(1)), null).getMessage());
    assertEquals("\u001f x", ValidatingPolicies.trimSpace("\u001f x \u00a0"));
  }

  @Test
  void bindingMatchResourcesNarrowsByNamespaceLabels() {
    ValidatingPolicies p = new ValidatingPolicies();
    p.policyEvent(added(policy("p", null, new JsonObject().put("expression", "false"))));
    JsonObject b = binding("b", "p", "Deny");
    b.getJsonObject("spec").put("matchResources", new JsonObject().put("namespaceSelector", new JsonObject()
        .put("matchLabels", new JsonObject().put("env", "prod"))));
    p.bindingEvent(added(AdmissionPolicies.setBindingDefaults(b)));
    JsonObject prod = new JsonObject().put("metadata", new JsonObject().put("name", "default")
        .put("labels", new JsonObject().put("env", "prod")));
    JsonObject dev = new JsonObject().put("metadata", new JsonObject().put("name", "default")
        .put("labels", new JsonObject().put("env", "dev")));
    assertEquals(422, p.evaluate(create(widget(1)), prod).code());
    assertNull(p.evaluate(create(widget(1)), dev));
  }

  @Test
  void excludeRulesAndResourceNames() {
    JsonObject mr = new JsonObject().put("resourceRules", new JsonArray().add(new JsonObject()
            .put("operations", new JsonArray().add("*")).put("apiGroups", new JsonArray().add("*"))
            .put("apiVersions", new JsonArray().add("*")).put("resources", new JsonArray().add("*"))))
        .put("excludeResourceRules", new JsonArray().add(new JsonObject().put("resourceNames",
            new JsonArray().add("w1")).put("operations", new JsonArray().add("*"))
            .put("apiGroups", new JsonArray().add("demo.io")).put("apiVersions", new JsonArray().add("*"))
            .put("resources", new JsonArray().add("widgets"))));
    assertNull(ValidatingPolicies.matchResources(mr, create(widget(1)), Map.of()));
    Admission.Attributes other = new Admission.Attributes("demo.io", "v1", "widgets", "", "Widget", "default", "w2",
        "CREATE", widget(1), null, new JsonObject(), false, new UserInfo("a", "", List.of(), Map.of()), true,
        List.of());
    assertEquals("v1", ValidatingPolicies.matchResources(mr, other, Map.of()));
  }

  @Test
  void validationTexts() {
    JsonObject bad = policy("p", "Sometimes", new JsonObject().put("expression", "object.spec.size >")
        .put("reason", "Teapot"));
    List<String> errs = AdmissionPolicies.validatePolicy(AdmissionPolicies.setPolicyDefaults(bad)).stream()
        .map(FieldError::error).toList();
    assertEquals(3, errs.size(), errs.toString());
    assertEquals("spec.failurePolicy: Unsupported value: \"Sometimes\": supported values: \"Fail\", \"Ignore\"",
        errs.get(0));
    assertEquals(true, errs.get(1).startsWith("spec.validations[0].expression: Invalid value: \"object.spec.size >\": "
        + "compilation failed: "), errs.get(1));
    assertEquals("spec.validations[0].reason: Unsupported value: \"Teapot\": supported values: \"Unauthorized\", "
        + "\"Forbidden\", \"Invalid\", \"RequestEntityTooLarge\"", errs.get(2));
    // validateMatchConditions compiles without the policy's variables; validations may use them
    JsonObject withVars = policy("p", "Fail", new JsonObject().put("expression", "variables.small"));
    withVars.getJsonObject("spec").put("variables", new JsonArray().add(new JsonObject().put("name", "small")
        .put("expression", "object.spec.size < 3"))).put("matchConditions", new JsonArray()
        .add(new JsonObject().put("name", "uses-vars").put("expression", "variables.small"))
        .add(new JsonObject().put("name", "plain").put("expression", "object.spec.size > 0")));
    List<String> varErrs = AdmissionPolicies.validatePolicy(AdmissionPolicies.setPolicyDefaults(withVars)).stream()
        .map(FieldError::error).toList();
    assertEquals(1, varErrs.size(), varErrs.toString());
    assertTrue(varErrs.get(0).startsWith("spec.matchConditions[0].expression: Invalid value: \"variables.small\": "
        + "compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables'"), varErrs.get(0));
    JsonObject empty = new JsonObject().put("spec", new JsonObject());
    assertEquals(List.of("spec.matchConstraints: Required value", "spec.validations: Required value: validations or "
        + "auditAnnotations must contain at least one item"), AdmissionPolicies.validatePolicy(empty).stream()
        .map(FieldError::error).toList());
    assertEquals(List.of("spec.policyName: Required value", "spec.validationActions: Required value"),
        AdmissionPolicies.validateBinding(new JsonObject().put("spec", new JsonObject())).stream()
            .map(FieldError::error).toList());
    assertEquals(List.of("spec.validationActions: Invalid value: []v1.ValidationAction{\"Deny\", \"Warn\"}: must not "
        + "contain both Deny and Warn (repeating the same validation failure information in the API response and "
        + "headers serves no purpose)"), AdmissionPolicies.validateBinding(binding("b", "p", "Deny", "Warn"))
        .stream().map(FieldError::error).toList());
    assertEquals(List.of("spec.validationActions[0]: Unsupported value: \"Block\": supported values: \"Audit\", "
        + "\"Deny\", \"Warn\""), AdmissionPolicies.validateBinding(binding("b", "p", "Block")).stream()
        .map(FieldError::error).toList());
  }
}
