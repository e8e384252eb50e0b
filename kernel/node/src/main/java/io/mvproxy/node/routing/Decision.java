package io.mvproxy.node.routing;

import io.mvproxy.api.ApiSource;
import java.util.List;

/** Where one resource request goes (peer-proxy.md section 4). */
public sealed interface Decision {
  /** Served by a local source. @param source the source */
  record Local(ApiSource source) implements Decision {
  }

  /** Proxied; try the targets in order until one connects. @param targets capable peers, shuffled */
  record Proxy(List<PeerTarget> targets) implements Decision {
  }

  /** 503 + Retry-After: only unreachable or departed peers served it, or peer data is not loaded yet. */
  record Unavailable(String message) implements Decision {
  }

  /** 404: no node of the fleet serves it. */
  record NotFound() implements Decision {
  }
}
