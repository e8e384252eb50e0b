package io.mvproxy.registry.impl.schema;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Static cost estimation of CRD validation rules, after cel-go's {@code checker/cost.go} and the size estimates of
 * apiextensions-apiserver {@code schema/cel/model} and {@code apis/apiextensions/validation/cel_validation.go}: a
 * string, list or map without {@code maxLength} / {@code maxItems} / {@code maxProperties} is assumed as large as a
 * 3 MiB request allows; comprehensions multiply their body by the size of their range; {@code matches},
 * {@code contains}, {@code startsWith}, {@code endsWith}, {@code find}, {@code findAll}, string concatenation and
 * comparison cost one tenth of the string length (matches times a quarter of the pattern length); everything else
 * one unit per node. The figures are an upper bound in the same units as the runtime cost.
 */
public final class CelCost {
  /** apiserver's maximum request body (3 MiB), the bound of unbounded values. */
  public static final long MAX_REQUEST_BYTES = 3L * 1024 * 1024;

  /** Accumulates the estimated cost of every rule of a schema. */
  static final class Total {
    long sum;
  }

  private CelCost() {
  }

  /**
   * @param costName what exceeded ({@code estimated rule cost})
   * @param cost     the estimate
   * @param limit    the limit
   * @return {@code getCostErrorMessage}'s text
   */
  public static String message(String costName, long cost, long limit) {
    double f = (double) cost / (double) limit;
    String factor;
    if (f > 100.0) {
      factor = "more than 100x";
    } else if (f < 1.5) {
      factor = String.format(java.util.Locale.ROOT, "%fx", f);
    } else {
      factor = String.format(java.util.Locale.ROOT, "%.1fx", f);
    }
    return costName + " exceeds budget by factor of " + factor + " (try simplifying the rule, or adding maxItems, "
        + "maxProperties, and maxLength where arrays, maps, and strings are declared)";
  }

  /** @return a*b saturated at Long.MAX_VALUE */
  public static long times(long a, long b) {
    if (a == 0 || b == 0) {
      return 0;
    }
    return Long.MAX_VALUE / a < b ? Long.MAX_VALUE : a * b;
  }

  /** @return a+b saturated */
  public static long plus(long a, long b) {
    return Long.MAX_VALUE - a < b ? Long.MAX_VALUE : a + b;
  }

  /** @return the maximum number of items / properties of an array or map node */
  public static long maxSize(SchemaNode s) {
    if (s.items != null || "array".equals(s.type)) {
      if (s.maxItems != null) {
        return s.maxItems;
      }
      return (MAX_REQUEST_BYTES - 2) / (minSerializedSize(s.items) + 1);
    }
    if (s.maxProperties != null) {
      return s.maxProperties;
    }
    SchemaNode v = s.additionalProperties;
    // a key ("":) plus the value
    return (MAX_REQUEST_BYTES - 2) / (minSerializedSize(v) + 4);
  }

  /**
   * @return the maximum length of a string node: {@code maxLength}, else the longest {@code enum} value, else the
   *     longest string a 3 MiB request can hold
   */
  public static long maxLength(SchemaNode s) {
    if (s != null && s.maxLength != null) {
      return s.maxLength;
    }
    if (s != null && s.enumValues != null && !s.enumValues.isEmpty()) {
      long max = 0;
      for (Object e : s.enumValues) {
        max = Math.max(max, String.valueOf(e).length());
      }
      return max;
    }
    if (s != null && s.format != null) {
      switch (s.format) {
        case "datetime", "date", "duration", "uuid", "uuid3", "uuid4", "uuid5", "ipv4", "ipv6", "cidr", "mac",
            "bsonobjectid" -> {
          return 64;
        }
        default -> { }
      }
    }
    return MAX_REQUEST_BYTES - 2;
  }

  private static long minSerializedSize(SchemaNode s) {
    if (s == null) {
      return 1;
    }
    return switch (s.type) {
      case "string" -> 2 + (s.minLength == null ? 0 : s.minLength);
      case "boolean" -> 4;
      case "object", "array" -> 2;
      default -> 1;
    };
  }

  /**
   * @param ast    a checked rule
   * @param schema the schema of {@code self}
   * @return the estimated maximum cost of one evaluation
   */
  public static long estimate(CelAbstractSyntaxTree ast, SchemaNode schema) {
    Map<String, SchemaNode> scope = new HashMap<>();
    scope.put(CelRules.SELF, schema);
    scope.put(CelRules.OLD_SELF, schema);
    return new Estimator(scope).cost(ast.getExpr()).cost;
  }

