package io.mvproxy.node.fleet;

import io.mvproxy.node.membership.MembershipSnapshot;
import io.mvproxy.node.routing.Awaited;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a node still waits for before it may answer 404 (README "Routing rules"), as a pure function of what the
 * {@link DiscoveryVerticle} knows: the first membership snapshot, {@code --cluster-members} not yet joined,
 * Hazelcast members without a record, peers not yet fetched; each wait bounded by {@code --member-wait-seconds}
 * from when it began (node start for {@code --cluster-members}, first sight for members and peers). Table-tested in
 * {@code FleetWaitsTest}.
 *
 * @param configuredMembers  {@code --cluster-members} as resolved {@code ip:port} (may include this node)
 * @param selfClusterAddress this node's own Hazelcast {@code ip:port}
 * @param memberWaitMs       {@code --member-wait-seconds} in ms: the longest one awaited member holds 404 back
 */
record FleetWaits(List<String> configuredMembers, String selfClusterAddress, long memberWaitMs) {
  /**
   * A live peer as far as waiting is concerned.
   *
   * @param serverId its server ID
   * @param nodeId   its Hazelcast member UUID
   * @param loaded   whether its discovery is fetched
   * @param since    when this node began waiting for its discovery, epoch ms
   */
  record Peer(String serverId, String nodeId, boolean loaded, long since) {
  }

  /**
   * @param awaiting   what is awaited now, in the order joins, records, peer discovery
   * @param nextExpiry the epoch ms at which the earliest wait runs out, or {@link Long#MAX_VALUE} when none does
   */
  record Waits(List<Awaited> awaiting, long nextExpiry) {
  }

  /** @param configuredMembers copied; see the record's parameters */
  FleetWaits {
    configuredMembers = List.copyOf(configuredMembers);
  }

  /**
   * @param now             epoch ms
   * @param membershipKnown whether the first membership snapshot arrived (true at once when peers are disabled)
   * @param peersEnabled    whether this node has peers at all (false: only the membership wait applies)
   * @param startedAt       when the node started, epoch ms (the start of the {@code --cluster-members} wait)
   * @param members         the Hazelcast members of the last snapshot
   * @param memberSeenAt    member UUID to when it was first seen, epoch ms (absent: seen {@code now})
   * @param peers           the live peers with a record, in server-ID order
   * @return what is awaited and when the earliest wait expires
   */
  Waits at(long now, boolean membershipKnown, boolean peersEnabled, long startedAt,
           List<MembershipSnapshot.Member> members, Map<String, Long> memberSeenAt, Collection<Peer> peers) {
    List<Awaited> out = new ArrayList<>();
    if (!membershipKnown) {
      out.add(new Awaited(Awaited.Kind.MEMBERSHIP, ""));
      return new Waits(out, Long.MAX_VALUE);
    }
    long next = Long.MAX_VALUE;
    if (peersEnabled) {
      Set<String> joined = new HashSet<>();
      members.forEach(m -> joined.add(m.address()));
      if (now < startedAt + memberWaitMs) {
        for (String c : configuredMembers) {
          if (!c.equals(selfClusterAddress) && !joined.contains(c)) {
            out.add(new Awaited(Awaited.Kind.MEMBER_JOIN, c));
            next = Math.min(next, startedAt + memberWaitMs);
          }
        }
      }
      Set<String> published = new HashSet<>();
      peers.forEach(p -> published.add(p.nodeId()));
      for (MembershipSnapshot.Member m : members) {
        long seen = memberSeenAt.getOrDefault(m.nodeId(), now);
        if (!published.contains(m.nodeId()) && now < seen + memberWaitMs) {
          out.add(new Awaited(Awaited.Kind.MEMBER_RECORD, m.address()));
          next = Math.min(next, seen + memberWaitMs);
        }
      }
      for (Peer s : peers) {
        if (!s.loaded() && now < s.since() + memberWaitMs) {
          out.add(new Awaited(Awaited.Kind.PEER_DISCOVERY, s.serverId()));
          next = Math.min(next, s.since() + memberWaitMs);
        }
      }
    }
    return new Waits(out, next);
  }
}
