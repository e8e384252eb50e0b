package io.mvproxy.discovery;

import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.discovery.DiscoveryGroup;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.DiscoverySubresource;
import io.mvproxy.api.discovery.DiscoveryVersion;
import io.mvproxy.api.discovery.Freshness;
import io.mvproxy.api.discovery.ResponseKind;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * Legacy (pre-aggregated) discovery documents, apimachinery {@code meta/v1} {@code APIVersions},
 * {@code APIGroupList}, {@code APIGroup} and {@code APIResourceList} (discovery.md section 3; apiserver
 * {@code pkg/endpoints/discovery/{legacy,root,group,version}.go}).
 *
 * <p>Stale versions are left out; the preferred version is the first non-Stale one; a group with no non-Stale
 * version is left out. Subresources are separate {@code plural/sub} entries; an entry whose response kind lies in
 * another group-version (e.g. {@code scale} -> {@code autoscaling/v1 Scale}) carries {@code group} and
 * {@code version}, as apiextensions' {@code customresource_discovery_controller.go} writes.
 */
public final class LegacyDiscovery {
  private LegacyDiscovery() {
  }

  /**
   * @param core          zero or one core group
   * @param serverAddress {@code host:port} for {@code serverAddressByClientCIDRs} (CIDR {@code 0.0.0.0/0})
   * @return {@code {"kind":"APIVersions","versions":[...],"serverAddressByClientCIDRs":[...]}}
   */
  public static JsonObject apiVersions(List<DiscoveryGroup> core, String serverAddress) {
    JsonArray versions = new JsonArray();
    for (DiscoveryGroup g : core) {
      current(g).forEach(v -> versions.add(v.version()));
    }
    return new JsonObject().put("kind", "APIVersions").put("versions", versions)
        .put("serverAddressByClientCIDRs", new JsonArray().add(new JsonObject()
            .put("clientCIDR", "0.0.0.0/0").put("serverAddress", serverAddress)));
  }

  /**
   * @param groups non-core groups in emitted order
   * @return {@code {"kind":"APIGroupList","apiVersion":"v1","groups":[APIGroup without kind...]}}
   */
  public static JsonObject apiGroupList(List<DiscoveryGroup> groups) {
    JsonArray out = new JsonArray();
    for (DiscoveryGroup g : groups) {
      JsonObject entry = groupBody(g);
      if (entry != null) {
        out.add(entry);
      }
    }
    return new JsonObject().put("kind", "APIGroupList").put("apiVersion", "v1").put("groups", out);
  }

  /**
   * @param group a non-core group
   * @return the {@code APIGroup} document, or null when the group has no non-Stale version
   */
  public static JsonObject apiGroup(DiscoveryGroup group) {
    JsonObject body = groupBody(group);
    return body == null ? null : new JsonObject().put("kind", "APIGroup").put("apiVersion", "v1")
        .mergeIn(body);
  }

  private static JsonObject groupBody(DiscoveryGroup g) {
    List<DiscoveryVersion> current = current(g);
    if (current.isEmpty()) {
      return null;
    }
    JsonArray versions = new JsonArray();
    current.forEach(v -> versions.add(gvEntry(g.name(), v.version())));
    return new JsonObject().put("name", g.name()).put("versions", versions)
        .put("preferredVersion", gvEntry(g.name(), current.get(0).version()));
  }

  private static JsonObject gvEntry(String group, String version) {
    return new JsonObject().put("groupVersion", new GroupVersion(group, version).apiVersion())
        .put("version", version);
  }

  /**
   * @param gv      the group-version listed
   * @param version its discovery version (resources in emitted order)
   * @return the {@code APIResourceList}: each resource then its subresources as {@code plural/sub} entries
   */
  public static JsonObject apiResourceList(GroupVersion gv, DiscoveryVersion version) {
    JsonArray resources = new JsonArray();
    for (DiscoveryResource r : version.resources()) {
      JsonObject e = new JsonObject().put("name", r.resource())
          .put("singularName", r.singularResource() == null ? "" : r.singularResource())
          .put("namespaced", r.namespaced());
      putKind(e, gv, r.responseKind());
      e.put("verbs", new JsonArray(new ArrayList<>(r.verbs())));
      if (!r.shortNames().isEmpty()) {
        e.put("shortNames", new JsonArray(new ArrayList<>(r.shortNames())));
      }
      if (!r.categories().isEmpty()) {
        e.put("categories", new JsonArray(new ArrayList<>(r.categories())));
      }
      if (r.storageVersionHash() != null && !r.storageVersionHash().isEmpty()) {
        e.put("storageVersionHash", r.storageVersionHash());
      }
      resources.add(e);
      for (DiscoverySubresource s : r.subresources()) {
        JsonObject se = new JsonObject().put("name", r.resource() + "/" + s.subresource())
            .put("singularName", "").put("namespaced", r.namespaced());
        putKind(se, gv, s.responseKind());
        resources.add(se.put("verbs", new JsonArray(new ArrayList<>(s.verbs()))));
      }
    }
    return new JsonObject().put("kind", "APIResourceList").put("apiVersion", "v1")
        .put("groupVersion", gv.apiVersion()).put("resources", resources);
  }

  private static void putKind(JsonObject entry, GroupVersion gv, ResponseKind kind) {
    if (!kind.group().equals(gv.group()) || !kind.version().equals(gv.version())) {
      entry.put("group", kind.group()).put("version", kind.version());
    }
    entry.put("kind", kind.kind());
  }

  /**
   * @param group a group
   * @return its non-Stale versions, order kept (the first is the preferred version)
   */
  public static List<DiscoveryVersion> current(DiscoveryGroup group) {
    return group.versions().stream().filter(v -> v.freshness() != Freshness.Stale).toList();
  }
}
