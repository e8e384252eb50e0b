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

  /** What an expression must evaluate to ({@code plugin/cel/compile.go ReturnTypes}). */
  enum Returns {
    /** Anything (variables). */
    ANY,
    /** bool (validations, matchConditions); {@code dyn} passes, as the objects here are untyped. */
    BOOL,
    /** string (messageExpression). */
    STRING,
    /** string or null (auditAnnotations valueExpression). */
    STRING_OR_NULL
  }

  /**
   * @param expression a CEL expression
   * @param returns    what it must evaluate to
   * @param variables  false for a matchCondition: {@code variables} is then an undeclared reference, as upstream's
   *                   {@code validateMatchConditions} compiles without the policy's variables
   * @return null when it compiles to an allowed type, else {@code CompileCELExpression}'s detail:
   *     {@code compilation failed: <issues>}, {@code must evaluate to bool but got int},
   *     {@code must evaluate to one of [string null_type] but got int}
   */
  static String problem(String expression, Returns returns, boolean variables) {
    try {
      return problem((variables ? CEL : WITHOUT_VARIABLES).compile(expression), returns);
    } catch (Exception e) {
      return "compilation failed: " + e.getMessage();
    }
  }

  /**
   * @param r       a compilation's result
   * @param returns what the expression must evaluate to
   * @return null when it compiled to an allowed type, else the detail ({@link #problem(String, Returns, boolean)})
   */
  static String problem(CelValidationResult r, Returns returns) {
    if (r.hasError()) {
      return "compilation failed: " + r.getErrorString();
    }
    dev.cel.common.types.CelType t;
    try {
      t = r.getAst().getResultType();
    } catch (Exception e) {
      return "compilation failed: " + e.getMessage();
    }
    CelKind k = t.kind();
    return switch (returns) {
      case ANY -> null;
      case BOOL -> k == CelKind.BOOL || k == CelKind.DYN ? null : "must evaluate to bool but got " + typeName(t);
      case STRING -> k == CelKind.STRING || k == CelKind.DYN ? null
          : "must evaluate to string but got " + typeName(t);
      case STRING_OR_NULL -> k == CelKind.STRING || k == CelKind.NULL_TYPE || k == CelKind.DYN ? null
          : "must evaluate to one of [string null_type] but got " + typeName(t);
    };
  }

  /** @return cel-go's {@code Type.String()}: {@code int}, {@code list(int)}, {@code map(string, dyn)}, ... */
  static String typeName(dev.cel.common.types.CelType t) {
    if (t instanceof dev.cel.common.types.ListType l) {
      return "list(" + (l.hasElemType() ? typeName(l.elemType()) : "dyn") + ")";
    }
    if (t instanceof dev.cel.common.types.MapType m) {
      return "map(" + typeName(m.keyType()) + ", " + typeName(m.valueType()) + ")";
    }
    return t.name();
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
