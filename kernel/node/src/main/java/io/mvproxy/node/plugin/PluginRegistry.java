package io.mvproxy.node.plugin;

import io.mvproxy.api.ApiSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The node's plugins, by jar file name, as an immutable snapshot: written only by {@link PluginVerticle}, read
 * lock-free by discovery, health checks and the plugin API. Besides the current plugins it holds the draining ones
 * (state {@link PluginState#UNLOADED}): removed or replaced, no longer published in this node's discovery, but still
 * serving until every live peer has stopped routing to this node for them (make before break).
 */
public final class PluginRegistry {
  private volatile Map<String, Plugin> byFile = Map.of();
  private volatile List<Plugin> draining = List.of();
  private volatile boolean loaded;

  /**
   * @return every plugin (ACTIVE and FAILED) in file-name order, then the draining ones (UNLOADED) whose file no
   *         current plugin has
   */
  public List<Plugin> plugins() {
    Map<String, Plugin> current = byFile;
    List<Plugin> out = new ArrayList<>(new TreeMap<>(current).values());
    draining.stream().filter(p -> !current.containsKey(p.fileName())).forEach(out::add);
    return List.copyOf(out);
  }

  /**
   * @return the API sources to route to: those of the ACTIVE plugins ({@link #sources()}) first, then those of the
   *         draining ones (a source of a replaced jar serves only what its replacement does not)
   */
  public List<ApiSource> servingSources() {
    List<ApiSource> out = sources();
    draining.forEach(p -> out.addAll(p.sources()));
    return out;
  }

  /** @return the draining plugins (UNLOADED, still serving) */
  public List<Plugin> draining() {
    return draining;
  }

  void addDraining(Plugin p) {
    List<Plugin> next = new ArrayList<>(draining);
    next.add(p.withState(PluginState.UNLOADED));
    draining = List.copyOf(next);
  }

  void removeDraining(Plugin p) {
    List<Plugin> next = new ArrayList<>(draining);
    next.removeIf(d -> d.sources().equals(p.sources()) && d.jar().equals(p.jar())
        && d.fingerprint().equals(p.fingerprint()));
    draining = List.copyOf(next);
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
