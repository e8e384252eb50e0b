package io.mvproxy.crd.model;

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
 */
public record CrdVersion(String name, boolean served, boolean storage, boolean statusEnabled, ScaleSpec scale,
                         List<PrinterColumn> columns, JsonObject schema) {
  /** Copies the column list. */
  public CrdVersion {
    columns = List.copyOf(columns);
  }
}
