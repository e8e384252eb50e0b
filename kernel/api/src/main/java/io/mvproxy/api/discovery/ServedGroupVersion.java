package io.mvproxy.api.discovery;

import io.mvproxy.api.GroupVersion;
import java.util.List;

/**
 * What an {@link io.mvproxy.api.ApiSource} serves under one group-version, with the priorities that order the
 * local discovery document (discovery.md section 4; CRDs use 1000/100).
 *
 * @param groupVersion         the group-version
 * @param groupPriorityMinimum group priority, higher first (1..20000)
 * @param versionPriority      version priority within the group, higher first (1..1000)
 * @param resources            resources served under it
 * @param freshness            Current, or Stale when the source could not refresh (e.g. aggregated backend down)
 */
public record ServedGroupVersion(GroupVersion groupVersion, int groupPriorityMinimum, int versionPriority,
                                 List<DiscoveryResource> resources, Freshness freshness) {
  /** Copies the list. */
  public ServedGroupVersion {
    resources = List.copyOf(resources);
  }
}
