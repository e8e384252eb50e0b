package io.mvproxy.node.cluster;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The addresses a Hazelcast connection may come from: the IPs of the {@code --cluster-members} hosts and of
 * {@code --cluster-host}. Host names (a compose network's service names, DNS names of VMs) are resolved at start and
 * again when a connection comes from an address not in the set (a member restarted with a new IP), at most once per
 * {@link #RERESOLVE_INTERVAL_MS}, so a stranger cannot make the node hammer its resolver.
 */
final class MemberAllowlist {
  private static final Logger LOG = Logger.getLogger(MemberAllowlist.class.getName());
  /** Shortest time (ms) between two resolutions of the member names. */
  static final long RERESOLVE_INTERVAL_MS = 1_000;

  private final List<String> hosts;
  private volatile Set<InetAddress> allowed;
  private long resolvedAt;

  /**
   * @param members     {@code host[:port]} of {@code --cluster-members} (host names or IP literals)
   * @param clusterHost {@code --cluster-host}: this node's own connections (discovery probes) come from it
   */
  MemberAllowlist(List<String> members, String clusterHost) {
    List<String> h = new java.util.ArrayList<>();
    h.add(clusterHost);
    for (String m : members) {
      h.add(host(m));
    }
    this.hosts = List.copyOf(h);
    this.allowed = resolve();
    this.resolvedAt = System.nanoTime();
  }

  /**
   * @param member {@code host:port}, {@code host}, or {@code [v6]:port}
   * @return the host part, without brackets
   */
  static String host(String member) {
    String h = member;
    int c = member.lastIndexOf(':');
    if (c > 0 && member.indexOf(':') == c) {
      h = member.substring(0, c);
    } else if (member.startsWith("[") && member.contains("]")) {
      h = member.substring(1, member.indexOf(']'));
    }
    return h;
  }

  /**
   * @param address where a connection comes from
   * @return whether it is the address of a configured member (resolving the names again, rate-limited, on a miss)
   */
  boolean allows(InetAddress address) {
    if (address == null) {
      return false;
    }
    if (allowed.contains(address)) {
      return true;
    }
    synchronized (this) {
      long now = System.nanoTime();
      if (TimeUnit.NANOSECONDS.toMillis(now - resolvedAt) >= RERESOLVE_INTERVAL_MS) {
        resolvedAt = now;
        allowed = resolve();
      }
    }
    return allowed.contains(address);
  }

  /** @return the addresses allowed now (for messages and tests) */
  Set<InetAddress> addresses() {
    return allowed;
  }

  private Set<InetAddress> resolve() {
    Set<InetAddress> out = new HashSet<>();
    for (String h : hosts) {
      try {
        out.addAll(List.of(InetAddress.getAllByName(h)));
      } catch (UnknownHostException e) {
        LOG.fine("cluster member " + h + " does not resolve (yet): " + e.getMessage());
      }
    }
    return Set.copyOf(out);
  }
}
