package io.mvproxy.node.routing;

import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.Gvr;
import io.mvproxy.api.discovery.DiscoveryGroup;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.DiscoverySubresource;
import io.mvproxy.api.discovery.DiscoveryVersion;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one server serves, as learned from its discovery: GVR to the set of its subresources. Immutable.
 *
 * @param resources GVR to subresource names
 */
public record Capabilities(Map<Gvr, Set<String>> resources) {
  /** Copies the map. */
  public Capabilities {
    Map<Gvr, Set<String>> copy = new HashMap<>();
    resources.forEach((k, v) -> copy.put(k, Set.copyOf(v)));
    resources = Map.copyOf(copy);
  }

  /** An empty set of capabilities. */
  public static final Capabilities NONE = new Capabilities(Map.of());

  /**
   * @param groups a server's discovery groups (core and others), any freshness
   * @return its capabilities
   */
  public static Capabilities of(List<DiscoveryGroup> groups) {
    Map<Gvr, Set<String>> map = new HashMap<>();
    for (DiscoveryGroup g : groups) {
      for (DiscoveryVersion v : g.versions()) {
        for (DiscoveryResource r : v.resources()) {
          Set<String> subs = map.computeIfAbsent(new Gvr(g.name(), v.version(), r.resource()), k -> new HashSet<>());
          for (DiscoverySubresource s : r.subresources()) {
            subs.add(s.subresource());
          }
        }
      }
    }
    return new Capabilities(map);
  }

  /**
   * @param gvr         the resource
   * @param subresource subresource or {@code ""}
   * @return true when this server serves the resource (and the subresource, when one is named)
   */
  public boolean serves(Gvr gvr, String subresource) {
    Set<String> subs = resources.get(gvr);
    return subs != null && (subresource.isEmpty() || subs.contains(subresource));
  }

  /** @param gv a group-version @return true when any resource of it is served */
  public boolean serves(GroupVersion gv) {
    for (Gvr g : resources.keySet()) {
      if (g.group().equals(gv.group()) && g.version().equals(gv.version())) {
        return true;
      }
    }
    return false;
  }

  /** @param group a group name @return true when any version of it is served */
  public boolean servesGroup(String group) {
    return resources.keySet().stream().anyMatch(g -> g.group().equals(group));
  }
}
