package io.mvproxy.node.routing;

/**
 * One thing a node still waits for before it may answer {@code 404} for a resource no known node serves (README
 * "Routing rules"); each is bounded by {@code --member-wait-seconds}.
 *
 * @param kind what kind of wait
 * @param what the member or peer waited for, e.g. {@code 127.0.0.1:5702} or a server ID
 */
public record Awaited(Kind kind, String what) {
  /** The kinds of wait, in the order a member goes through them; {@link #label()} is the metric label. */
  public enum Kind {
    /** The node has not yet seen its first membership snapshot. */
    MEMBERSHIP("membership"),
    /** A {@code --cluster-members} address that is not (yet) a member of this node's Hazelcast cluster. */
    MEMBER_JOIN("member_join"),
    /** A Hazelcast member that has not (yet) published its record (it publishes once its API set is known). */
    MEMBER_RECORD("member_record"),
    /** A published peer whose discovery has not been fetched yet. */
    PEER_DISCOVERY("peer_discovery");

    private final String label;

    Kind(String label) {
      this.label = label;
    }

    /** @return the lower-case metric label value */
    public String label() {
      return label;
    }
  }

  /** @return a phrase for the 503 message and logs, e.g. {@code cluster member 127.0.0.1:5702 to join} */
  public String describe() {
    return switch (kind) {
      case MEMBERSHIP -> "the cluster membership";
      case MEMBER_JOIN -> "cluster member " + what + " (--cluster-members) to join";
      case MEMBER_RECORD -> "cluster member " + what + " to publish its API set";
      case PEER_DISCOVERY -> "the discovery of peer " + what;
    };
  }
}
