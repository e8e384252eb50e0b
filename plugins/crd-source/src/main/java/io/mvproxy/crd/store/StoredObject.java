package io.mvproxy.crd.store;

import io.vertx.core.json.JsonObject;

/**
 * An object as held in the cluster-wide map: the exact stored JSON text (the compare-and-set token) and its parse.
 *
 * @param key             map key, {@code namespace/name} ({@code /name} for cluster-scoped objects)
 * @param raw             stored JSON text
 * @param object          parsed object (callers must copy before changing it)
 * @param resourceVersion {@code metadata.resourceVersion} as a number
 */
public record StoredObject(String key, String raw, JsonObject object, long resourceVersion) {

  /** @return a stored object parsed from {@code raw} */
  public static StoredObject of(String key, String raw) {
    JsonObject o = new JsonObject(raw);
    return new StoredObject(key, raw, o, resourceVersionOf(o));
  }

  /** @return the numeric {@code metadata.resourceVersion} of {@code o}, 0 when absent or not a number */
  public static long resourceVersionOf(JsonObject o) {
    JsonObject m = o.getJsonObject("metadata");
    String rv = m == null ? null : m.getString("resourceVersion");
    if (rv == null) {
      return 0;
    }
    try {
      return Long.parseLong(rv);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** @return the map key of an object: {@code namespace/name} */
  public static String key(String namespace, String name) {
    return (namespace == null ? "" : namespace) + "/" + name;
  }
}
