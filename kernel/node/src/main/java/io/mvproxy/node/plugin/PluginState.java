package io.mvproxy.node.plugin;

/** Life-cycle of a plugin jar (architecture.md "Plugins"; pf4j's PluginState). */
public enum PluginState {
  /** Read and validated, not serving yet. */
  LOADED,
  /** Its API sources are serving. */
  ACTIVE,
  /** It could not be loaded; {@link Plugin#error()} says why. Nothing else is affected. */
  FAILED,
  /**
   * Removed or replaced: withdrawn from this node's discovery but still serving while it drains, until every live
   * peer stopped routing to this node for it ({@link PluginRegistry#draining()}; README "Plugins", make before break).
   */
  UNLOADED
}
