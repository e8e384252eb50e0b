package io.mvproxy.aggregated;

import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.DiscoverySubresource;
import io.mvproxy.api.discovery.ResponseKind;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Converts a legacy {@code APIResourceList} ({@code GET /apis/<g>/<v>}) into discovery resources, as kube-aggregator's
 * {@code handler_discovery.go} does through {@code endpoints.ConvertGroupVersionIntoToDiscovery}: entries named
 * {@code plural/sub} become subresources of {@code plural}; an entry's {@code group}/{@code version}, when set, name its
 * response kind (e.g. {@code autoscaling/v1 Scale}). Stateless.
 */
public final class LegacyResources {
  private LegacyResources() {
  }

  /**
   * @param list the {@code APIResourceList} object
   * @param gv   the group-version it describes (default of each entry's response kind)
   * @return resources in list order, subresources attached to their parent (a subresource whose parent is absent is
   *     dropped, as upstream)
   * @throws IllegalArgumentException when the object is not an {@code APIResourceList}
   */
  public static List<DiscoveryResource> fromApiResourceList(JsonObject list, GroupVersion gv) {
    if (!(list.getValue("resources") instanceof JsonArray entries)) {
      throw new IllegalArgumentException("not an APIResourceList: no resources array");
    }
    Map<String, JsonObject> parents = new LinkedHashMap<>();
    Map<String, List<DiscoverySubresource>> subs = new LinkedHashMap<>();
    try {
      for (int i = 0; i < entries.size(); i++) {
        JsonObject e = entries.getJsonObject(i);
        String name = e.getString("name", "");
        int slash = name.indexOf('/');
        if (slash < 0) {
          parents.put(name, e);
        } else {
          subs.computeIfAbsent(name.substring(0, slash), k -> new ArrayList<>())
              .add(new DiscoverySubresource(name.substring(slash + 1), kind(e, gv), strings(e.getJsonArray("verbs"))));
        }
      }
    } catch (ClassCastException e) {
      throw new IllegalArgumentException("malformed APIResourceList: " + e.getMessage(), e);
    }
    List<DiscoveryResource> out = new ArrayList<>();
    for (Map.Entry<String, JsonObject> p : parents.entrySet()) {
      JsonObject e = p.getValue();
      out.add(new DiscoveryResource(p.getKey(), e.getString("singularName", ""), kind(e, gv),
          e.getBoolean("namespaced", false), strings(e.getJsonArray("verbs")), strings(e.getJsonArray("shortNames")),
          strings(e.getJsonArray("categories")), subs.getOrDefault(p.getKey(), List.of()),
          e.getString("storageVersionHash")));
    }
    return out;
  }

  private static ResponseKind kind(JsonObject e, GroupVersion gv) {
    String g = e.getString("group");
    String v = e.getString("version");
    return new ResponseKind(g == null || g.isEmpty() && v == null ? gv.group() : g,
        v == null || v.isEmpty() ? gv.version() : v, e.getString("kind", ""));
  }

  private static List<String> strings(JsonArray a) {
    List<String> out = new ArrayList<>();
    if (a != null) {
      for (int i = 0; i < a.size(); i++) {
        out.add(a.getString(i));
      }
    }
    return out;
  }
}
