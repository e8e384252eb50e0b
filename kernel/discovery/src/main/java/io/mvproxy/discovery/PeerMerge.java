package io.mvproxy.discovery;

import io.mvproxy.api.discovery.DiscoveryGroup;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.DiscoverySubresource;
import io.mvproxy.api.discovery.DiscoveryVersion;
import io.mvproxy.api.discovery.Freshness;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Merges the local discovery documents of every server of the fleet into the peer-aggregated one (discovery.md
 * section 5; apiserver {@code aggregated/peer_aggregated_handler.go}).
 *
 * <ul>
 *   <li>Servers are processed in lexicographic server-ID order; the lowest ID decides metadata and ties.</li>
 *   <li>Groups by name, versions and resources united; orders merged with {@link OrderPreservingMerge}.</li>
 *   <li>A resource described differently: verbs = sorted union (kept as is when every server lists the same
 *       verbs), subresources = union by name (the later server wins a clash) sorted by name, all other fields
 *       from the first server.</li>
 *   <li>mvproxy rule: a version is {@code Current} if any server lists it {@code Current}, else {@code Stale}.</li>
 * </ul>
 * Deterministic: the same inputs give equal output whatever the map's iteration order or comparator.
 */
public final class PeerMerge {
  private PeerMerge() {
  }

  /**
   * @param byServer each server's local (nopeer) groups, keyed by server ID; core and non-core may be mixed
   * @return the merged groups, in merged order
   */
  public static List<DiscoveryGroup> merge(SortedMap<String, List<DiscoveryGroup>> byServer) {
    List<List<DiscoveryGroup>> docs = new ArrayList<>(new TreeMap<>(byServer).values());
    List<List<String>> groupOrders = new ArrayList<>();
    Map<String, List<DiscoveryGroup>> groupsByName = new LinkedHashMap<>();
    for (List<DiscoveryGroup> doc : docs) {
      List<String> order = new ArrayList<>();
      for (DiscoveryGroup g : doc) {
        order.add(g.name());
        groupsByName.computeIfAbsent(g.name(), n -> new ArrayList<>()).add(g);
      }
      groupOrders.add(order);
    }
    List<DiscoveryGroup> out = new ArrayList<>();
    for (String name : OrderPreservingMerge.merge(groupOrders)) {
      out.add(mergeGroup(name, groupsByName.get(name)));
    }
    return out;
  }

  private static DiscoveryGroup mergeGroup(String name, List<DiscoveryGroup> descs) {
    List<List<String>> orders = new ArrayList<>();
    Map<String, List<DiscoveryVersion>> byVersion = new LinkedHashMap<>();
    for (DiscoveryGroup g : descs) {
      List<String> order = new ArrayList<>();
      for (DiscoveryVersion v : g.versions()) {
        order.add(v.version());
        byVersion.computeIfAbsent(v.version(), k -> new ArrayList<>()).add(v);
      }
      orders.add(order);
    }
    List<DiscoveryVersion> versions = new ArrayList<>();
    for (String v : OrderPreservingMerge.merge(orders)) {
      versions.add(mergeVersion(v, byVersion.get(v)));
    }
    return new DiscoveryGroup(name, versions);
  }

  private static DiscoveryVersion mergeVersion(String version, List<DiscoveryVersion> descs) {
    List<List<String>> orders = new ArrayList<>();
    Map<String, List<DiscoveryResource>> byName = new LinkedHashMap<>();
    boolean current = false;
    for (DiscoveryVersion v : descs) {
      current |= v.freshness() != Freshness.Stale;
      List<String> order = new ArrayList<>();
      for (DiscoveryResource r : v.resources()) {
        order.add(r.resource());
        byName.computeIfAbsent(r.resource(), k -> new ArrayList<>()).add(r);
      }
      orders.add(order);
    }
    List<DiscoveryResource> resources = new ArrayList<>();
    for (String r : OrderPreservingMerge.merge(orders)) {
      resources.add(mergeResource(byName.get(r)));
    }
    return new DiscoveryVersion(version, resources, current ? Freshness.Current : Freshness.Stale);
  }

  /**
   * @param descs the descriptions of one resource, in server order (at least one)
   * @return the merged description
   */
  static DiscoveryResource mergeResource(List<DiscoveryResource> descs) {
    DiscoveryResource first = descs.get(0);
    if (descs.size() == 1) {
      return first;
    }
    List<String> verbs = first.verbs();
    boolean sameVerbs = descs.stream().allMatch(d -> d.verbs().equals(first.verbs()));
    if (!sameVerbs) {
      TreeSet<String> union = new TreeSet<>();
      descs.forEach(d -> union.addAll(d.verbs()));
      verbs = new ArrayList<>(union);
    }
    TreeMap<String, DiscoverySubresource> subs = new TreeMap<>();
    for (DiscoveryResource d : descs) {
      for (DiscoverySubresource s : d.subresources()) {
        subs.put(s.subresource(), s);
      }
    }
    boolean sameSubs = descs.stream().allMatch(d -> d.subresources().equals(first.subresources()));
    List<DiscoverySubresource> subresources = sameSubs ? first.subresources() : new ArrayList<>(subs.values());
    String hash = first.storageVersionHash();
    for (DiscoveryResource d : descs) {
      hash = hash != null ? hash : d.storageVersionHash();
    }
    return new DiscoveryResource(first.resource(), first.singularResource(), first.responseKind(),
        first.namespaced(), verbs, first.shortNames(), first.categories(), subresources, hash);
  }
}
