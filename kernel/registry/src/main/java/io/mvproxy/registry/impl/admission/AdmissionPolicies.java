package io.mvproxy.registry.impl.admission;

import io.mvproxy.registry.impl.schema.FieldError;
import io.mvproxy.registry.impl.schema.GoValues;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Defaults and validation of {@code admissionregistration.k8s.io/v1} ValidatingAdmissionPolicy and
 * ValidatingAdmissionPolicyBinding, as kube-apiserver's {@code pkg/apis/admissionregistration/v1/defaults.go}
 * ({@code SetDefaults_ValidatingAdmissionPolicySpec}, {@code SetDefaults_MatchResources},
 * {@code SetDefaults_NamedRuleWithOperations}) and {@code validation.go}
 * ({@code ValidateValidatingAdmissionPolicy}, {@code ValidateValidatingAdmissionPolicyBinding}). Parameters
 * ({@code spec.paramKind}, {@code spec.paramRef}) are refused here: this server does not resolve them.
 */
public final class AdmissionPolicies {
  /** Kind of the policies. */
  public static final String POLICY = "ValidatingAdmissionPolicy";
  /** Kind of the bindings. */
  public static final String BINDING = "ValidatingAdmissionPolicyBinding";
  static final List<String> REASONS = List.of("Unauthorized", "Forbidden", "Invalid", "RequestEntityTooLarge");

  private AdmissionPolicies() {
  }

  /**
   * Fills the v1 defaults of a policy in place: {@code spec.failurePolicy: Fail}, and in
   * {@code spec.matchConstraints} {@code matchPolicy: Equivalent}, {@code namespaceSelector: {}},
   * {@code objectSelector: {}}, each resource rule's {@code scope: "*"}.
   *
   * @param policy the policy (changed)
   * @return {@code policy}
   */
  public static JsonObject setPolicyDefaults(JsonObject policy) {
    if (policy.getValue("spec") instanceof JsonObject spec) {
      if (spec.getValue("failurePolicy") == null) {
        spec.put("failurePolicy", "Fail");
      }
      if (spec.getValue("matchConstraints") instanceof JsonObject mc) {
        matchResourcesDefaults(mc);
      }
    }
    return policy;
  }

  /**
   * Fills the v1 defaults of a binding in place ({@code spec.matchResources} as a policy's constraints).
   *
   * @param binding the binding (changed)
   * @return {@code binding}
   */
  public static JsonObject setBindingDefaults(JsonObject binding) {
    if (binding.getValue("spec") instanceof JsonObject spec && spec.getValue("matchResources") instanceof JsonObject m) {
      matchResourcesDefaults(m);
    }
    return binding;
  }

  private static void matchResourcesDefaults(JsonObject m) {
    if (m.getValue("matchPolicy") == null) {
      m.put("matchPolicy", "Equivalent");
    }
    if (m.getValue("namespaceSelector") == null) {
      m.put("namespaceSelector", new JsonObject());
    }
    if (m.getValue("objectSelector") == null) {
      m.put("objectSelector", new JsonObject());
    }
    for (String key : List.of("resourceRules", "excludeResourceRules")) {
      if (m.getValue(key) instanceof JsonArray rules) {
        for (Object r : rules) {
          if (r instanceof JsonObject rule && rule.getValue("scope") == null) {
            rule.put("scope", "*");
          }
        }
      }
    }
  }

  /** Longest {@code auditAnnotations[].valueExpression}, bytes ({@code maxAuditAnnotationValueExpressionLength}). */
  static final int MAX_VALUE_EXPRESSION_BYTES = 5 * 1024;

