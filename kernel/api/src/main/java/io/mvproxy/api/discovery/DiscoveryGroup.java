package io.mvproxy.api.discovery;

import java.util.List;

/**
 * One group in apidiscovery v2 ({@code APIGroupDiscovery}); versions in preference order.
 *
 * @param name     group name, {@code ""} for core
 * @param versions versions, most preferred first
 */
public record DiscoveryGroup(String name, List<DiscoveryVersion> versions) {
  /** Copies the list. */
  public DiscoveryGroup {
    versions = List.copyOf(versions);
  }
}
