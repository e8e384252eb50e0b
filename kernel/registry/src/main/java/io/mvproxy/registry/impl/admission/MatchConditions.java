package io.mvproxy.registry.impl.admission;

import dev.cel.bundle.Cel;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.runtime.CelRuntime;
import io.mvproxy.registry.impl.schema.CelEnvironment;
import io.mvproxy.registry.impl.schema.CelValues;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A webhook's {@code matchConditions}: CEL expressions over {@code object}, {@code oldObject} and {@code request}
 * (the AdmissionRequest), evaluated with the CEL library of the CRD validation rules ({@link CelEnvironment}'s
 * extensions and Kubernetes functions), as kube-apiserver's {@code admission/plugin/webhook/matchconditions}: the
 * webhook is called only when every condition is true; a false one skips it; an evaluation error follows the
 * webhook's failurePolicy. The {@code authorizer} variable is not offered (an expression naming it does not compile).
 */
public final class MatchConditions {
  private static final Cel CEL = PolicyCel.environment("object", "oldObject", "request");

  /** One compiled condition. */
  private record Condition(String name, CelRuntime.Program program) {
  }

  private final List<Condition> conditions;

  private MatchConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  /**
   * @param expression a CEL expression
   * @return null when it compiles to a bool (or dyn), else the detail ({@code compilation failed: ...}, {@code must
   *     evaluate to bool but got int})
   */
  static String compileError(String expression) {
    try {
      return PolicyCel.problem(CEL.compile(expression), PolicyCel.Returns.BOOL);
    } catch (Exception e) {
      return "compilation failed: " + e.getMessage();
    }
  }

  /**
   * @param value a webhook's {@code matchConditions} (validated), or null
   * @return the compiled conditions (none: always matches)
   */
  static MatchConditions compile(Object value) {
    List<Condition> out = new ArrayList<>();
    if (value instanceof JsonArray a) {
      for (Object o : a) {
        if (o instanceof JsonObject c) {
          try {
            CelAbstractSyntaxTree ast = CEL.compile(c.getString("expression", "")).getAst();
            out.add(new Condition(c.getString("name", ""), CEL.createProgram(ast)));
          } catch (Exception e) {
            throw new IllegalArgumentException("matchCondition " + c.getString("name") + ": " + e.getMessage(), e);
          }
        }
      }
    }
    return new MatchConditions(List.copyOf(out));
  }

  /** @return true when there are no conditions */
  boolean isEmpty() {
    return conditions.isEmpty();
  }

  /**
   * @param object    the new object (null for DELETE)
   * @param oldObject the old object (null for CREATE)
   * @param request   the AdmissionRequest as sent to the webhook
   * @return true when every condition is true
   * @throws IllegalStateException when a condition fails to evaluate or is not a bool (the message names it, as
   *     upstream's {@code matchConditions} evaluation errors)
   */
  boolean matches(JsonObject object, JsonObject oldObject, JsonObject request) {
    if (conditions.isEmpty()) {
      return true;
    }
    Map<String, Object> vars = new HashMap<>();
    vars.put("object", CelValues.toCel(object, null, false));
    vars.put("oldObject", CelValues.toCel(oldObject, null, false));
    vars.put("request", CelValues.toCel(request, null, false));
    IllegalStateException firstError = null;
    for (Condition c : conditions) {
      try {
        Object r = c.program().eval(vars);
        if (!(r instanceof Boolean b)) {
          firstError = firstError != null ? firstError : new IllegalStateException("matchCondition '" + c.name()
              + "' must evaluate to a bool");
        } else if (!b) {
          return false;
        }
      } catch (Exception e) {
        firstError = firstError != null ? firstError : new IllegalStateException("matchCondition '" + c.name()
            + "' evaluation failed: " + CelValues.goError(e));
      }
    }
    if (firstError != null) {
      throw firstError;
    }
    return true;
  }
}
