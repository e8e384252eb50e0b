package io.mvproxy.node.plugin;

import io.mvproxy.api.ApiSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The node's plugins, by jar file name, as an immutable snapshot: written only by {@link PluginVerticle}, read
 * lock-free by discovery, health checks and the plugin API.
 */
public final class PluginRegistry {
  private volatile Map<String, Plugin> byFile = Map.of();
  private volatile boolean loaded;

  /** @return every plugin (ACTIVE and FAILED), in file-name order */
  public List<Plugin> plugins() {
    return List.copyOf(new TreeMap<>(byFile).values());
  }

  /** @return the API sources of the ACTIVE plugins, in file-name order */
  public List<ApiSource> sources() {
    List<ApiSource> out = new ArrayList<>();
    new TreeMap<>(byFile).values().stream().filter(p -> p.state() == PluginState.ACTIVE)
        .forEach(p -> out.addAll(p.sources()));
    return out;
  }

  /** @return true once the plugin folder has been scanned at least once */
  public boolean loaded() {
    return loaded;
  }

  void set(Map<String, Plugin> next) {
    byFile = Map.copyOf(next);
    loaded = true;
  }

  Map<String, Plugin> current() {
    return byFile;
  }
}
