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
 * <p>Groups list every version the fleet serves or served, Stale ones (whose only servers departed) included, as
 * kube-aggregator's {@code handler_apis.go} lists an unavailable APIService: a client then asks
 * {@code /apis/<g>/<v>} and gets 503, which it reads as a discovery failure, never as the API being gone. The
 * preferred version is the first non-Stale one, or the first one when all are Stale. Subresources are separate {@code plural/sub} entries; an entry whose response kind lies in
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
   * @return the {@code APIGroup} document, or null when the group has no version
   */
  public static JsonObject apiGroup(DiscoveryGroup group) {
    JsonObject body = groupBody(group);
    return body == null ? null : new JsonObject().put("kind", "APIGroup").put("apiVersion", "v1")
        .mergeIn(body);
  }

  private static JsonObject groupBody(DiscoveryGroup g) {
    if (g.versions().isEmpty()) {
      return null;
    }
    JsonArray versions = new JsonArray();
    g.versions().forEach(v -> versions.add(gvEntry(g.name(), v.version())));
    return new JsonObject().put("name", g.name()).put("versions", versions)
        .put("preferredVersion", gvEntry(g.name(), preferred(g).version()));
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
   * @param group a group with at least one version
   * @return its first non-Stale version, else its first version (the legacy {@code preferredVersion})
   */
  public static DiscoveryVersion preferred(DiscoveryGroup group) {
    List<DiscoveryVersion> current = current(group);
    return current.isEmpty() ? group.versions().get(0) : current.get(0);
  }

  /**
   * @param group a group
   * @return its non-Stale versions, order kept (the first is the preferred version)
   */
  public static List<DiscoveryVersion> current(DiscoveryGroup group) {
    return group.versions().stream().filter(v -> v.freshness() != Freshness.Stale).toList();
  }
}
