package io.mvproxy.node.fleet;

import io.mvproxy.discovery.DiscoveryDocuments;
import io.mvproxy.openapi.OpenApiDocuments;
import io.mvproxy.node.routing.RoutingSnapshot;

/**
 * Everything a request is answered from, swapped atomically as one: routing and the discovery documents are
 * always consistent with each other.
 *
 * @param routing   the routing snapshot
 * @param discovery the rendered discovery documents (local and peer-aggregated views)
 * @param openapi   the OpenAPI documents (local schemas; the root lists the fleet's group-versions)
 * @param members   live peers by server ID (as published in their records)
 * @param leaving   server IDs of peers leaving gracefully: their record is withdrawn (no new request is routed to
 *                  them) but their cluster member is still connected while they drain the requests they have
 */
public record FleetView(RoutingSnapshot routing, DiscoveryDocuments discovery, OpenApiDocuments openapi,
                        java.util.Map<String, io.mvproxy.node.membership.PeerInfo> members,
                        java.util.Set<String> leaving) {
  /** Copies the map and the set. */
  public FleetView {
    members = java.util.Map.copyOf(members);
    leaving = java.util.Set.copyOf(leaving);
  }

  /** A view with no peer leaving. */
  public FleetView(RoutingSnapshot routing, DiscoveryDocuments discovery, OpenApiDocuments openapi,
                   java.util.Map<String, io.mvproxy.node.membership.PeerInfo> members) {
    this(routing, discovery, openapi, members, java.util.Set.of());
  }

  /**
   * @param serverId a peer's server ID
   * @return true while the peer may still answer a request it was sent: live, or leaving gracefully (draining)
   */
  public boolean answering(String serverId) {
    return members.containsKey(serverId) || leaving.contains(serverId);
  }
}
