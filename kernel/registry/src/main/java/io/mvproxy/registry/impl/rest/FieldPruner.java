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
    return o;
  }
}
