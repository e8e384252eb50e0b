package io.mvproxy.node.plugin;

/** Life-cycle of a plugin jar (architecture.md "Plugins"; pf4j's PluginState). */
public enum PluginState {
  /** Read and validated, not serving yet. */
  LOADED,
  /** Its API sources are serving. */
  ACTIVE,
  /** It could not be loaded; {@link Plugin#error()} says why. Nothing else is affected. */
  FAILED,
  /** Removed from the node. */
  UNLOADED
}
