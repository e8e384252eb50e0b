package io.mvproxy.registry.impl.model;

import io.mvproxy.registry.impl.schema.VersionSchema;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * One entry of {@code spec.versions} of a CRD.
 *
 * @param name          version name (DNS label, e.g. {@code v1beta1})
 * @param served        true when served over REST
 * @param storage       true for the single storage version
 * @param statusEnabled true when {@code subresources.status} is present
 * @param scale         the scale subresource, or null when absent
 * @param columns       additional printer columns (possibly empty)
 * @param schema        {@code schema.openAPIV3Schema}, or null
 * @param validation    the compiled schema (pruning, defaulting, validation, CEL), or null without a schema
 * @param deprecationWarning the warning every request to this version gets when it is {@code deprecated}
 *                      ({@link CrdParser}), or null
 */
public record CrdVersion(String name, boolean served, boolean storage, boolean statusEnabled, ScaleSpec scale,
                         List<PrinterColumn> columns, JsonObject schema, VersionSchema validation,
                         String deprecationWarning) {
  /** Copies the column list. */
  public CrdVersion {
    columns = List.copyOf(columns);
  }

  /** A version that is not deprecated. */
  public CrdVersion(String name, boolean served, boolean storage, boolean statusEnabled, ScaleSpec scale,
                    List<PrinterColumn> columns, JsonObject schema, VersionSchema validation) {
    this(name, served, storage, statusEnabled, scale, columns, schema, validation, null);
  }

  /** @param warning the deprecation warning, or null @return this version with it */
  public CrdVersion withDeprecationWarning(String warning) {
    return new CrdVersion(name, served, storage, statusEnabled, scale, columns, schema, validation, warning);
  }

  /** A version whose schema is compiled here (tests and callers that validated it already). */
  public CrdVersion(String name, boolean served, boolean storage, boolean statusEnabled, ScaleSpec scale,
                    List<PrinterColumn> columns, JsonObject schema) {
    this(name, served, storage, statusEnabled, scale, columns, schema, schema == null ? null
        : VersionSchema.compile(schema, "openAPIV3Schema", new java.util.ArrayList<>()));
  }
}
