package io.mvproxy.registry.impl.admission;

import dev.cel.runtime.CelRuntime;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.admission.Admission;
import io.mvproxy.api.storage.WatchEvent;
import io.mvproxy.registry.impl.schema.CelValues;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * The ValidatingAdmissionPolicy plugin ({@code apiserver/pkg/admission/plugin/policy/validating}): every
 * ValidatingAdmissionPolicyBinding (in name order) whose policy exists and whose policy {@code matchConstraints}
 * and binding {@code matchResources} cover the request, and whose {@code matchConditions} hold, has its policy's
 * {@code variables} and every one of its {@code validations} evaluated in CEL ({@link PolicyCel}), as
 * {@code validating/dispatcher.go} does: each failed validation of a binding whose {@code validationActions} hold
 * {@code Warn} is a warning ({@code Validation failed for ValidatingAdmissionPolicy 'P' with binding 'B': MSG}),
 * and once every binding is evaluated the first failure of a binding with {@code Deny} denies the request:
 * {@code <resource> "<name>" is forbidden: ValidatingAdmissionPolicy 'P' with binding 'B' denied request: MSG}, with
 * the validation's {@code reason} (default {@code Invalid}, 422). An expression that fails to evaluate is a failure
 * under {@code failurePolicy: Fail} and is skipped under {@code Ignore}. Messages are {@code validator.go}'s: the
 * {@code messageExpression}'s string trimmed (unless empty, over 5 KiB or multi-line), else the trimmed
 * {@code message}, else {@code failed expression: <expression>}. A failure of a binding with {@code Audit} goes into
 * the request's audit annotation {@code validation.policy.admission.k8s.io/validation_failure} (a JSON list of
 * {@code message}, {@code policy}, {@code binding}, {@code expressionIndex}, {@code validationActions}; at most 50),
 * and each {@code auditAnnotations} value (its {@code valueExpression}: a string, trimmed, or null to leave it out)
 * into {@code <policy>/<key>} (distinct values of several bindings joined by {@code ", "}, at most 10 KiB each); a
 * value expression that fails or gives another type denies the request under {@code failurePolicy: Fail}.
 * Policies and bindings are fed from watches ({@link #policyEvent}, {@link #bindingEvent}).
 */
public final class ValidatingPolicies {
  private static final Logger LOG = Logger.getLogger(ValidatingPolicies.class.getName());
  private final Map<String, JsonObject> policies = new ConcurrentHashMap<>();
  private final Map<String, JsonObject> bindings = new ConcurrentHashMap<>();
  private volatile Map<String, Compiled> compiled = Map.of();
  private volatile List<JsonObject> bindingOrder = List.of();

  /** A compiled validation. */
  private record Validation(String expression, CelRuntime.Program program, String message,
                            CelRuntime.Program messageProgram, String reason) {
  }

  /** A compiled audit annotation. */
  private record AuditAnnotation(String key, String valueExpression, CelRuntime.Program program) {
  }

  /** A compiled policy. */
  private record Compiled(String name, JsonObject constraints, boolean ignore, List<String> variableNames,
                          List<CelRuntime.Program> variables, List<String> conditionExpressions,
                          List<CelRuntime.Program> conditions, List<Validation> validations,
                          List<AuditAnnotation> auditAnnotations) {
  }

  /** A failed validation: its index in {@code validations}, message and reason. */
  private record Failure(int index, String message, String reason) {
  }

  /** An audit annotation's outcome: a value to publish, or an error (null both: left out). */
  private record AnnotationValue(String key, String value, String error) {
  }

  /** What one policy says of one request. */
  private record Result(List<Failure> failures, List<AnnotationValue> annotations) {
    static final Result ADMIT = new Result(List.of(), List.of());
  }

  /** @param e a watch event of the policies' store */
  public void policyEvent(WatchEvent e) {
    JsonObject o = e.object().object();
    String name = o.getJsonObject("metadata", new JsonObject()).getString("name", "");
    if (e.type() == WatchEvent.Type.DELETED) {
      policies.remove(name);
    } else {
      policies.put(name, o.copy());
    }
    Map<String, Compiled> next = new HashMap<>();
    policies.forEach((n, p) -> {
      try {
        next.put(n, compile(n, AdmissionPolicies.setPolicyDefaults(p.copy())));
      } catch (RuntimeException ex) {
        LOG.warning("admission: skipping ValidatingAdmissionPolicy " + n + ": " + ex.getMessage());
      }
    });
    compiled = Map.copyOf(next);
  }

  /** @param e a watch event of the bindings' store */
  public void bindingEvent(WatchEvent e) {
    JsonObject o = e.object().object();
    String name = o.getJsonObject("metadata", new JsonObject()).getString("name", "");
    if (e.type() == WatchEvent.Type.DELETED) {
      bindings.remove(name);
    } else {
      bindings.put(name, AdmissionPolicies.setBindingDefaults(o.copy()));
    }
    bindingOrder = List.copyOf(new TreeMap<>(bindings).values());
  }

  /** @return true when a binding exists */
  public boolean active() {
    return !bindingOrder.isEmpty();
  }

  private static Compiled compile(String name, JsonObject policy) {
    JsonObject spec = policy.getJsonObject("spec", new JsonObject());
    List<String> varNames = new ArrayList<>();
    List<CelRuntime.Program> vars = new ArrayList<>();
    for (Object o : spec.getJsonArray("variables", new JsonArray())) {
      JsonObject v = (JsonObject) o;
      varNames.add(v.getString("name"));
      vars.add(PolicyCel.program(v.getString("expression")));
    }
    List<String> condExpressions = new ArrayList<>();
    List<CelRuntime.Program> conds = new ArrayList<>();
    for (Object o : spec.getJsonArray("matchConditions", new JsonArray())) {
      JsonObject c = (JsonObject) o;
      condExpressions.add(c.getString("expression"));
      conds.add(PolicyCel.program(c.getString("expression")));
    }
    List<Validation> validations = new ArrayList<>();
    for (Object o : spec.getJsonArray("validations", new JsonArray())) {
      JsonObject v = (JsonObject) o;
      String me = v.getString("messageExpression");
      validations.add(new Validation(v.getString("expression").trim(), PolicyCel.program(v.getString("expression")),
          v.getString("message"), me == null || me.isBlank() ? null : PolicyCel.program(me),
          v.getString("reason")));
    }
    List<AuditAnnotation> audit = new ArrayList<>();
    for (Object o : spec.getJsonArray("auditAnnotations", new JsonArray())) {
      JsonObject v = (JsonObject) o;
      audit.add(new AuditAnnotation(v.getString("key"), v.getString("valueExpression"),
          PolicyCel.program(v.getString("valueExpression"))));
    }
    return new Compiled(name, spec.getJsonObject("matchConstraints", new JsonObject()),
        "Ignore".equals(spec.getString("failurePolicy")), varNames, vars, condExpressions, conds, validations, audit);
  }

  /**
   * @param a               the request
   * @param namespaceObject the request's namespace object (null for cluster-scoped requests or when unknown)
   * @return null when admitted, else the denial
   */
  public StatusException evaluate(Admission.Attributes a, JsonObject namespaceObject) {
    Map<String, String> nsLabels = WebhookMatching.labels(namespaceObject);
    StatusException firstDenial = null;
    JsonArray auditFailures = new JsonArray();
    // dispatcher.go auditAnnotationCollector: per policy, per key, the distinct values of its bindings
    Map<String, Map<String, List<String>>> published = new java.util.LinkedHashMap<>();
    for (JsonObject binding : bindingOrder) {
      JsonObject spec = binding.getJsonObject("spec", new JsonObject());
      Compiled policy = compiled.get(spec.getString("policyName", ""));
      if (policy == null) {
        continue;
      }
      String version = matchResources(policy.constraints(), a, nsLabels);
      if (version == null) {
        continue;
      }
      if (spec.getValue("matchResources") instanceof JsonObject mr && matchResources(mr, a, nsLabels) == null) {
        continue;
      }
      JsonArray actions = spec.getJsonArray("validationActions", new JsonArray());
      String bindingName = binding.getJsonObject("metadata", new JsonObject()).getString("name", "");
      Result result = check(policy, a, version, namespaceObject);
      for (Failure failure : result.failures()) {
        for (Object action : actions) {
          switch (String.valueOf(action)) {
            case "Deny" -> {
              if (firstDenial == null) {
                firstDenial = denied(a, policy.name(), bindingName, failure.message(), failure.reason());
              }
            }
            case "Audit" -> auditFailures.add(new JsonObject().put("message", failure.message())
                .put("policy", policy.name()).put("binding", bindingName).put("expressionIndex", failure.index())
                .put("validationActions", actions.copy()));
            case "Warn" -> a.warnings().accept("Validation failed for ValidatingAdmissionPolicy '" + policy.name()
                + "' with binding '" + bindingName + "': " + failure.message());
            default -> { }
          }
        }
      }
      for (AnnotationValue v : result.annotations()) {
        if (v.error() != null) {
          // "When failurePolicy=fail, audit annotation errors result in deny", whatever the binding's actions
          if (firstDenial == null) {
            firstDenial = denied(a, policy.name(), bindingName, v.error(), "Invalid");
          }
        } else if (v.value() != null) {
          List<String> values = published.computeIfAbsent(policy.name(), p -> new java.util.LinkedHashMap<>())
              .computeIfAbsent(v.key(), k -> new ArrayList<>());
          if (!values.contains(v.value())) {
            values.add(v.value());
          }
        }
      }
    }
    published.forEach((policy, keys) -> keys.forEach((key, values) ->
        a.annotations().accept(policy + "/" + key, String.join(", ", values))));
    if (!auditFailures.isEmpty()) {
      JsonArray kept = new JsonArray(auditFailures.getList().subList(0, Math.min(MAX_AUDIT_FAILURES,
          auditFailures.size())));
      a.annotations().accept(VALIDATION_FAILURE_ANNOTATION, goJson(kept.encode()));
    }
    return firstDenial;
  }

  /** The audit annotation of {@code Audit} failures ({@code validating/dispatcher.go}). */
  static final String VALIDATION_FAILURE_ANNOTATION = "validation.policy.admission.k8s.io/validation_failure";
  /** At most this many failures go into it ({@code maxValidationFailures}). */
  static final int MAX_AUDIT_FAILURES = 50;
  /** Longest audit annotation value of a policy, bytes ({@code maxAuditAnnotationValueLength}). */
  static final int MAX_AUDIT_ANNOTATION_BYTES = 10 * 1024;

  /** JSON text as Go's {@code json.Marshal} escapes it: {@code <}, {@code >}, {@code &}, U+2028, U+2029. */
  static String goJson(String json) {
    return json.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029");
  }

  /**
   * Longest message a {@code messageExpression} may give, bytes
   * ({@code celconfig.MaxEvaluatedMessageExpressionSizeBytes}).
   */
  static final int MAX_EVALUATED_MESSAGE_BYTES = 5 * 1024;

  /**
   * @return every failed validation of {@code policy} in order and its audit annotations; nothing when a
   *     matchCondition is false (validator.go: conditions first, then validations, then audit annotations)
   */
  private static Result check(Compiled policy, Admission.Attributes a, String version, JsonObject namespaceObject) {
    JsonObject request = AdmissionReviews.request("", a, version).getJsonObject("request");
    Map<String, Object> vars = new HashMap<>();
    vars.put("object", CelValues.toCel(request.getJsonObject("object"), null, false));
    vars.put("oldObject", CelValues.toCel(request.getJsonObject("oldObject"), null, false));
    vars.put("request", CelValues.toCel(request, null, false));
    vars.put("params", CelValues.toCel(null, null, false));
    vars.put("namespaceObject", CelValues.toCel(namespaceObject, null, false));
    Map<String, Object> variables = new HashMap<>();
    vars.put("variables", variables);
    // matchconditions/matcher.go: any condition false is no match; errors count only when none is false
    List<String> conditionErrors = new ArrayList<>();
    for (int i = 0; i < policy.conditions().size(); i++) {
      try {
        Object r = policy.conditions().get(i).eval(vars);
        if (Boolean.FALSE.equals(r)) {
          return Result.ADMIT;
        }
      } catch (Exception e) {
        conditionErrors.add("expression '" + policy.conditionExpressions().get(i) + "' resulted in error: "
            + CelValues.goError(e));
      }
    }
    if (!conditionErrors.isEmpty()) {
      // utilerrors.NewAggregate(...).Error(): repeated texts once; one text alone, several as [a, b]
      List<String> distinct = List.copyOf(new java.util.LinkedHashSet<>(conditionErrors));
      return policy.ignore() ? Result.ADMIT : new Result(List.of(new Failure(0, distinct.size() == 1
          ? distinct.get(0) : "[" + String.join(", ", distinct) + "]", "Invalid")), List.of());
    }
    for (int i = 0; i < policy.variables().size(); i++) {
      try {
        variables.put(policy.variableNames().get(i), policy.variables().get(i).eval(vars));
      } catch (Exception e) {
        // left out: an expression using it fails with no such key, as a lazily evaluated variable would fail
        LOG.fine("admission: variable " + policy.variableNames().get(i) + " of " + policy.name() + ": "
            + e.getMessage());
      }
    }
    List<Failure> failures = new ArrayList<>();
    for (int i = 0; i < policy.validations().size(); i++) {
      Validation v = policy.validations().get(i);
      Object r;
      try {
        r = v.program().eval(vars);
      } catch (Exception e) {
        if (!policy.ignore()) {
          failures.add(new Failure(i, "expression '" + v.expression() + "' resulted in error: "
              + CelValues.goError(e), "Invalid"));
        }
        continue;
      }
      if (!(r instanceof Boolean b)) {
        if (!policy.ignore()) {
          failures.add(new Failure(i, "expression '" + v.expression() + "' resulted in error: must evaluate to bool",
              "Invalid"));
        }
        continue;
      }
      if (!b) {
        String msg = "";
        if (v.messageProgram() != null) {
          try {
            Object m = v.messageProgram().eval(vars);
            msg = m instanceof String s ? trimSpace(s) : "";
          } catch (Exception e) {
            msg = "";
          }
          if (msg.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_EVALUATED_MESSAGE_BYTES
              || msg.contains("\n")) {
            msg = "";
          }
        }
        if (msg.isEmpty() && v.message() != null) {
          msg = trimSpace(v.message());
        }
        if (msg.isEmpty()) {
          msg = "failed expression: " + trimSpace(v.expression());
        }
        failures.add(new Failure(i, msg, v.reason() == null ? "Invalid" : v.reason()));
      }
    }
    List<AnnotationValue> annotations = new ArrayList<>();
    for (AuditAnnotation an : policy.auditAnnotations()) {
      Object r;
      try {
        r = an.program().eval(vars);
      } catch (Exception e) {
        annotations.add(new AnnotationValue(an.key(), null, policy.ignore() ? null
            : "expression '" + an.valueExpression() + "' resulted in error: " + CelValues.goError(e)));
        continue;
      }
      if (r instanceof String str) {
        String value = trimSpace(str);
        annotations.add(new AnnotationValue(an.key(), value.isEmpty() ? null : truncate(value), null));
      } else if (r == null || r instanceof dev.cel.common.values.NullValue) {
        annotations.add(new AnnotationValue(an.key(), null, null));
      } else {
        annotations.add(new AnnotationValue(an.key(), null, "valueExpression '" + an.valueExpression()
            + "' resulted in unsupported return type: " + celType(r) + ". Return type must be either string or null."));
      }
    }
    return new Result(failures, annotations);
  }

  /** @return at most {@link #MAX_AUDIT_ANNOTATION_BYTES} UTF-8 bytes of {@code s} (Go slices the bytes) */
  private static String truncate(String s) {
    byte[] b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    return b.length <= MAX_AUDIT_ANNOTATION_BYTES ? s
        : new String(b, 0, MAX_AUDIT_ANNOTATION_BYTES, java.nio.charset.StandardCharsets.UTF_8);
  }

  /** @return cel-go's name of the type of a CEL value */
  private static String celType(Object v) {
    if (v instanceof Boolean) {
      return "bool";
    }
    if (v instanceof Long || v instanceof Integer) {
      return "int";
    }
    if (v instanceof Double) {
      return "double";
    }
    if (v instanceof com.google.common.primitives.UnsignedLong) {
      return "uint";
    }
    if (v instanceof com.google.protobuf.ByteString || v instanceof dev.cel.common.values.CelByteString) {
      return "bytes";
    }
    if (v instanceof java.util.List) {
      return "list";
    }
    if (v instanceof java.util.Map) {
      return "map";
    }
    return v.getClass().getSimpleName();
  }

  /** Go's {@code strings.TrimSpace}: leading and trailing {@code unicode.IsSpace} code points removed. */
  static String trimSpace(String s) {
    int start = 0;
    int end = s.length();
    while (start < end && goSpace(s.codePointAt(start))) {
      start += Character.charCount(s.codePointAt(start));
    }
    while (end > start && goSpace(s.codePointBefore(end))) {
      end -= Character.charCount(s.codePointBefore(end));
    }
    return s.substring(start, end);
  }

  /**
   * Go's {@code unicode.IsSpace}: {@code \t \n \v \f \r}, space, U+0085, U+00A0, and above Latin-1 the White_Space
   * property (U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000).
   */
  static boolean goSpace(int cp) {
    return switch (cp) {
      case '\t', '\n', 0x0B, '\f', '\r', ' ', 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000 -> true;
      default -> cp >= 0x2000 && cp <= 0x200A;
    };
  }

  private static StatusException denied(Admission.Attributes a, String policy, String binding, String failureMessage,
                                        String reason) {
    String message = "ValidatingAdmissionPolicy '" + policy + "' with binding '" + binding + "' denied request: "
        + failureMessage;
    int code = switch (reason) {
      case "Forbidden" -> 403;
      case "RequestEntityTooLarge" -> 413;
      case "Unauthorized" -> 401;
      default -> 422;
    };
    String gr = a.group().isEmpty() ? a.resource() : a.resource() + "." + a.group();
    String full = a.name().isEmpty() ? gr + " is forbidden: " + message
        : gr + " \"" + a.name() + "\" is forbidden: " + message;
    JsonObject details = new JsonObject();
    if (!a.name().isEmpty()) {
      details.put("name", a.name());
    }
    details.put("group", a.group()).put("kind", a.resource())
        .put("causes", new JsonArray().add(new JsonObject().put("message", message)));
    return StatusException.of(code, full, reason, details);
  }

  /**
   * @return the version the request matches {@code mr} (a MatchResources: resourceRules with resourceNames, none
   *     meaning every resource; excludeResourceRules, selectors, matchPolicy) with, or null
   */
  static String matchResources(JsonObject mr, Admission.Attributes a, Map<String, String> nsLabels) {
    Webhook include = asWebhook(mr, "resourceRules", a);
    // no resourceRules (a binding's matchResources may have none): every resource, as upstream's matching.Matches
    String version = mr.getJsonArray("resourceRules", new JsonArray()).isEmpty() ? a.version()
        : WebhookMatching.matchingVersion(include, a);
    if (version == null || !WebhookMatching.namespaceMatches(include, a, nsLabels)
        || !WebhookMatching.objectMatches(include, a)) {
      return null;
    }
    Webhook exclude = asWebhook(mr, "excludeResourceRules", a);
    if (!exclude.rules().isEmpty() && WebhookMatching.matchingVersion(exclude, a) != null) {
      return null;
    }
    return version;
  }

  private static Webhook asWebhook(JsonObject mr, String key, Admission.Attributes a) {
    List<JsonObject> rules = new ArrayList<>();
    for (Object o : mr.getJsonArray(key, new JsonArray())) {
      if (o instanceof JsonObject r) {
        JsonArray names = r.getJsonArray("resourceNames", new JsonArray());
        if (names.isEmpty() || names.contains(a.name())) {
          rules.add(r);
        }
      }
    }
    return new Webhook("", "", false, rules, "Fail", mr.getString("matchPolicy", "Equivalent"),
        mr.getJsonObject("namespaceSelector"), mr.getJsonObject("objectSelector"), 10, "Never", new JsonObject(),
        MatchConditions.compile(null));
  }
}
