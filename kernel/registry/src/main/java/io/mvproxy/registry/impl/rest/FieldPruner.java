package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.StatusException;
import io.mvproxy.registry.impl.schema.VersionSchema;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * Drops fields the version's structural schema does not declare ({@link VersionSchema#prune}, as
 * {@code apiextensions-apiserver/pkg/apiserver/schema/pruning/algorithm.go}; the dropped paths are the unknown
 * fields), and applies the request's {@code fieldValidation} to them ({@link FieldValidation#report}). Fields under
 * {@code x-kubernetes-preserve-unknown-fields: true} are kept; {@code apiVersion}, {@code kind} and
 * {@code metadata} are kept at the root and in {@code x-kubernetes-embedded-resource} objects, whose metadata keeps
 * the ObjectMeta fields. A version without a schema prunes nothing.
 */
public final class FieldPruner {
  private FieldPruner() {
  }

  /**
   * Prunes {@code o} in place with the schema of the request's version and applies {@code fieldValidation}.
   *
   * @param req the request (version schema, {@code fieldValidation}, response for warnings)
   * @param o   the object about to be stored
   * @return {@code o}
   * @throws StatusException 400 for unknown fields with {@code fieldValidation=Strict}
   */
  public static JsonObject apply(CrdRequest req, JsonObject o) {
    VersionSchema schema = req.version().validation();
    List<String> removed = schema == null ? List.of() : schema.prune(o);
    FieldValidation.report(req, removed);
    if (req.strategy() == null || !req.strategy().typedDecoding()) {
      try {
        integralFloats(o);
      } catch (UnsupportedOperationException immutable) {
        // an object assembled from immutable collections keeps its numbers as they are
      }
    }
    return o;
  }

  /** 2^53: the largest magnitude below which every integer is exactly a float64. */
  private static final double EXACT = 9007199254740992d;

  /**
   * A custom resource is unstructured: a JSON number that is not an int64 literal ({@code 3.0}, {@code 1e3}) is a
   * float64, which Go writes back without a fraction ({@code 3}, {@code 1000}); a typed Go client reading the
   * object into an integer field could not decode {@code 3.0}. Integral finite doubles up to 2^53 are stored as
   * integers (what Go writes for them); other numbers are left as they are.
   *
   * @param v a JSON value, changed in place
   */
  static void integralFloats(Object v) {
    if (v instanceof JsonObject o) {
      for (java.util.Map.Entry<String, Object> e : o.getMap().entrySet()) {
        if (isIntegral(e.getValue())) {
          e.setValue(((Double) e.getValue()).longValue());
        } else {
          integralFloats(e.getValue());
        }
      }
    } else if (v instanceof io.vertx.core.json.JsonArray a) {
      java.util.List<Object> list = a.getList();
      for (int i = 0; i < list.size(); i++) {
        if (isIntegral(list.get(i))) {
          list.set(i, ((Double) list.get(i)).longValue());
        } else {
          integralFloats(list.get(i));
        }
      }
    } else if (v instanceof java.util.Map<?, ?> || v instanceof java.util.List<?>) {
      integralFloats(v instanceof java.util.Map<?, ?> ? new JsonObject(castMap(v)) : new io.vertx.core.json.JsonArray(
          (java.util.List<?>) v));
    }
  }

  @SuppressWarnings("unchecked")
  private static java.util.Map<String, Object> castMap(Object v) {
    return (java.util.Map<String, Object>) v;
  }

  private static boolean isIntegral(Object x) {
    return x instanceof Double d && !d.isInfinite() && d == Math.rint(d) && Math.abs(d) <= EXACT
        && !(d == 0 && 1 / d < 0);
  }
}
