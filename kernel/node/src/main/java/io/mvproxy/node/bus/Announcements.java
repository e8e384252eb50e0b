package io.mvproxy.node.bus;

import io.vertx.core.json.JsonObject;

/**
 * The typed form of the messages nodes send each other on the clustered event bus. They travel as JSON objects (the
 * wire form every mvproxy version reads: a node of another version may be on the other end during an upgrade) and
 * are read and written only through these records.
 */
public final class Announcements {
  private Announcements() {
  }

  /**
   * {@code Addresses.DISCOVERY_CHANGED}: a node's local (nopeer) API set changed.
   *
   * @param serverId the node
   * @param etag     its new nopeer discovery ETag
   */
  public record DiscoveryChanged(String serverId, String etag) {
    /** @return the wire form {@code {"serverId":..., "etag":...}} */
    public JsonObject toJson() {
      return new JsonObject().put("serverId", serverId).put("etag", etag);
    }

    /** @param j the wire form (fields may be missing: empty server ID, null ETag) @return the message */
    public static DiscoveryChanged fromJson(JsonObject j) {
      return new DiscoveryChanged(j.getString("serverId", ""), j.getString("etag"));
    }
  }

  /**
   * {@code Addresses.discoveryApplied(node)}: a peer fetched and applied the node's local discovery.
   *
   * @param serverId the peer that applied it
   * @param etag     the node's nopeer ETag it applied
   */
  public record DiscoveryApplied(String serverId, String etag) {
    /** @return the wire form {@code {"serverId":..., "etag":...}} */
    public JsonObject toJson() {
      return new JsonObject().put("serverId", serverId).put("etag", etag);
    }

    /** @param j the wire form @return the message */
    public static DiscoveryApplied fromJson(JsonObject j) {
      return new DiscoveryApplied(j.getString("serverId", ""), j.getString("etag", ""));
    }
  }
}
