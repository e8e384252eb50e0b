package io.mvproxy.registry.impl.schema;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code default} values of a CRD schema checked at CRD load as apiextensions-apiserver
 * {@code schema/defaulting/validation.go ValidateDefaults} (1.33): a default must be pruned
 * ({@code must not have unknown fields}) and valid against its own schema (kube-openapi validation with the field
 * path {@code <schema path>.default}). Defaults inside {@code metadata} are not looked at. (CEL rules are not
 * evaluated on defaults here.)
 */
public final class DefaultsCheck {
  private DefaultsCheck() {
  }

  /**
   * @param root the compiled root schema
   * @param path its field path in the CRD
   * @return the errors (empty when every default is valid)
   */
  public static List<FieldError> validate(SchemaNode root, String path) {
    List<FieldError> errs = new ArrayList<>();
    walk(root, path, errs, true);
    return errs;
  }

  private static void walk(SchemaNode s, String path, List<FieldError> errs, boolean root) {
    if (s.hasDefault && s.defaultValue != null) {
      Object copy = s.defaultValue instanceof JsonObject o ? o.copy()
          : s.defaultValue instanceof JsonArray a ? a.copy() : s.defaultValue;
      if (!Pruner.pruneValue(copy, s).isEmpty()) {
        errs.add(FieldError.invalid(path + ".default", s.defaultValue, "must not have unknown fields"));
      } else {
        errs.addAll(OpenApiValidator.validate(s.defaultValue, s, OpenApiValidator.NO_OLD, path + ".default"));
      }
    }
    if (s.properties != null) {
      for (Map.Entry<String, SchemaNode> e : s.properties.entrySet()) {
        if (root && "metadata".equals(e.getKey())) {
          continue;
        }
        walk(e.getValue(), path + ".properties[" + e.getKey() + "]", errs, false);
      }
    }
    if (s.additionalProperties != null) {
      walk(s.additionalProperties, path + ".additionalProperties", errs, false);
    }
    if (s.items != null) {
      walk(s.items, path + ".items", errs, false);
    }
  }
}