  /** A cost and, when known, the schema of the value (its sizes). */
  private record Est(long cost, SchemaNode schema, long stringSize) {
  }

  private static final class Estimator {
    private final Map<String, SchemaNode> scope;

    Estimator(Map<String, SchemaNode> scope) {
      this.scope = scope;
    }

    Est cost(CelExpr e) {
      switch (e.getKind()) {
        case CONSTANT -> {
          CelConstant c = e.constant();
          long len = c.getKind() == CelConstant.Kind.STRING_VALUE ? c.stringValue().length() : 0;
          return new Est(0, null, len);
        }
        case IDENT -> {
          SchemaNode s = scope.get(e.ident().name());
          return new Est(1, s, s != null && "string".equals(s.type) ? maxLength(s) : 0);
        }
        case SELECT -> {
          Est op = cost(e.select().operand());
          SchemaNode s = op.schema() == null ? null : op.schema().child(e.select().field());
          return new Est(plus(op.cost(), 1), s, s != null && "string".equals(s.type) ? maxLength(s) : 0);
        }
        case LIST -> {
          long c = 0;
          for (CelExpr x : e.list().elements()) {
            c = plus(c, cost(x).cost());
          }
          return new Est(plus(c, 10), null, 0);
        }
        case MAP -> {
          long c = 0;
          for (var entry : e.map().entries()) {
            c = plus(c, plus(cost(entry.key()).cost(), cost(entry.value()).cost()));
          }
          return new Est(plus(c, 30), null, 0);
        }
        case STRUCT -> {
          return new Est(40, null, 0);
        }
        case CALL -> {
          return call(e);
        }
        case COMPREHENSION -> {
          return comprehension(e);
        }
        default -> {
          return new Est(0, null, 0);
        }
      }
    }

    private Est call(CelExpr e) {
      var call = e.call();
      long c = 0;
      Est target = null;
      if (call.target().isPresent()) {
        target = cost(call.target().get());
        c = plus(c, target.cost());
      }
      List<CelExpr> args = call.args();
      Est[] a = new Est[args.size()];
      for (int i = 0; i < args.size(); i++) {
        a[i] = cost(args.get(i));
        c = plus(c, a[i].cost());
      }
      String fn = call.function();
      long strLen = target != null ? target.stringSize() : a.length > 0 ? a[0].stringSize() : 0;
      long fnCost = switch (fn) {
        case "matches" -> {
          long re = a.length > 0 ? Math.max(1, a[a.length - 1].stringSize()) : 1;
          yield times(ceilTenth(strLen), (long) Math.ceil(re * 0.25));
        }
        case "contains", "startsWith", "endsWith", "find", "findAll", "indexOf", "lastIndexOf", "replace", "split",
            "lowerAscii", "upperAscii", "trim", "substring" -> Math.max(1, ceilTenth(strLen));
        case "_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_" -> a.length == 2
            ? Math.max(1, ceilTenth(Math.min(a[0].stringSize(), a[1].stringSize()))) : 1;
        case "_+_" -> Math.max(1, ceilTenth(plus(strLen, a.length > 1 ? a[1].stringSize() : 0)));
        default -> 1;
      };
      SchemaNode result = null;
      if ("_[_]".equals(fn) && a.length > 0 && a[0].schema() != null) {
        SchemaNode s = a[0].schema();
        result = s.items != null ? s.items : s.additionalProperties;
      }
      return new Est(plus(c, fnCost), result, 0);
    }

    private Est comprehension(CelExpr e) {
      var comp = e.comprehension();
      Est range = cost(comp.iterRange());
      long size = range.schema() != null ? maxSize(range.schema()) : 10;
      SchemaNode iterSchema = null;
      if (range.schema() != null) {
        iterSchema = range.schema().items != null ? range.schema().items : null;
      }
      Map<String, SchemaNode> inner = new HashMap<>(scope);
      inner.put(comp.iterVar(), iterSchema);
      inner.put(comp.accuVar(), null);
      Estimator in = new Estimator(inner);
      long body = plus(in.cost(comp.loopCondition()).cost(), in.cost(comp.loopStep()).cost());
      long c = plus(plus(range.cost(), cost(comp.accuInit()).cost()), times(size, body));
      return new Est(plus(c, in.cost(comp.result()).cost()), null, 0);
    }

    private static long ceilTenth(long n) {
      return (n + 9) / 10;
    }
  }
}
