package io.mvproxy.crd;

import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.DiscoverySubresource;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Minimal legacy discovery ({@code /api}, {@code /apis}, {@code /apis/<g>/<v>}) built from the sources'
 * {@link ServedGroupVersion}s, so real kubectl can find the test resources (kernel/discovery does this in the node).
 */
final class LegacyDiscoveryForTests {
  private LegacyDiscoveryForTests() {
  }

  /** @return the document for {@code path}, or null when it is not a discovery path */
  static JsonObject document(String path, List<? extends io.mvproxy.api.ApiSource> sources) {
    if ("/api".equals(path)) {
      return new JsonObject().put("kind", "APIVersions").put("versions", new JsonArray())
          .put("serverAddressByClientCIDRs", new JsonArray());
    }
    Map<String, Map<String, List<DiscoveryResource>>> groups = new LinkedHashMap<>();
    for (io.mvproxy.api.ApiSource s : sources) {
      for (ServedGroupVersion gv : s.groupVersions()) {
        groups.computeIfAbsent(gv.groupVersion().group(), g -> new LinkedHashMap<>())
            .computeIfAbsent(gv.groupVersion().version(), v -> new java.util.ArrayList<>()).addAll(gv.resources());
      }
    }
    if ("/apis".equals(path)) {
      JsonArray arr = new JsonArray();
      groups.forEach((g, vs) -> {
        JsonArray versions = new JsonArray();
        vs.keySet().forEach(v -> versions.add(new JsonObject().put("groupVersion", g + "/" + v).put("version", v)));
        arr.add(new JsonObject().put("name", g).put("versions", versions)
            .put("preferredVersion", versions.getJsonObject(0)));
      });
      return new JsonObject().put("kind", "APIGroupList").put("apiVersion", "v1").put("groups", arr);
    }
    for (Map.Entry<String, Map<String, List<DiscoveryResource>>> g : groups.entrySet()) {
      for (Map.Entry<String, List<DiscoveryResource>> v : g.getValue().entrySet()) {
        if (path.equals("/apis/" + g.getKey() + "/" + v.getKey())) {
          return resourceList(g.getKey(), v.getKey(), v.getValue());
        }
      }
    }
    return null;
  }

  private static JsonObject resourceList(String group, String version, List<DiscoveryResource> resources) {
    JsonArray rs = new JsonArray();
    for (DiscoveryResource r : resources) {
      rs.add(new JsonObject().put("name", r.resource()).put("singularName", r.singularResource())
          .put("namespaced", r.namespaced()).put("kind", r.responseKind().kind()).put("verbs", r.verbs())
          .put("shortNames", r.shortNames()).put("categories", r.categories())
          .put("storageVersionHash", r.storageVersionHash()));
      for (DiscoverySubresource sub : r.subresources()) {
        JsonObject o = new JsonObject().put("name", r.resource() + "/" + sub.subresource()).put("singularName", "")
            .put("namespaced", r.namespaced()).put("kind", sub.responseKind().kind()).put("verbs", sub.verbs());
        if (!sub.responseKind().group().equals(group)) {
          o.put("group", sub.responseKind().group()).put("version", sub.responseKind().version());
        }
        rs.add(o);
      }
    }
    return new JsonObject().put("kind", "APIResourceList").put("apiVersion", "v1")
        .put("groupVersion", group + "/" + version).put("resources", rs);
  }
}
