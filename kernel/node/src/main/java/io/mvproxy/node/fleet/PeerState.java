package io.mvproxy.node.fleet;

import io.mvproxy.api.discovery.DiscoveryGroup;
import io.mvproxy.node.membership.PeerInfo;
import java.util.List;

/** Mutable per-peer state owned by {@link DiscoveryVerticle} (its single writer). */
final class PeerState {
  PeerInfo info;
  /** Last fetched groups (core first); kept on failure (last-known-good). */
  List<DiscoveryGroup> groups = List.of();
  /** The last answer with its ETags, for If-None-Match revalidation. */
  PeerDiscoveryClient.Fetched fetched;
  /** The record ETag the groups were fetched for. */
  String fetchedEtag;
  boolean loaded;
  boolean stale;
  boolean fetching;
  boolean refetch;
  int failures;
  /** When this node began waiting for the peer's discovery, epoch ms (first seen, or rejoined). */
  long since = System.currentTimeMillis();

  PeerState(PeerInfo info) {
    this.info = info;
  }
}
