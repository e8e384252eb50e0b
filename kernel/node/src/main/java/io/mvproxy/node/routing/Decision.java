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
      FLEET_UNKNOWN("fleet_unknown");

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
