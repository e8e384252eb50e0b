package io.mvproxy.api.storage;

import io.vertx.core.json.JsonObject;

/**
 * An object as read from storage.
 *
 * @param key             relative key ({@code <ns>/<name>} or {@code <name>})
 * @param object          the object, {@code metadata.resourceVersion} set to {@code resourceVersion} (callers copy
 *                        before changing it)
 * @param resourceVersion the revision of the object's last write (etcd mod revision); for a deleted object's last
 *                        state the delete's revision
 */
public record StoredObject(String key, JsonObject object, long resourceVersion) {

  /** @return {@code metadata.uid}, or null */
  public String uid() {
    JsonObject m = object.getJsonObject("metadata");
    return m == null ? null : m.getString("uid");
  }
}
