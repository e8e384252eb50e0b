package io.mvproxy.node.membership;

import java.util.List;

/**
 * What {@link MembershipVerticle} publishes on {@code Addresses.MEMBERSHIP_CHANGED} (node-local, by instance through
 * {@link io.mvproxy.node.bus.LocalCodec}): the live peers (members with a
 * published record) and every other member of this node's Hazelcast cluster, published or not, so the discovery
 * verticle knows whom it still waits for (README "Routing rules").
 *
 * @param peers   live peers with a record, by server ID
 * @param members every Hazelcast member except this node
 */
public record MembershipSnapshot(List<PeerInfo> peers, List<Member> members) {
  /** Copies the lists. */
  public MembershipSnapshot {
    peers = List.copyOf(peers);
    members = List.copyOf(members);
  }

  /**
   * A Hazelcast member.
   *
   * @param nodeId  its member UUID (the {@code nodeId} of its record)
   * @param address its cluster {@code ip:port}
   */
  public record Member(String nodeId, String address) {
  }
}
