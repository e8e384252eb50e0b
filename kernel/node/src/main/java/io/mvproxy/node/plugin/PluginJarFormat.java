package io.mvproxy.node.plugin;

/**
 * The plugin jar layout (documented in README.md "Plugin jar format"):
 * <pre>
 * META-INF/mvproxy/plugin.json   {"name": "widgets", "version": "2.0.0"}   (optional)
 * manifests/*.yaml|*.yml|*.json  CustomResourceDefinition / APIService manifests, multi-document YAML allowed
 * </pre>
 */
public final class PluginJarFormat {
  /** Entry holding the plugin's name and version. */
  public static final String DESCRIPTOR = "META-INF/mvproxy/plugin.json";
  /** Folder of manifests inside the jar. */
  public static final String MANIFESTS = "manifests/";

  private PluginJarFormat() {
  }

  /** @param entry a jar entry name @return true when it is a manifest the loader reads */
  public static boolean isManifest(String entry) {
    String e = entry.toLowerCase();
    return entry.startsWith(MANIFESTS) && (e.endsWith(".yaml") || e.endsWith(".yml") || e.endsWith(".json"));
  }
}
