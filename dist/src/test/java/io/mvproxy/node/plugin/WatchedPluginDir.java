package io.mvproxy.node.plugin;

import io.mvproxy.node.fleet.FleetTest;
import io.mvproxy.testkit.TestSourceContext;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link PluginVerticle} watching {@code <tmp>/plugins} on its own Vert.x, with a registry to read the loaded
 * plugins from (no storage; server ID {@code test}): what the plugin tests drop real jars into.
 */
final class WatchedPluginDir implements AutoCloseable {
  final Vertx vertx = Vertx.vertx();
  final PluginRegistry registry = new PluginRegistry();
  final Path dir;

  /**
   * Deploys the verticle (waits up to 20 s).
   *
   * @param tmp    scratch folder: jars go to {@code tmp/plugins}, the loader's private copies to {@code tmp/private}
   * @param limits the loader's bounds
   */
  WatchedPluginDir(Path tmp, PluginLimits limits) throws Exception {
    dir = tmp.resolve("plugins");
    vertx.deployVerticle(new PluginVerticle(dir, new PluginLoader(tmp.resolve("private"), List.of(), limits),
        new TestSourceContext(vertx, null, "test"), registry)).toCompletionStage().toCompletableFuture()
        .get(20, TimeUnit.SECONDS);
  }

  /**
   * Polls the registry ({@link FleetTest#await}).
   *
   * @param file    the jar's file name
   * @param state   the state to wait for
   * @param seconds how long to wait
   * @return the plugin once {@code file} is in {@code state}
   * @throws AssertionError with the registry's plugins when it never is
   */
  Plugin await(String file, PluginState state, int seconds) {
    AtomicReference<Plugin> found = new AtomicReference<>();
    try {
      FleetTest.await(file + " " + state, seconds * 1000L, () -> {
        registry.plugins().stream().filter(p -> p.fileName().equals(file) && p.state() == state).findFirst()
            .ifPresent(found::set);
        return found.get() != null;
      });
    } catch (AssertionError timedOut) {
      throw new AssertionError(file + " never became " + state + ": " + registry.plugins(), timedOut);
    }
    return found.get();
  }

  /** Closes the Vert.x instance (waits up to 10 s). */
  @Override
  public void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
