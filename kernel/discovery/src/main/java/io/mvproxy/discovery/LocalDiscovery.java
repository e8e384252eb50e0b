package io.mvproxy.discovery;

import io.mvproxy.api.discovery.DiscoveryGroup;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.DiscoveryVersion;
import io.mvproxy.api.discovery.Freshness;
import io.mvproxy.api.discovery.ServedGroupVersion;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The discovery document of one node, built from what its sources serve (discovery.md section 4; apiserver
 * {@code aggregated/handler.go} and apiextensions {@code customresource_discovery_controller.go}).
 *
 * <ul>
 *   <li>Groups: priority (largest {@code groupPriorityMinimum} of their versions) highest first, then name.</li>
 *   <li>Versions in a group: {@code versionPriority} highest first, then {@link VersionOrder}.</li>
 *   <li>Resources in a version: by plural name. Several sources serving the same group-version are united by
 *       resource name (the first source listing a name wins); the version is {@code Current} if any source of it
 *       is.</li>
 * </ul>
 * Immutable; the core group {@code ""} (served at {@code /api}) is kept apart from the others ({@code /apis}).
 */
public final class LocalDiscovery {
  private final List<DiscoveryGroup> groups;

  private LocalDiscovery(List<DiscoveryGroup> groups) {
    this.groups = List.copyOf(groups);
  }

  /**
   * Builds the ordered document.
   *
   * @param served what the local sources serve, in any order; several entries may share a group-version
   * @return the local document
   */
  public static LocalDiscovery of(List<ServedGroupVersion> served) {
    Map<String, Map<String, Acc>> byGroup = new TreeMap<>();
    for (ServedGroupVersion sgv : served) {
      byGroup.computeIfAbsent(sgv.groupVersion().group(), g -> new TreeMap<>())
          .computeIfAbsent(sgv.groupVersion().version(), v -> new Acc()).add(sgv);
    }
    record Ranked(DiscoveryGroup group, int priority) {
    }
    List<Ranked> ranked = new ArrayList<>();
    byGroup.forEach((group, versions) -> {
      List<Map.Entry<String, Acc>> vs = new ArrayList<>(versions.entrySet());
      vs.sort(Comparator.<Map.Entry<String, Acc>>comparingInt(e -> -e.getValue().versionPriority)
          .thenComparing(Map.Entry::getKey, VersionOrder.INSTANCE));
      int priority = Integer.MIN_VALUE;
      List<DiscoveryVersion> out = new ArrayList<>();
      for (Map.Entry<String, Acc> e : vs) {
        priority = Math.max(priority, e.getValue().groupPriority);
        out.add(e.getValue().toVersion(e.getKey()));
      }
      ranked.add(new Ranked(new DiscoveryGroup(group, out), priority));
    });
    ranked.sort(Comparator.comparingInt((Ranked r) -> -r.priority()).thenComparing(r -> r.group().name()));
    return new LocalDiscovery(ranked.stream().map(Ranked::group).toList());
  }

  /** @return every group, core included, in emitted order */
  public List<DiscoveryGroup> groups() {
    return groups;
  }

  /** @return the core group alone (the {@code /api} document): a list of zero or one group */
  public List<DiscoveryGroup> core() {
    return coreOf(groups);
  }

  /** @return every group but core (the {@code /apis} document), in emitted order */
  public List<DiscoveryGroup> nonCore() {
    return nonCoreOf(groups);
  }

  /**
   * @param groups a group list
   * @return the core group of it, as a list of zero or one group
   */
  public static List<DiscoveryGroup> coreOf(List<DiscoveryGroup> groups) {
    return groups.stream().filter(g -> g.name().isEmpty()).toList();
  }

  /**
   * @param groups a group list
   * @return the non-core groups of it, order kept
   */
  public static List<DiscoveryGroup> nonCoreOf(List<DiscoveryGroup> groups) {
    return groups.stream().filter(g -> !g.name().isEmpty()).toList();
  }

  /** Collects the sources of one group-version. */
  private static final class Acc {
    private int groupPriority = Integer.MIN_VALUE;
    private int versionPriority = Integer.MIN_VALUE;
    private boolean current;
    private final Map<String, DiscoveryResource> resources = new LinkedHashMap<>();

    void add(ServedGroupVersion sgv) {
      groupPriority = Math.max(groupPriority, sgv.groupPriorityMinimum());
      versionPriority = Math.max(versionPriority, sgv.versionPriority());
      current |= sgv.freshness() != Freshness.Stale;
      for (DiscoveryResource r : sgv.resources()) {
        resources.putIfAbsent(r.resource(), r);
      }
    }

    DiscoveryVersion toVersion(String version) {
      List<DiscoveryResource> rs = new ArrayList<>(resources.values());
      rs.sort(Comparator.comparing(DiscoveryResource::resource));
      return new DiscoveryVersion(version, rs, current ? Freshness.Current : Freshness.Stale);
    }
  }
}
