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
 * {@code message}, else {@code failed expression: <expression>}. {@code Audit} is accepted
 * and not acted on (no audit annotation). Policies and bindings are fed from watches ({@link #policyEvent},
 * {@link #bindingEvent}).
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

  /** A compiled policy. */
  private record Compiled(String name, JsonObject constraints, boolean ignore, List<String> variableNames,
                          List<CelRuntime.Program> variables, List<String> conditionExpressions,
                          List<CelRuntime.Program> conditions, List<Validation> validations) {
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
    return new Compiled(name, spec.getJsonObject("matchConstraints", new JsonObject()),
        "Ignore".equals(spec.getString("failurePolicy")), varNames, vars, condExpressions, conds, validations);
  }

  /**
   * @param a               the request
   * @param namespaceObject the request's namespace object (null for cluster-scoped requests or when unknown)
   * @return null when admitted, else the denial
   */
  public StatusException evaluate(Admission.Attributes a, JsonObject namespaceObject) {
    Map<String, String> nsLabels = WebhookMatching.labels(namespaceObject);
    StatusException firstDenial = null;
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
      for (String failure : check(policy, a, version, namespaceObject)) {
        if (actions.contains("Deny") && firstDenial == null) {
          firstDenial = denied(a, policy.name(), bindingName, failure);
        }
        if (actions.contains("Warn")) {
          a.warnings().accept("Validation failed for ValidatingAdmissionPolicy '" + policy.name() + "' with binding '"
              + bindingName + "': " + failure.split("\0", 2)[0]);
        }
      }
    }
    return firstDenial;
  }

  /**
   * Longest message a {@code messageExpression} may give, bytes
   * ({@code celconfig.MaxEvaluatedMessageExpressionSizeBytes}).
   */
  static final int MAX_EVALUATED_MESSAGE_BYTES = 5 * 1024;

  /**
   * @return every failed validation of {@code policy} in order, each its message and reason joined by {@code \0};
   *     empty when it admits (a matchCondition false, or every validation true)
   */
  private static List<String> check(Compiled policy, Admission.Attributes a, String version,
                                    JsonObject namespaceObject) {
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
          return List.of();
        }
      } catch (Exception e) {
        conditionErrors.add("expression '" + policy.conditionExpressions().get(i) + "' resulted in error: "
            + CelValues.goError(e));
      }
    }
    if (!conditionErrors.isEmpty()) {
      // utilerrors.NewAggregate(...).Error(): repeated texts once; one text alone, several as [a, b]
      List<String> distinct = List.copyOf(new java.util.LinkedHashSet<>(conditionErrors));
      return policy.ignore() ? List.of() : List.of((distinct.size() == 1 ? distinct.get(0)
          : "[" + String.join(", ", distinct) + "]") + "\0Invalid");
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
    List<String> failures = new ArrayList<>();
    for (Validation v : policy.validations()) {
      Object r;
      try {
        r = v.program().eval(vars);
      } catch (Exception e) {
        if (!policy.ignore()) {
          failures.add("expression '" + v.expression() + "' resulted in error: " + CelValues.goError(e)
              + "\0Invalid");
        }
        continue;
      }
      if (!(r instanceof Boolean b)) {
        if (!policy.ignore()) {
          failures.add("expression '" + v.expression() + "' resulted in error: must evaluate to bool\0Invalid");
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
        failures.add(msg + "\0" + (v.reason() == null ? "Invalid" : v.reason()));
      }
    }
    return failures;
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

  private static StatusException denied(Admission.Attributes a, String policy, String binding, String failure) {
    String[] parts = failure.split("\0", 2);
    String message = "ValidatingAdmissionPolicy '" + policy + "' with binding '" + binding + "' denied request: "
        + parts[0];
    String reason = parts[1];
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
