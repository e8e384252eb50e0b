package io.mvproxy.crd.store;

import io.vertx.core.json.JsonObject;

/**
 * A change of one object, as seen cluster-wide through the map listener.
 *
 * @param type            {@code ADDED}, {@code MODIFIED} or {@code DELETED}
 * @param resourceVersion the resourceVersion of the change (for DELETED the deletion's own version)
 * @param key             map key
 * @param object          the object after the change (for DELETED the last state, carrying the deletion version)
 * @param previous        the object before the change, or null for ADDED
 */
public record WatchEvent(String type, long resourceVersion, String key, JsonObject object, JsonObject previous) {
}
