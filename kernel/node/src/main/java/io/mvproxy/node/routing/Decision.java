package io.mvproxy.node.routing;

import io.mvproxy.api.ApiSource;
import java.util.List;

/** Where one resource request goes (peer-proxy.md section 4; README "Routing rules"). */
public sealed interface Decision {
  /** Served by a local source. @param source the source */
  record Local(ApiSource source) implements Decision {
  }

  /** Proxied; try the targets in order until one connects. @param targets capable peers, shuffled */
  record Proxy(List<PeerTarget> targets) implements Decision {
  }

  /**
   * 503 + Retry-After.
   *
   * @param cause   why (metric label)
   * @param message the Status message: what is unreachable or awaited
   */
  record Unavailable(Cause cause, String message) implements Decision {
    /** Why a request gets 503 instead of an answer. */
    public enum Cause {
      /** Only departed (crashed, cut off) peers served it, within the stale window. */
      DEPARTED("departed"),
      /** The fleet's API set is not fully known yet (see {@link Awaited}). */
      FLEET_UNKNOWN("fleet_unknown"),
      /**
       * A peer hop reached this node for something it does not serve (any more): the proxying node's view trailed a
       * plugin change here. Answered 503 with {@link io.mvproxy.node.proxy.PeerProxy#NOT_SERVED_HERE}, never 404, so
       * the proxying node tries the next capable peer (README "Routing rules").
       */
      NOT_SERVED_HERE("not_served_here");

      private final String label;

      Cause(String label) {
        this.label = label;
      }

      /** @return the metric label value */
      public String label() {
        return label;
      }
    }
  }

  /** 404: no node of the fleet serves it, and every member's API set is known. */
  record NotFound() implements Decision {
  }
}
