package io.mvproxy.registry.impl.admission;

import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelValidationResult;
import dev.cel.common.types.CelKind;
import dev.cel.common.types.SimpleType;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelRuntime;
import io.mvproxy.registry.impl.schema.CelEnvironment;
import io.mvproxy.registry.impl.schema.KubeCelLibrary;

/**
 * The CEL environment of ValidatingAdmissionPolicy expressions ({@code admission/plugin/policy/validating}):
 * variables {@code object}, {@code oldObject}, {@code request}, {@code params} (always null here),
 * {@code namespaceObject} and {@code variables}, with the CRD validation rules' libraries (strings, optional, sets,
 * bindings, Kubernetes lists/regex/urls/quantity functions). No {@code authorizer}.
 */
final class PolicyCel {
  static final Cel CEL = environment("object", "oldObject", "request", "params", "namespaceObject", "variables");
  /** matchConditions' environment: upstream compiles them without the policy's {@code variables}. */
  private static final Cel WITHOUT_VARIABLES = environment("object", "oldObject", "request", "params",
      "namespaceObject");

  /**
   * The admission CEL environment (also the webhooks' matchConditions'): the given variables as {@code dyn}, the CRD
   * validation rules' extensions (strings, optional, sets, bindings) and Kubernetes functions.
   *
   * @param variables the variable names
   * @return the environment
   */
  static Cel environment(String... variables) {
    var b = CelFactory.standardCelBuilder()
        .setOptions(CelEnvironment.OPTIONS)
        .setStandardMacros(CelStandardMacro.STANDARD_MACROS);
    for (String v : variables) {
      b.addVar(v, SimpleType.DYN);
    }
    return b.addCompilerLibraries(CelExtensions.strings(), CelExtensions.optional(),
            CelExtensions.sets(CelEnvironment.OPTIONS), CelExtensions.bindings())
        .addRuntimeLibraries(CelExtensions.strings(), CelExtensions.optional(),
            CelExtensions.sets(CelEnvironment.OPTIONS))
        .addFunctionDeclarations(KubeCelLibrary.declarations())
        .addFunctionBindings(KubeCelLibrary.bindings())
        .build();
  }

  private PolicyCel() {
  }

  /**
   * @param expression a CEL expression
   * @param bool       true when it must evaluate to a bool (else a string for messageExpression, or anything)
   * @return null when it compiles, else the error
   */
  static String compileError(String expression, boolean bool) {
    return compileError(expression, bool, true);
  }

  /**
   * @param expression a CEL expression
   * @param bool       true when it must evaluate to a bool
   * @param variables  false for a matchCondition: {@code variables} is then an undeclared reference, as upstream's
   *                   {@code validateMatchConditions} compiles without the policy's variables
   * @return null when it compiles, else the error
   */
  static String compileError(String expression, boolean bool, boolean variables) {
    try {
      CelValidationResult r = (variables ? CEL : WITHOUT_VARIABLES).compile(expression);
      if (r.hasError()) {
        return r.getErrorString();
      }
      CelKind k = r.getAst().getResultType().kind();
      if (bool && k != CelKind.BOOL && k != CelKind.DYN) {
        return "must evaluate to bool";
      }
      return null;
    } catch (Exception e) {
      return String.valueOf(e.getMessage());
    }
  }

  /**
   * @param expression a valid expression
   * @return its program
   * @throws IllegalArgumentException when it does not compile
   */
  static CelRuntime.Program program(String expression) {
    try {
      CelValidationResult r = CEL.compile(expression);
      if (r.hasError()) {
        throw new IllegalArgumentException(r.getErrorString());
      }
      return CEL.createProgram(r.getAst());
    } catch (IllegalArgumentException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }
}
