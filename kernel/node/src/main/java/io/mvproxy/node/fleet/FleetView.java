package io.mvproxy.node.fleet;

import io.mvproxy.discovery.DiscoveryDocuments;
import io.mvproxy.node.routing.RoutingSnapshot;

/**
 * Everything a request is answered from, swapped atomically as one: routing and the discovery documents are
 * always consistent with each other.
 *
 * @param routing   the routing snapshot
 * @param discovery the rendered discovery documents (local and peer-aggregated views)
 */
public record FleetView(RoutingSnapshot routing, DiscoveryDocuments discovery) {
}
