/**
 * Discovery for mvproxy (spec: {@code discovery.md}): the local document ({@link io.mvproxy.discovery.LocalDiscovery}),
 * the peer-aggregated merge ({@link io.mvproxy.discovery.PeerMerge}, {@link io.mvproxy.discovery.OrderPreservingMerge},
 * {@link io.mvproxy.discovery.VersionOrder}), aggregated and legacy JSON ({@link io.mvproxy.discovery.DiscoveryCodec},
 * {@link io.mvproxy.discovery.LegacyDiscovery}), Accept negotiation ({@link io.mvproxy.discovery.AcceptNegotiation}),
 * ETags ({@link io.mvproxy.discovery.Etags}), the per-change snapshot ({@link io.mvproxy.discovery.DiscoveryDocuments})
 * and the Vert.x Web handler ({@link io.mvproxy.discovery.DiscoveryHandler}).
 */
package io.mvproxy.discovery;
