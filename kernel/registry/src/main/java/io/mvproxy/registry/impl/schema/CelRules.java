package io.mvproxy.registry.impl.schema;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelValidationResult;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.navigation.CelNavigableAst;
import dev.cel.common.types.CelKind;
import dev.cel.common.types.CelType;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code x-kubernetes-validations} rules of one CRD version, compiled once per plugin load with
 * {@link CelEnvironment} and evaluated as apiextensions-apiserver {@code pkg/apiserver/schema/cel/validation.go}
 * (Kubernetes 1.33): rules run on every non-null value of their schema node, {@code self} bound to it (the root
 * also sees {@code apiVersion}, {@code kind}, {@code metadata.name} and {@code metadata.generateName}), transition
 * rules ({@code oldSelf}) only where an old value correlates (same property, map key or list-map key) unless
 * {@code optionalOldSelf}; a failed rule gives {@code reason} (default FieldValueInvalid) at {@code fieldPath} with
 * {@code messageExpression}, {@code message} or {@code failed rule: <rule>}; unchanged values ratchet (errors of
 * rules without {@code oldSelf} dropped). Cost: {@link #PER_CALL_LIMIT} per evaluation and
 * {@link #RUNTIME_BUDGET} per request, counted in evaluated expression nodes; at load, the estimated cost of a
 * rule (times how often it runs, from maxItems / maxProperties) is refused above
 * {@link #STATIC_COST_LIMIT} and the total above {@link #CRD_COST_LIMIT} ({@link CelCost}).
 */
public final class CelRules {
  /** The variable bound to the value a rule validates. */
  public static final String SELF = "self";
  /** The variable bound to the old value in transition rules. */
  public static final String OLD_SELF = "oldSelf";
  /** apiserver {@code pkg/apis/cel/config.go PerCallLimit}. */
  public static final long PER_CALL_LIMIT = 1_000_000L;
  /** apiserver {@code pkg/apis/cel/config.go RuntimeCELCostBudget}. */
  public static final long RUNTIME_BUDGET = 10_000_000L;
  /** apiextensions {@code validation.go StaticEstimatedCostLimit}. */
  public static final long STATIC_COST_LIMIT = 10_000_000L;
  /** apiextensions {@code validation.go StaticEstimatedCRDCostLimit}. */
  public static final long CRD_COST_LIMIT = 100_000_000L;
  /** apiserver {@code MaxEvaluatedMessageExpressionSizeBytes}. */
  public static final int MAX_MESSAGE_BYTES = 5 * 1024;
  private static final Set<String> REASONS = Set.of("FieldValueRequired", "FieldValueForbidden",
      "FieldValueInvalid", "FieldValueDuplicate");
  private static final List<String> REASONS_SORTED = List.of("FieldValueDuplicate", "FieldValueForbidden",
      "FieldValueInvalid", "FieldValueRequired");

  /**
   * One compiled rule.
   *
   * @param rule              the expression
   * @param message           {@code message} ({@code ""} when absent)
   * @param messageExpression {@code messageExpression} ({@code ""} when absent)
   * @param reason            the cause type of a failure
   * @param fieldPath         the normalised {@code fieldPath} ({@code spec.x}), or null
   * @param optionalOldSelf   {@code optionalOldSelf}
   * @param usesOldSelf       true when the rule refers to {@code oldSelf}
   * @param program           the program
   * @param messageProgram    the {@code messageExpression} program, or null
   */
  public record Rule(String rule, String message, String messageExpression, String reason, String fieldPath,
                     boolean optionalOldSelf, boolean usesOldSelf, CelRuntime.Program program,
                     CelRuntime.Program messageProgram) {
  }

  private final SchemaNode root;
  private final boolean any;

  private CelRules(SchemaNode root, boolean any) {
    this.root = root;
    this.any = any;
  }

  /**
   * Compiles every rule under {@code root} and attaches them to their nodes.
   *
   * @param root       the version's root schema
   * @param schemaPath the field path of the schema in the CRD ({@code spec.versions[0].schema.openAPIV3Schema})
   * @param errors     collects kube-apiserver's CRD validation errors (compile errors, bad reasons, cost)
   * @return the rules
   */
  public static CelRules compile(SchemaNode root, String schemaPath, List<FieldError> errors) {
    CelCost.Total total = new CelCost.Total();
    boolean any = attach(root, schemaPath, errors, 1L, total, true);
    if (total.sum > CRD_COST_LIMIT) {
      errors.add(FieldError.forbidden(schemaPath, CelCost.message("x-kubernetes-validations estimated rule cost "
          + "total for entire OpenAPIv3 schema", total.sum, CRD_COST_LIMIT)));
    }
    return new CelRules(root, any);
  }

  /** @return true when the version has at least one rule */
  public boolean hasRules() {
    return any;
  }

  private static boolean attach(SchemaNode s, String path, List<FieldError> errors, long cardinality,
                                CelCost.Total total, boolean isRoot) {
    boolean any = false;
    if (s.raw.getValue("x-kubernetes-validations") instanceof JsonArray arr && !arr.isEmpty()) {
      List<Rule> rules = new ArrayList<>();
      for (int i = 0; i < arr.size(); i++) {
        JsonObject r = arr.getValue(i) instanceof JsonObject o ? o : new JsonObject();
        Rule compiled = compileRule(s, r, path + ".x-kubernetes-validations[" + i + "]", errors, cardinality, total,
            isRoot);
        if (compiled != null) {
          rules.add(compiled);
        }
      }
      s.rules = List.copyOf(rules);
      any = !rules.isEmpty();
    }
    if (s.properties != null) {
      for (Map.Entry<String, SchemaNode> e : s.properties.entrySet()) {
        any |= attach(e.getValue(), path + ".properties[" + e.getKey() + "]", errors, cardinality, total, false);
      }
    }
    if (s.additionalProperties != null) {
      any |= attach(s.additionalProperties, path + ".additionalProperties", errors,
          CelCost.times(cardinality, CelCost.maxSize(s)), total, false);
    }
    if (s.items != null) {
      any |= attach(s.items, path + ".items", errors, CelCost.times(cardinality, CelCost.maxSize(s)), total, false);
    }
    return any;
  }

  private static Rule compileRule(SchemaNode s, JsonObject r, String path, List<FieldError> errors,
                                  long cardinality, CelCost.Total total, boolean isRoot) {
    String rule = r.getValue("rule") instanceof String x ? x : "";
    String message = r.getValue("message") instanceof String x ? x : null;
    String msgExpr = r.getValue("messageExpression") instanceof String x ? x : null;
    String reason = r.getValue("reason") instanceof String x ? x : null;
    String fieldPath = r.getValue("fieldPath") instanceof String x ? x : null;
    Boolean optOld = r.getValue("optionalOldSelf") instanceof Boolean b ? b : null;
    int before = errors.size();
    if (rule.trim().isEmpty()) {
      errors.add(FieldError.required(path + ".rule", "rule is not specified"));
    }
    if (message != null && message.trim().isEmpty()) {
      errors.add(FieldError.invalid(path + ".message", message, "must be non-empty if specified"));
    } else if (message != null && message.matches("(?s).*[\\n\\r].*")) {
      errors.add(FieldError.invalid(path + ".message", message, "must not contain line breaks"));
    } else if (message == null && rule.matches("(?s).*[\\n\\r].*")) {
      errors.add(FieldError.required(path + ".message", "message must be specified if rule contains line breaks"));
    }
    if (msgExpr != null && msgExpr.trim().isEmpty()) {
      errors.add(FieldError.required(path + ".messageExpression", "messageExpression must be non-empty if "
          + "specified"));
    }
    if (reason != null && !REASONS.contains(reason)) {
      errors.add(FieldError.notSupported(path + ".reason", reason, REASONS_SORTED));
    }
    String normalizedPath = null;
    if (fieldPath != null) {
      if (fieldPath.trim().isEmpty()) {
        errors.add(FieldError.invalid(path + ".fieldPath", fieldPath, "must be non-empty if specified"));
      } else if (fieldPath.matches("(?s).*[\\n\\r].*")) {
        errors.add(FieldError.invalid(path + ".fieldPath", fieldPath, "must not contain line breaks"));
      } else {
        normalizedPath = FieldPathRef.normalize(fieldPath, s);
        if (normalizedPath == null) {
          errors.add(FieldError.invalid(path + ".fieldPath", fieldPath, "must be a valid path"));
        }
      }
    }
    if (errors.size() > before) {
      return null;
    }
    GoValues.Raw value = goRule(rule, message, msgExpr, reason, fieldPath, optOld);
    CelAbstractSyntaxTree ast = compileExpr(rule, path + ".rule", value, "compilation failed: ", errors);
    if (ast == null) {
      return null;
    }
    CelType out = ast.getResultType();
    if (out.kind() != CelKind.BOOL && out.kind() != CelKind.DYN) {
      errors.add(FieldError.invalid(path + ".rule", value, "cel expression must evaluate to a bool"));
      return null;
    }
    boolean usesOld = CelNavigableAst.fromAst(ast).getRoot().allNodes().anyMatch(n ->
        n.expr().getKind() == CelExpr.ExprKind.Kind.IDENT && OLD_SELF.equals(n.expr().ident().name()));
    if (Boolean.TRUE.equals(optOld) && !usesOld) {
      errors.add(FieldError.invalid(path + ".optionalOldSelf", true, "may not be set if oldSelf is not used in "
          + "rule"));
      return null;
    }
    long cost = CelCost.estimate(ast, s);
    long expressionCost = CelCost.times(cost, cardinality);
    if (expressionCost > STATIC_COST_LIMIT) {
      errors.add(FieldError.forbidden(path + ".rule", CelCost.message("estimated rule cost", expressionCost,
          STATIC_COST_LIMIT)));
      return null;
    }
    total.sum = CelCost.plus(total.sum, expressionCost);
    CelRuntime.Program msgProgram = null;
    if (msgExpr != null) {
      CelAbstractSyntaxTree mast = compileExpr(msgExpr, path + ".messageExpression", value,
          "messageExpression compilation failed: ", errors);
      if (mast == null) {
        return null;
      }
      CelKind mk = mast.getResultType().kind();
      if (mk != CelKind.STRING && mk != CelKind.DYN) {
        errors.add(FieldError.invalid(path + ".messageExpression", value, "messageExpression must evaluate to a "
            + "string"));
        return null;
      }
      msgProgram = program(mast, path + ".messageExpression", value, errors);
      if (msgProgram == null) {
        return null;
      }
    }
    CelRuntime.Program program = program(ast, path + ".rule", value, errors);
    if (program == null) {
      return null;
    }
    return new Rule(rule, message == null ? "" : message, msgExpr == null ? "" : msgExpr,
        reason == null ? "FieldValueInvalid" : reason, normalizedPath, Boolean.TRUE.equals(optOld), usesOld, program,
        msgProgram);
  }

  /** The internal {@code apiextensions.ValidationRule} as {@code %#v} prints it in CRD validation errors. */
  private static GoValues.Raw goRule(String rule, String message, String msgExpr, String reason, String fieldPath,
                                     Boolean optOld) {
    return new GoValues.Raw("apiextensions.ValidationRule{Rule:" + GoValues.quote(rule) + ", Message:"
        + GoValues.quote(message == null ? "" : message) + ", MessageExpression:"
        + GoValues.quote(msgExpr == null ? "" : msgExpr) + ", Reason:"
        + (reason == null ? "(*apiextensions.FieldValueErrorReason)(nil)" : "(*apiextensions.FieldValueErrorReason)"
        + "(" + GoValues.quote(reason) + ")") + ", FieldPath:" + GoValues.quote(fieldPath == null ? "" : fieldPath)
        + ", OptionalOldSelf:" + (optOld == null ? "(*bool)(nil)" : "(*bool)(" + optOld + ")") + "}");
  }

  private static CelAbstractSyntaxTree compileExpr(String expr, String field, Object value, String prefix,
                                                   List<FieldError> errors) {
    try {
      CelValidationResult parsed = CelEnvironment.CEL.parse(expr);
      if (parsed.hasError()) {
        errors.add(FieldError.invalid(field, value, prefix + syntaxErrors(parsed.getErrorString())));
        return null;
      }
      CelValidationResult checked = CelEnvironment.CEL.check(parsed.getAst());
      if (checked.hasError()) {
        errors.add(FieldError.invalid(field, value, prefix + checked.getErrorString()));
        return null;
      }
      return checked.getAst();
    } catch (Exception e) {
      errors.add(FieldError.invalid(field, value, prefix + e.getMessage()));
      return null;
    }
  }

  /** cel-go prints parser errors as {@code ERROR: <input>:l:c: Syntax error: ...}. */
  private static String syntaxErrors(String s) {
    return s.replaceAll("(?m)^(ERROR: <input>:\\d+:\\d+: )(?!Syntax error: )", "$1Syntax error: ");
  }

  private static CelRuntime.Program program(CelAbstractSyntaxTree ast, String field, Object value,
                                            List<FieldError> errors) {
    try {
      return CelEnvironment.CEL.createProgram(ast);
    } catch (Exception e) {
      errors.add(FieldError.invalid(field, value, "program instantiation failed: " + e.getMessage()));
      return null;
    }
  }

  /**
   * Evaluates every rule on an object about to be stored.
   *
   * @param obj the object
   * @param old the stored object (update) or null (create)
   * @return the errors in evaluation order
   */
  public List<FieldError> validate(JsonObject obj, JsonObject old) {
    return validate(obj, old, new ArrayList<>());
  }

  /**
   * Evaluates every rule on an object about to be stored.
   *
   * @param obj      the object
   * @param old      the stored object (update) or null (create)
   * @param warnings collects the ratcheted errors (rules without {@code oldSelf} failing on unchanged values) as
   *                 {@code warning.AddWarning} texts ({@code <field>: <message>})
   * @return the errors in evaluation order
   */
  public List<FieldError> validate(JsonObject obj, JsonObject old, List<String> warnings) {
    Evaluation ev = new Evaluation();
    ev.node(root, obj, old == null ? OpenApiValidator.NO_OLD : old, null, true);
    warnings.addAll(ev.warnings);
    return ev.errors;
  }

  /** The state of one request's evaluation: errors and the remaining cost budget. */
  private static final class Evaluation {
    final List<FieldError> errors = new ArrayList<>();
    final List<String> warnings = new ArrayList<>();
    final Map<Object, Object> converted = new java.util.IdentityHashMap<>();
    final Map<Object, Object> convertedOld = new java.util.IdentityHashMap<>();
    long budget = RUNTIME_BUDGET;

    /** @return false when the budget is exhausted (no further rules run) */
    boolean node(SchemaNode s, Object obj, Object old, String path, boolean isRoot) {
      if (s == null || obj == null) {
        return true;
      }
      if (!s.rules.isEmpty() && !expressions(s, obj, old, path, isRoot)) {
        return false;
      }
      if (obj instanceof JsonObject o) {
        JsonObject oo = old instanceof JsonObject x ? x : null;
        for (Map.Entry<String, Object> e : o) {
          SchemaNode p = s.properties != null ? s.properties.get(e.getKey()) : null;
          String child;
          if (p != null) {
            child = FieldPaths.child(path, e.getKey());
          } else if (s.additionalProperties != null) {
            p = s.additionalProperties;
            child = FieldPaths.key(path, e.getKey());
          } else {
            continue;
          }
          Object ov = oo != null && oo.containsKey(e.getKey()) ? oo.getValue(e.getKey()) : OpenApiValidator.NO_OLD;
          if (!node(p, e.getValue(), ov, child, false)) {
            return false;
          }
        }
      } else if (obj instanceof JsonArray a && s.items != null) {
        for (int i = 0; i < a.size(); i++) {
          Object ov = "map".equals(s.listType) ? OpenApiValidator.correlatedItem(s, a.getValue(i), old)
              : OpenApiValidator.NO_OLD;
          if (!node(s.items, a.getValue(i), ov, FieldPaths.index(path, i), false)) {
            return false;
          }
        }
      }
      return true;
    }

    private boolean expressions(SchemaNode s, Object obj, Object old, String path, boolean isRoot) {
      String type = s.type;
      String field = FieldPaths.string(path);
      if (budget <= 0) {
        errors.add(FieldError.invalid(field, type, "validation failed due to running out of cost budget, no further "
            + "validation rules will be run"));
        return false;
      }
      boolean hasOld = old != OpenApiValidator.NO_OLD && old != null;
      Object self = CelValues.toCel(obj, s, isRoot, converted);
      Object oldSelf = hasOld ? CelValues.toCel(old, s, isRoot, convertedOld) : null;
      boolean unchanged = hasOld && GoValues.jsonEquals(obj, old);
      for (Rule r : s.rules) {
        if (r.usesOldSelf() && !hasOld && !r.optionalOldSelf()) {
          continue;
        }
        Map<String, Object> vars = new HashMap<>();
        vars.put(SELF, self);
        if (r.optionalOldSelf()) {
          vars.put(OLD_SELF, hasOld ? Optional.of(oldSelf) : Optional.empty());
        } else if (hasOld) {
          vars.put(OLD_SELF, oldSelf);
        }
        Object result;
        long[] cost = {0};
        long limit = Math.min(PER_CALL_LIMIT, budget);
        try {
          result = r.program().trace(vars, (expr, v) -> {
            if (++cost[0] > limit) {
              throw new CostExceeded();
            }
          });
        } catch (CostExceeded e) {
          if (cost[0] > budget) {
            errors.add(FieldError.invalid(field, type, "validation failed due to running out of cost budget, no "
                + "further validation rules will be run"));
          } else {
            errors.add(FieldError.invalid(field, type, "'operation cancelled: actual cost limit exceeded': no "
                + "further validation rules will be run due to call cost exceeds limit for rule: "
                + errorString(r)));
          }
          budget = -1;
          return false;
        } catch (CelEvaluationException | RuntimeException e) {
          if (e.getCause() instanceof CostExceeded || e instanceof CelEvaluationException
              && String.valueOf(e.getMessage()).contains("CostExceeded")) {
            errors.add(FieldError.invalid(field, type, "'operation cancelled: actual cost limit exceeded': no "
                + "further validation rules will be run due to call cost exceeds limit for rule: "
                + errorString(r)));
            budget = -1;
            return false;
          }
          budget -= cost[0];
          String msg = CelValues.goError(e);
          if (msg.startsWith("no such overload")) {
            errors.add(FieldError.invalid(field, type, "'" + msg + "': call arguments did not match a supported "
                + "operator, function or macro signature for rule: " + errorString(r)));
          } else {
            errors.add(FieldError.invalid(field, type, msg + " evaluating rule: " + errorString(r)));
          }
          continue;
        }
        budget -= cost[0];
        if (Boolean.TRUE.equals(result)) {
          continue;
        }
        String at = r.fieldPath() == null ? field : FieldPaths.child(path, r.fieldPath());
        String detail = null;
        if (r.messageProgram() != null) {
          detail = message(r, vars);
          if (budget < 0) {
            errors.add(FieldError.invalid(at, type, "messageExpression evaluation failed due to running out of cost "
                + "budget, no further validation rules will be run"));
            return false;
          }
        }
        if (detail == null) {
          detail = r.message().isEmpty() ? "failed rule: " + r.rule().trim() : r.message().trim();
        }
        FieldError err = forReason(at, type, detail, r.reason());
        if (r.usesOldSelf() || !unchanged) {
          errors.add(err);
        } else {
          warnings.add(err.error());
        }
      }
      return true;
    }

    private String message(Rule r, Map<String, Object> vars) {
      long[] cost = {0};
      long limit = Math.min(PER_CALL_LIMIT, budget);
      try {
        Object v = r.messageProgram().trace(vars, (expr, x) -> {
          if (++cost[0] > limit) {
            throw new CostExceeded();
          }
        });
        budget -= cost[0];
        if (!(v instanceof String s)) {
          return null;
        }
        String t = s.trim();
        if (t.isEmpty() || t.length() > MAX_MESSAGE_BYTES || t.contains("\n")) {
          return null;
        }
        return t;
      } catch (CostExceeded e) {
        budget = -1;
        return null;
      } catch (CelEvaluationException | RuntimeException e) {
        budget -= cost[0];
        return null;
      }
    }
  }

  private static String errorString(Rule r) {
    return r.message().isEmpty() ? r.rule().trim() : r.message().trim();
  }

  /** {@code fieldErrorForReason}: the value reported is the schema type (1.33). */
  private static FieldError forReason(String field, String type, String detail, String reason) {
    return switch (reason) {
      case "FieldValueForbidden" -> FieldError.forbidden(field, detail);
      case "FieldValueRequired" -> FieldError.required(field, detail);
      case "FieldValueDuplicate" -> FieldError.duplicate(field, type);
      default -> FieldError.invalid(field, type, detail);
    };
  }

  /** Thrown from the evaluation listener to stop a rule over its cost limit. */
  private static final class CostExceeded extends RuntimeException {
    CostExceeded() {
      super("CostExceeded", null, false, false);
    }
  }
}
