package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.StatusException;
import io.mvproxy.registry.impl.schema.FieldError;
import io.mvproxy.registry.impl.schema.VersionSchema;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * Validates a custom object against its version's compiled schema ({@link VersionSchema#validate}: kube-openapi
 * schema validation with ratcheting, embedded resources, list types, CEL rules) and answers kube-apiserver's
 * {@code 422 Invalid} ({@code errors.NewInvalid}: {@code <Kind>.<group> "<name>" is invalid: ...}, one
 * {@code details.causes[]} entry per field error). CEL errors ratcheted on unchanged values become
 * {@code Warning: 299 - "<field>: <message>"} headers, as {@code warning.AddWarning} makes them. When the schema
 * finds errors in an object its kind's own rules also refuse ({@link ObjectStrategy#violations}), the kind's errors
 * answer alone.
 */
public final class SchemaValidator {
  private SchemaValidator() {
  }

  /**
   * @param req    the request (version schema, resource and kind for the error)
   * @param o      the object about to be stored
   * @param old    the stored object (defaulted, see {@link SchemaDefaults#stored}) for an update, null for a create
   * @param status true for the status subresource (only {@code .status} is checked against the schema)
   * @throws StatusException 422 Invalid with one cause per violation
   */
  public static void validate(CrdRequest req, JsonObject o, JsonObject old, boolean status) {
    VersionSchema vs = req.version().validation();
    if (vs == null) {
      return;
    }
    List<String> warnings = new ArrayList<>();
    List<FieldError> errs = vs.validate(o, old, status, warnings);
    warnings.forEach(w -> io.mvproxy.api.Warnings.add(req.ctx(), w));
    if (!errs.isEmpty()) {
      // a kind with rules of its own answers with them, as its upstream Validate (its schema only stands in
      // where they pass): RBAC's ValidatePolicyRule texts, not the schema's bare "Required value"
      io.vertx.core.json.JsonArray own;
      try {
        own = req.strategy().violations(req, o, old);
      } catch (RuntimeException e) {
        own = new io.vertx.core.json.JsonArray();
      }
      if (!own.isEmpty()) {
        throw StatusException.invalid(req.gvr(), req.crd().kind(),
            o.getJsonObject("metadata", new JsonObject()).getString("name", ""), own);
      }
    }
    req.failIfInvalid(o, errs);
  }
}
