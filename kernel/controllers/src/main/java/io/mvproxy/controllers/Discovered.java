package io.mvproxy.controllers;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What one discovery pass found: every resource of every group-version (in discovery order: groups as listed, the
 * preferred version first) and the group-versions that could not be discovered (client-go's
 * {@code ErrGroupDiscoveryFailed}: a {@code Stale} group-version of aggregated discovery, which only a departed node
 * served, or a failed document).
 *
 * @param resources every resource listed (top-level resources only, not subresources)
 * @param failed    group-version to its error text, in discovery order
 */
public record Discovered(List<ApiResource> resources, Map<String, String> failed) {
  /** Copies. */
  public Discovered {
    resources = List.copyOf(resources);
    failed = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(failed));
  }

  /**
   * client-go's {@code ServerPreferredResources} filtered by verbs: for each group-resource the version listed first.
   *
   * @param namespacedOnly keep only namespaced resources ({@code ServerPreferredNamespacedResources})
   * @param verbs          verbs a resource must all have
   * @return the resources
   */
  public List<ApiResource> preferred(boolean namespacedOnly, String... verbs) {
    Map<String, ApiResource> byGr = new LinkedHashMap<>();
    for (ApiResource r : resources) {
      if (namespacedOnly && !r.namespaced()) {
        continue;
      }
      boolean all = true;
      for (String v : verbs) {
        all &= r.verbs().contains(v);
      }
      if (all) {
        byGr.putIfAbsent(r.groupResource(), r);
      }
    }
    return new ArrayList<>(byGr.values());
  }

  /**
   * Maps an owner reference's {@code apiVersion} and {@code kind} to its resource (the REST mapper).
   *
   * @param apiVersion {@code group/version} or {@code v1}
   * @param kind       the kind
   * @return the resource, when that group-version lists the kind
   */
  public Optional<ApiResource> resourceFor(String apiVersion, String kind) {
    return resources.stream().filter(r -> r.groupVersion().equals(apiVersion) && r.kind().equals(kind)).findFirst();
  }

  /**
   * @return client-go's discovery error text, {@code unable to retrieve the complete list of server APIs:
   *     <gv>: <error>, ...}, or null when nothing failed
   */
  public String failureText() {
    if (failed.isEmpty()) {
      return null;
    }
    return "unable to retrieve the complete list of server APIs: " + failed.entrySet().stream()
        .map(e -> e.getKey() + ": " + e.getValue()).collect(Collectors.joining(", "));
  }
}
