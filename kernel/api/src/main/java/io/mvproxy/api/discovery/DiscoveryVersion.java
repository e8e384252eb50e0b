package io.mvproxy.api.discovery;

import java.util.List;

/**
 * One version of a group in apidiscovery v2 ({@code APIVersionDiscovery}).
 *
 * @param version   the version, e.g. {@code v1}
 * @param resources resources in emitted order
 * @param freshness Current or Stale
 */
public record DiscoveryVersion(String version, List<DiscoveryResource> resources, Freshness freshness) {
  /** Copies the list. */
  public DiscoveryVersion {
    resources = List.copyOf(resources);
  }
}