  /**
   * @param policy a defaulted policy
   * @return its errors, empty when valid
   */
  public static List<FieldError> validatePolicy(JsonObject policy) {
    List<FieldError> errs = new ArrayList<>();
    JsonObject spec = policy.getValue("spec") instanceof JsonObject s ? s : new JsonObject();
    if (spec.getValue("paramKind") != null) {
      errs.add(FieldError.forbidden("spec.paramKind", "parameters are not supported by this server"));
    }
    if (!(spec.getValue("matchConstraints") instanceof JsonObject mc)) {
      errs.add(FieldError.required("spec.matchConstraints", ""));
    } else {
      validateMatchResources(mc, "spec.matchConstraints", true, errs);
    }
    JsonArray validations = spec.getValue("validations") instanceof JsonArray a ? a : new JsonArray();
    JsonArray audit = spec.getValue("auditAnnotations") instanceof JsonArray a ? a : new JsonArray();
    if (validations.isEmpty() && audit.isEmpty()) {
      errs.add(FieldError.required("spec.validations", "validations or auditAnnotations must contain at least one "
          + "item"));
    }
    Object fp = spec.getValue("failurePolicy");
    if (fp != null && !List.of("Fail", "Ignore").contains(fp)) {
      errs.add(FieldError.notSupported("spec.failurePolicy", fp, List.of("Fail", "Ignore")));
    }
    JsonArray variables = spec.getValue("variables") instanceof JsonArray a ? a : new JsonArray();
    Set<String> names = new HashSet<>();
    for (int i = 0; i < variables.size(); i++) {
      String p = "spec.variables[" + i + "]";
      JsonObject v = variables.getValue(i) instanceof JsonObject o ? o : new JsonObject();
      String name = v.getValue("name") instanceof String s ? s : "";
      if (name.isEmpty()) {
        errs.add(FieldError.required(p + ".name", ""));
      } else if (!name.matches("[_a-zA-Z][_a-zA-Z0-9]*")) {
        errs.add(FieldError.invalid(p + ".name", name, "name is not a valid CEL identifier"));
      } else if (!names.add(name)) {
        errs.add(FieldError.duplicate(p + ".name", name));
      }
      expression(v, p + ".expression", true, false, errs);
    }
    for (int i = 0; i < validations.size(); i++) {
      String p = "spec.validations[" + i + "]";
      JsonObject v = validations.getValue(i) instanceof JsonObject o ? o : new JsonObject();
      expression(v, p + ".expression", true, true, errs);
      Object me = v.getValue("messageExpression");
      if (me instanceof String s && !s.isBlank()) {
        String problem = PolicyCel.problem(s, PolicyCel.Returns.STRING, true);
        if (problem != null) {
          errs.add(FieldError.invalid(p + ".messageExpression", s, problem));
        }
      }
      Object msg = v.getValue("message");
      if (msg instanceof String m && m.contains("\n")) {
        errs.add(FieldError.invalid(p + ".message", m, "message must not contain line breaks"));
      }
      Object reason = v.getValue("reason");
      if (reason != null && !REASONS.contains(reason)) {
        errs.add(FieldError.notSupported(p + ".reason", reason, REASONS));
      }
    }
    // validateAuditAnnotation: "<policy name>/<key>" a qualified name, the expression a string or null, keys unique
    String policyName = policy.getValue("metadata") instanceof JsonObject md && md.getValue("name") instanceof String n
        ? n : "";
    Set<String> keys = new HashSet<>();
    for (int i = 0; i < audit.size(); i++) {
      String p = "spec.auditAnnotations[" + i + "]";
      JsonObject v = audit.getValue(i) instanceof JsonObject o ? o : new JsonObject();
      String key = v.getValue("key") instanceof String k ? k : "";
      if (policyName.isEmpty()) {
        errs.add(FieldError.invalid(p + ".key", key, "requires metadata.name be non-empty"));
      } else {
        for (String m : io.mvproxy.registry.impl.rest.ObjectMetaValidator.qualifiedName(policyName + "/" + key)) {
          errs.add(FieldError.invalid(p + ".key", policyName + "/" + key, m));
        }
      }
      String expr = v.getValue("valueExpression") instanceof String e ? ValidatingPolicies.trimSpace(e) : "";
      if (expr.isEmpty()) {
        errs.add(FieldError.required(p + ".valueExpression", "valueExpression is not specified"));
      } else if (expr.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_VALUE_EXPRESSION_BYTES) {
        errs.add(FieldError.required(p + ".valueExpression", "must not exceed " + MAX_VALUE_EXPRESSION_BYTES
            + " bytes in length"));
      } else {
        String problem = PolicyCel.problem(expr, PolicyCel.Returns.STRING_OR_NULL, true);
        if (problem != null) {
          errs.add(FieldError.invalid(p + ".valueExpression", expr, problem));
        }
      }
      if (!keys.add(key)) {
        errs.add(FieldError.duplicate(p + ".key", key));
      }
    }
    validateConditions(spec.getValue("matchConditions"), "spec.matchConditions", errs);
    return errs;
  }

  private static void expression(JsonObject v, String path, boolean required, boolean bool, List<FieldError> errs) {
    expression(v, path, required, bool, true, errs);
  }

  private static void expression(JsonObject v, String path, boolean required, boolean bool, boolean variables,
                                 List<FieldError> errs) {
    String expr = v.getValue("expression") instanceof String s ? s : "";
    if (expr.isBlank()) {
      if (required) {
        errs.add(FieldError.required(path, ""));
      }
      return;
    }
    String problem = PolicyCel.problem(expr, bool ? PolicyCel.Returns.BOOL : PolicyCel.Returns.ANY, variables);
    if (problem != null) {
      errs.add(FieldError.invalid(path, expr, problem));
    }
  }

