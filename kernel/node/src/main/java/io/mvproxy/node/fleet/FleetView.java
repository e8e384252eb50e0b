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
 */
public record FleetView(RoutingSnapshot routing, DiscoveryDocuments discovery, OpenApiDocuments openapi,
                        java.util.Map<String, io.mvproxy.node.membership.PeerInfo> members) {
  /** Copies the map. */
  public FleetView {
    members = java.util.Map.copyOf(members);
  }
}
