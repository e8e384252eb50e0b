package io.mvproxy.api.discovery;

import java.util.List;

/**
 * A resource in apidiscovery v2 ({@code APIResourceDiscovery}), plus the legacy-only {@code storageVersionHash}.
 *
 * @param resource           plural name
 * @param singularResource   singular name
 * @param responseKind       group/version/kind returned
 * @param namespaced         true for {@code scope: Namespaced}, false for {@code Cluster}
 * @param verbs              verbs in the order the server lists them
 * @param shortNames         short names ({@code []} when none)
 * @param categories         categories ({@code []} when none)
 * @param subresources       subresources ({@code []} when none)
 * @param storageVersionHash legacy discovery hash, or null
 */
public record DiscoveryResource(String resource, String singularResource, ResponseKind responseKind,
                                boolean namespaced, List<String> verbs, List<String> shortNames,
                                List<String> categories, List<DiscoverySubresource> subresources,
                                String storageVersionHash) {
  /** Copies the lists. */
  public DiscoveryResource {
    verbs = List.copyOf(verbs);
    shortNames = List.copyOf(shortNames);
    categories = List.copyOf(categories);
    subresources = List.copyOf(subresources);
  }

  /** @return {@code Namespaced} or {@code Cluster} */
  public String scope() {
    return namespaced ? "Namespaced" : "Cluster";
  }
}