  private static void validateConditions(Object value, String path, List<FieldError> errs) {
    if (!(value instanceof JsonArray conds)) {
      return;
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < conds.size(); i++) {
      String p = path + "[" + i + "]";
      JsonObject c = conds.getValue(i) instanceof JsonObject o ? o : new JsonObject();
      String name = c.getValue("name") instanceof String s ? s : "";
      if (name.isEmpty()) {
        errs.add(FieldError.required(p + ".name", ""));
      } else if (!names.add(name)) {
        errs.add(FieldError.duplicate(p + ".name", name));
      }
      expression(c, p + ".expression", true, true, false, errs);
    }
  }

  private static void validateMatchResources(JsonObject m, String path, boolean rulesRequired,
                                             List<FieldError> errs) {
    JsonArray rules = m.getValue("resourceRules") instanceof JsonArray a ? a : new JsonArray();
    if (rulesRequired && rules.isEmpty()) {
      errs.add(FieldError.required(path + ".resourceRules", ""));
    }
    Object mp = m.getValue("matchPolicy");
    if (mp != null && !List.of("Equivalent", "Exact").contains(mp)) {
      errs.add(FieldError.notSupported(path + ".matchPolicy", mp, List.of("Equivalent", "Exact")));
    }
    List<FieldError> ruleErrs = new ArrayList<>();
    for (String key : List.of("resourceRules", "excludeResourceRules")) {
      JsonArray list = m.getValue(key) instanceof JsonArray a ? a : new JsonArray();
      for (int i = 0; i < list.size(); i++) {
        // a NamedRuleWithOperations is a RuleWithOperations plus resourceNames: validated as a webhook's rule
        JsonObject hook = new JsonObject().put("name", "a.b.c").put("sideEffects", "None")
            .put("admissionReviewVersions", new JsonArray().add("v1"))
            .put("clientConfig", new JsonObject().put("url", "https://x"))
            .put("rules", new JsonArray().add(list.getValue(i)));
        for (FieldError e : WebhookConfigurations.validate(new JsonObject().put("webhooks",
            new JsonArray().add(hook)), false)) {
          ruleErrs.add(e.withField(e.field().replace("webhooks[0].rules[0]", path + "." + key + "[" + i + "]")));
        }
      }
    }
    errs.addAll(ruleErrs);
  }

  /**
   * @param binding a defaulted binding
   * @return its errors, empty when valid
   */
  public static List<FieldError> validateBinding(JsonObject binding) {
    List<FieldError> errs = new ArrayList<>();
    JsonObject spec = binding.getValue("spec") instanceof JsonObject s ? s : new JsonObject();
    if (!(spec.getValue("policyName") instanceof String p) || p.isEmpty()) {
      errs.add(FieldError.required("spec.policyName", ""));
    }
    if (spec.getValue("paramRef") != null) {
      errs.add(FieldError.forbidden("spec.paramRef", "parameters are not supported by this server"));
    }
    if (spec.getValue("matchResources") instanceof JsonObject m) {
      validateMatchResources(m, "spec.matchResources", false, errs);
    }
    JsonArray actions = spec.getValue("validationActions") instanceof JsonArray a ? a : new JsonArray();
    if (actions.isEmpty()) {
      errs.add(FieldError.required("spec.validationActions", ""));
    }
    Set<Object> seen = new HashSet<>();
    List<String> valid = List.of("Audit", "Deny", "Warn");
    for (int i = 0; i < actions.size(); i++) {
      Object a = actions.getValue(i);
      if (!seen.add(a)) {
        errs.add(FieldError.duplicate("spec.validationActions[" + i + "]", a));
      } else if (!valid.contains(a)) {
        errs.add(FieldError.notSupported("spec.validationActions[" + i + "]", a, valid));
      }
    }
    if (actions.contains("Deny") && actions.contains("Warn")) {
      StringBuilder go = new StringBuilder("[]v1.ValidationAction{");
      for (int i = 0; i < actions.size(); i++) {
        go.append(i == 0 ? "" : ", ").append(GoValues.quote(String.valueOf(actions.getValue(i))));
      }
      errs.add(FieldError.invalid("spec.validationActions", new GoValues.Raw(go.append("}").toString()),
          "must not contain both Deny and Warn (repeating the same validation failure information in the API "
              + "response and headers serves no purpose)"));
    }
    return errs;
  }
}
