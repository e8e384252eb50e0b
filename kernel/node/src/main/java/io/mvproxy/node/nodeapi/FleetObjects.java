package io.mvproxy.node.nodeapi;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.Gvr;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.mvproxy.node.fleet.FleetView;
import io.mvproxy.node.membership.PeerInfo;
import io.mvproxy.node.plugin.Plugin;
import io.mvproxy.node.routing.Capabilities;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * Builds the {@code mvproxy.io/v1alpha1} Plugin and APIServerNode objects from the node's plugin registry and fleet
 * view (nothing stored: always the current state).
 */
public final class FleetObjects {
  private final String serverId;
  private final String version;
  private final String address;
  private final Supplier<List<Plugin>> plugins;
  private final Supplier<FleetView> view;

  /**
   * @param serverId this node's server ID
   * @param version  mvproxy version
   * @param address  this node's peer address {@code host:port}
   * @param plugins  the node's plugins
   * @param view     the fleet view
   */
  public FleetObjects(String serverId, String version, String address, Supplier<List<Plugin>> plugins,
                      Supplier<FleetView> view) {
    this.serverId = serverId;
    this.version = version;
    this.address = address;
    this.plugins = plugins;
    this.view = view;
  }

  /**
   * @param p a plugin
   * @return its summary {@code <jar name>@version:STATE} as published to peers (the jar name is also the name of
   *     its Plugin object)
   */
  public static String summary(Plugin p) {
    return p.fileName().replaceFirst("\\.jar$", "") + (p.version().isEmpty() ? "" : "@" + p.version()) + ":"
        + p.state();
  }

  /** @return this node's plugins as summaries */
  public List<String> pluginSummaries() {
    return plugins.get().stream().map(FleetObjects::summary).toList();
  }

  /** @return Plugin objects, one per jar of this node's plugin folder */
  public List<JsonObject> plugins() {
    List<JsonObject> out = new ArrayList<>();
    for (Plugin p : plugins.get()) {
      Set<String> gvs = new TreeSet<>();
      JsonArray sources = new JsonArray();
      for (ApiSource s : p.sources()) {
        JsonObject st = s.status();
        sources.add(st == null ? new JsonObject().put("name", s.name())
            : new JsonObject().put("name", s.name()).put("status", st));
        for (ServedGroupVersion gv : s.groupVersions()) {
          gvs.add(gv.groupVersion().apiVersion());
        }
      }
      JsonObject status = new JsonObject().put("state", p.state().name()).put("apiSources", sources)
          .put("groupVersions", new JsonArray(new ArrayList<>(gvs)));
      if (p.error() != null) {
        status.put("error", p.error());
      }
      out.add(object("Plugin", p.fileName().replaceFirst("\\.jar$", ""), new JsonObject().put("serverId", serverId)
          .put("pluginName", p.name()).put("version", p.version()).put("jar", p.jar().toString()), status));
    }
    return out;
  }

  /** @return APIServerNode objects: this node, every live peer, and departed peers still remembered */
  public List<JsonObject> nodes() {
    FleetView v = view.get();
    List<JsonObject> out = new ArrayList<>();
    out.add(node(serverId, version, address, v.routing().ready() ? "Ready" : "Loading", pluginSummaries(),
        v.routing().localCaps()));
    for (PeerInfo p : v.members().values()) {
      var entry = v.routing().peers().get(p.serverId());
      Capabilities caps = entry == null ? Capabilities.NONE : entry.caps();
      out.add(node(p.serverId(), p.version(), p.host() + ":" + p.port(),
          entry != null && entry.loaded() ? "Ready" : "Loading", p.plugins(), caps));
    }
    v.routing().departed().forEach((id, caps) -> {
      if (!v.members().containsKey(id)) {
        out.add(node(id, "", "", "Departed", List.of(), caps));
      }
    });
    out.sort((a, b) -> a.getJsonObject("metadata").getString("name")
        .compareTo(b.getJsonObject("metadata").getString("name")));
    return out;
  }

  private static JsonObject node(String id, String version, String address, String state, List<String> plugins,
                                 Capabilities caps) {
    Set<String> gvs = new TreeSet<>();
    for (Gvr g : caps.resources().keySet()) {
      gvs.add(new GroupVersion(g.group(), g.version()).apiVersion());
    }
    return object("APIServerNode", id, new JsonObject().put("serverId", id).put("version", version)
        .put("address", address), new JsonObject().put("state", state).put("plugins", new JsonArray(plugins))
        .put("groupVersions", new JsonArray(new ArrayList<>(gvs))));
  }

  private static JsonObject object(String kind, String name, JsonObject spec, JsonObject status) {
    return new JsonObject().put("apiVersion", NodeApiSource.GV.apiVersion()).put("kind", kind)
        .put("metadata", new JsonObject().put("name", name)).put("spec", spec).put("status", status);
  }
}
