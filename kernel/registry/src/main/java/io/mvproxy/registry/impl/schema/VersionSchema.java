package io.mvproxy.registry.impl.schema;

import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The schema machinery of one CRD version, built once per plugin load: pruning, defaulting and the validation
 * kube-apiserver runs on custom resources ({@code apiextensions-apiserver/pkg/registry/customresource/strategy.go}
 * {@code Validate} / {@code ValidateUpdate}, {@code status_strategy.go}): kube-openapi schema validation with
 * ratcheting, embedded resources, list types, then the CEL rules unless an error blocks them.
 */
public final class VersionSchema {
  /** Cause types after which CEL rules are not evaluated ({@code strategy.go hasBlockingErr}). */
  private static final Set<String> BLOCKING = Set.of("FieldValueNotSupported", "FieldValueRequired",
      "FieldValueTooLong", "FieldValueTooMany", "FieldValueTypeInvalid");
  private final SchemaNode root;
  private final CelRules cel;

  /**
   * @param root the compiled root schema
   * @param cel  its compiled CEL rules
   */
  public VersionSchema(SchemaNode root, CelRules cel) {
    this.root = root;
    this.cel = cel;
  }

  /**
   * Checks and compiles a version's schema as kube-apiserver does on CRD create: structural rules, defaults (pruned
   * and valid), then the CEL rules (compilation, reasons, field paths, estimated cost).
   *
   * @param schema the {@code openAPIV3Schema}
   * @param path   its field path in the CRD ({@code spec.versions[0].schema.openAPIV3Schema})
   * @param errors collects the errors; the result is null when any was added
   * @return the compiled schema, or null when invalid
   */
  public static VersionSchema compile(JsonObject schema, String path, List<FieldError> errors) {
    int before = errors.size();
    errors.addAll(StructuralCheck.validate(schema, path));
    if (errors.size() > before) {
      return null;
    }
    SchemaNode root = new SchemaNode(schema);
    errors.addAll(DefaultsCheck.validate(root, path));
    CelRules cel = CelRules.compile(root, path, errors);
    return errors.size() > before ? null : new VersionSchema(root, cel);
  }

  /** @return the root schema */
  public SchemaNode root() {
    return root;
  }

  /**
   * Prunes unknown fields and nulls in place (request bodies; objects read from storage).
   *
   * @return the unknown field paths dropped (metadata first, then sorted)
   */
  public List<String> prune(JsonObject obj) {
    return Pruner.prune(obj, root);
  }

  /**
   * Applies defaults in place.
   *
   * @return true when a default was set
   */
  public boolean applyDefaults(JsonObject obj) {
    return Defaulter.apply(obj, root);
  }

  /**
   * Validates an object about to be stored.
   *
   * @param obj    the object (storage form of this version)
   * @param old    the stored object for an update, or null for a create
   * @param status true for the status subresource (only {@code .status} is checked against the schema)
   * @return the field errors (empty when valid)
   */
  public List<FieldError> validate(JsonObject obj, JsonObject old, boolean status) {
    return validate(obj, old, status, new ArrayList<>());
  }

  /**
   * Validates an object about to be stored.
   *
   * @param obj      the object (storage form of this version)
   * @param old      the stored object for an update, or null for a create
   * @param status   true for the status subresource (only {@code .status} is checked against the schema)
   * @param warnings collects warnings (CEL errors ratcheted on unchanged values)
   * @return the field errors (empty when valid)
   */
  public List<FieldError> validate(JsonObject obj, JsonObject old, boolean status, List<String> warnings) {
    List<FieldError> errs = new ArrayList<>();
    if (status) {
      SchemaNode st = root.properties != null ? root.properties.get("status") : null;
      if (st != null && obj.containsKey("status")) {
        Object oldStatus = old != null && old.containsKey("status") ? old.getValue("status") : OpenApiValidator.NO_OLD;
        errs.addAll(OpenApiValidator.validate(obj.getValue("status"), st, oldStatus, "status"));
      }
    } else {
      errs.addAll(OpenApiValidator.validate(obj, root, old == null ? OpenApiValidator.NO_OLD : old, null));
    }
    errs.addAll(EmbeddedResources.validate(obj, root));
    if (old == null || status || ListTypes.validate(old, root).isEmpty()) {
      errs.addAll(ListTypes.validate(obj, root));
    }
    if (cel.hasRules()) {
      if (errs.stream().anyMatch(e -> BLOCKING.contains(e.type()))) {
        errs.add(FieldError.invalid(FieldError.ROOT, null, "some validation rules were not checked because the "
            + "object was invalid; correct the existing errors to complete validation"));
      } else {
        errs.addAll(cel.validate(obj, old, warnings));
      }
    }
    return errs;
  }
}
