package io.mvproxy.api;

/**
 * Every event-bus address mvproxy uses, declared in one place. Cluster-wide addresses reach every node of the
 * fleet; local ones stay inside one node.
 */
public final class Addresses {
  private Addresses() {
  }

  /**
   * Cluster-wide publish: a node's local API set changed. Body: JSON {@code {"serverId":..., "etag":...}} where
   * etag is the node's nopeer discovery ETag. Receivers refetch that peer's discovery.
   */
  public static final String DISCOVERY_CHANGED = "mvproxy.discovery.changed";

  /** Local publish: the live peer set changed. Body: JSON {@code {"peers":[{serverId, address, etag, nodeId}]}}. */
  public static final String MEMBERSHIP_CHANGED = "mvproxy.local.membership.changed";

  /** Local send: this node's new local (nopeer) discovery ETag, String body; membership puts it in the record. */
  public static final String LOCAL_ETAG_CHANGED = "mvproxy.local.etag.changed";

  /** Vert.x Service Discovery's own announce address (records published, updated or removed). */
  public static final String SERVICE_DISCOVERY_ANNOUNCE = "vertx.discovery.announce";

  /** Local publish: the local API sources changed (plugin loaded or unloaded). Body: none. */
  public static final String LOCAL_APIS_CHANGED = "mvproxy.local.apis.changed";
}
