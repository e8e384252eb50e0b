package io.mvproxy.api;

import java.util.List;

/**
 * A code plugin: a jar that implements its APIs in Java declares an implementation of this interface in its own
 * {@code META-INF/services/io.mvproxy.api.ApiSourceProvider}. The node loads the jar in its own class loader
 * (parent-first only for {@code java.*}, Vert.x and {@code io.mvproxy.api}) and calls {@link #create} once per load;
 * the sources are closed when the jar is removed or replaced. Implementations need a public no-argument constructor.
 */
public interface ApiSourceProvider {

  /**
   * @param context node services
   * @return the API sources of this plugin (non-empty)
   * @throws RuntimeException when the plugin cannot start; the plugin is then FAILED with that message
   */
  List<ApiSource> create(ApiSourceContext context);
}
