package io.mvproxy.node.plugin;

import io.mvproxy.api.ApiSource;
import java.nio.file.Path;
import java.util.List;

/**
 * One plugin jar of a node and what became of it.
 *
 * @param name        plugin name ({@code META-INF/mvproxy/plugin.json} "name", else the jar file name)
 * @param version     plugin version ({@code plugin.json} "version", else {@code ""})
 * @param jar         the jar in the plugin folder
 * @param fingerprint size and modification time of the jar when it was read (detects replacement)
 * @param state       its state
 * @param error       why it FAILED, else null
 * @param sources     the API sources it contributes (empty unless ACTIVE)
 * @param classLoader the code plugin's class loader, or null for manifest-only jars
 */
public record Plugin(String name, String version, Path jar, String fingerprint, PluginState state, String error,
                     List<ApiSource> sources, PluginClassLoader classLoader) {
  /** Copies the list. */
  public Plugin {
    sources = List.copyOf(sources);
  }

  /** @param why the failure @return this plugin, FAILED, with no sources */
  public Plugin failed(String why) {
    return new Plugin(name, version, jar, fingerprint, PluginState.FAILED, why, List.of(), null);
  }

  /** @param s the new state @return this plugin in state {@code s} */
  public Plugin withState(PluginState s) {
    return new Plugin(name, version, jar, fingerprint, s, error, sources, classLoader);
  }

  /** @return the jar's file name, the plugin's key in its folder */
  public String fileName() {
    return jar.getFileName().toString();
  }
}
