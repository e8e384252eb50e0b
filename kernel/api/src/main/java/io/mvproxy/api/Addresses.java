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

  /**
   * Local request/reply: asks the discovery verticle to answer once every live peer has applied this node's current
   * local (nopeer) discovery, i.e. no peer's routing still lists what this node has just withdrawn (README
   * "Plugins": make before break). Body: none; reply: none, after at most the sender's timeout.
   */
  public static final String LOCAL_PEERS_CAUGHT_UP = "mvproxy.local.peers.caught-up";

  /**
   * Cluster-wide point-to-point address of one node, {@code mvproxy.discovery.applied.<serverId>}: a peer tells the
   * node it has fetched and applied the node's local discovery. Body: JSON {@code {"serverId": <the peer>, "etag":
   * <the node's nopeer ETag the peer applied>}}.
   *
   * @param serverId the node whose discovery was applied
   * @return the address
   */
  public static String discoveryApplied(String serverId) {
    return "mvproxy.discovery.applied." + serverId;
  }
}
