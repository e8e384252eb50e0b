package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.GroupVersion;
import io.mvproxy.registry.impl.model.CrdDefinition;
import io.mvproxy.registry.impl.model.CrdVersion;
import io.mvproxy.registry.impl.schema.VersionSchema;
import io.vertx.core.json.JsonObject;

/**
 * Applies a version's {@code default}s as kube-apiserver does when it decodes a custom object
 * ({@code customresource_handler.go unstructuredDefaulter}, {@code schemaCoercingDecoder}): request bodies with the
 * request version's schema (after pruning); objects read from storage pruned and defaulted with the schema of the
 * version they were stored in (their {@code apiVersion}, the storage version when they were written), so an object
 * stored before a default existed is served, patched and validated with it.
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
   * @param crd      the definition
   * @param fallback the version used when the stored {@code apiVersion} names no version of the CRD
   * @param stored   an object from storage (not changed)
   * @return a pruned, defaulted copy
   */
  public static JsonObject stored(CrdDefinition crd, CrdVersion fallback, JsonObject stored) {
    return storedInPlace(crd, fallback, stored.copy());
  }

  /**
   * As {@link #stored} without the copy: for an object the caller owns (a fresh copy no one else holds, never one
   * from a watch cache or a shared stored object).
   *
   * @param crd      the definition
   * @param fallback the version used when the stored {@code apiVersion} names no version of the CRD
   * @param o        an object from storage, pruned and defaulted in place
   * @return {@code o}
   */
  public static JsonObject storedInPlace(CrdDefinition crd, CrdVersion fallback, JsonObject o) {
    CrdVersion v = fallback;
    if (o.getValue("apiVersion") instanceof String av) {
      String name = GroupVersion.parse(av).version();
      for (CrdVersion x : crd.versions()) {
        if (x.name().equals(name)) {
          v = x;
          break;
        }
      }
    }
    VersionSchema vs = v.validation();
    if (vs != null) {
      vs.prune(o);
      vs.applyDefaults(o);
    }
    return o;
  }
}
