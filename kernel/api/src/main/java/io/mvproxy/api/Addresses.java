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

  /** Local publish: the local API sources changed (plugin loaded or unloaded). Body: none. */
  public static final String LOCAL_APIS_CHANGED = "mvproxy.local.apis.changed";
}
