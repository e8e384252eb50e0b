package io.mvproxy.example.clock;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.ApiSourceContext;
import io.mvproxy.api.ApiSourceProvider;
import java.util.List;

/**
 * Entry point of the example code plugin, declared in {@code META-INF/services/io.mvproxy.api.ApiSourceProvider}:
 * the node creates it in the jar's own class loader and serves the returned sources: the computed clocks
 * ({@link ClockSource}, an {@link ApiSource} written by hand) and the stored alarms ({@link Alarms}, a kind served by
 * the node's registry through its public API).
 */
public final class ClockProvider implements ApiSourceProvider {
  /** Public no-argument constructor, as {@link java.util.ServiceLoader} requires. */
  public ClockProvider() {
  }

  @Override
  public List<ApiSource> create(ApiSourceContext context) {
    return List.of(new ClockSource(), Alarms.source(context));
  }
}
