package io.mvproxy.node.plugin;

import io.mvproxy.api.ApiSource;
import java.nio.file.Path;
import java.util.List;

/**
 * One plugin jar of a node and what became of it.
 *
 * @param name    plugin name ({@code META-INF/mvproxy/plugin.json} "name", else the jar file name)
 * @param version plugin version ({@code plugin.json} "version", else {@code ""})
 * @param jar     the jar in the plugin folder
 * @param state   its state
 * @param error   why it FAILED, else null
 * @param sources the API sources it contributes (empty unless ACTIVE)
 */
public record Plugin(String name, String version, Path jar, PluginState state, String error,
                     List<ApiSource> sources) {
  /** Copies the list. */
  public Plugin {
    sources = List.copyOf(sources);
  }

  /** @param why the failure @return this plugin, FAILED, with no sources */
  public Plugin failed(String why) {
    return new Plugin(name, version, jar, PluginState.FAILED, why, List.of());
  }
}
