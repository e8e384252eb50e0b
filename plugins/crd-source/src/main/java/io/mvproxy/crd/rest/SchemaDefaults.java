package io.mvproxy.crd.rest;

import io.mvproxy.crd.model.CrdVersion;
import io.mvproxy.crd.schema.VersionSchema;
import io.vertx.core.json.JsonObject;

/**
 * Applies a version's {@code default}s as kube-apiserver does when it decodes a custom object: on request bodies
 * (after pruning) and on objects read from storage (pruned too), so an object stored before a default existed is
 * served, patched and validated with it ({@code customresource_handler.go unstructuredDefaulter},
 * {@code schemaCoercingDecoder}).
 */
public final class SchemaDefaults {
  private SchemaDefaults() {
  }

  /**
   * Defaults a request body in place.
   *
   * @return {@code o}
   */
  public static JsonObject apply(CrdVersion version, JsonObject o) {
    VersionSchema vs = version.validation();
    if (vs != null) {
      vs.applyDefaults(o);
    }
    return o;
  }

  /**
   * @param version the version the object is read in
   * @param stored  an object from storage (not changed)
   * @return a pruned, defaulted copy
   */
  public static JsonObject stored(CrdVersion version, JsonObject stored) {
    JsonObject o = stored.copy();
    VersionSchema vs = version.validation();
    if (vs != null) {
      vs.prune(o);
      vs.applyDefaults(o);
    }
    return o;
  }
}
