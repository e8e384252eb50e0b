package io.mvproxy.api.discovery;

import java.util.List;

/**
 * A subresource in apidiscovery v2 ({@code APISubresourceDiscovery}).
 *
 * @param subresource  name, e.g. {@code status} or {@code scale}
 * @param responseKind what it returns (never null: client-go drops subresources without one)
 * @param verbs        verbs, e.g. {@code [get, patch, update]}
 */
public record DiscoverySubresource(String subresource, ResponseKind responseKind, List<String> verbs) {
  /** Copies the verb list. */
  public DiscoverySubresource {
    verbs = List.copyOf(verbs);
  }
}
