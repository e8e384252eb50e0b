package io.mvproxy.node.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.testkit.CodePluginJar;
import io.mvproxy.node.fleet.FleetTest;
import java.lang.ref.WeakReference;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A code plugin in its own class loader, hot-loaded from a real jar, served, then removed: its class loader must be
 * garbage-collected (nothing pins it: no caches, no listeners). Also: a provider whose constructor throws is FAILED.
 */
@Tag("fleet")
class PluginUnloadTest {
  @TempDir
  Path tmp;
  WatchedPluginDir plugins;
  PluginRegistry registry;
  Path dir;

  @BeforeEach
  void start() throws Exception {
    plugins = new WatchedPluginDir(tmp, PluginLimits.DEFAULTS);
    registry = plugins.registry;
    dir = plugins.dir;
  }

  @AfterEach
  void stop() throws Exception {
    plugins.close();
  }

  @Test
  void unloadedCodePluginIsGarbageCollected() throws Exception {
    Path jar = CodePluginJar.build(tmp.resolve("greetings.jar"), tmp.resolve("w1"), "demo.g1.GreetingProvider",
        CodePluginJar.greetingPlugin("demo.g1", "greet.example.com", false));
    Files.move(jar, dir.resolve("greetings.jar"));
    plugins.await("greetings.jar", PluginState.ACTIVE, 10);
    Plugin p = registry.plugins().get(0);
    assertEquals("greet.example.com", p.sources().get(0).groupVersions().get(0).groupVersion().group());
    assertNotNull(p.classLoader());
    WeakReference<ClassLoader> loader = new WeakReference<>(p.classLoader());
    assertTrue(p.sources().get(0).getClass().getClassLoader() == p.classLoader());
    p = null;
    Files.delete(dir.resolve("greetings.jar"));
    FleetTest.await("greetings.jar leaves the registry", 5_000,
        () -> registry.plugins().isEmpty());
    // the withdrawn plugin keeps serving while it drains (no peers here: at once), then its sources and class
    // loader are closed DRAIN_MS later; only then can the loader be collected
    FleetTest.await("the unloaded plugin's class loader is collected (still reachable after the drain of "
        + PluginVerticle.DRAIN_MS + " ms and 5 s more)", PluginVerticle.DRAIN_MS + 5_000, () -> {
          System.gc();
          return loader.get() == null;
        });
    assertNull(loader.get(), "the unloaded plugin's class loader is still reachable");
  }

  @Test
  void providerThatThrowsIsFailedAndCorruptJarToo() throws Exception {
    Path jar = CodePluginJar.build(tmp.resolve("bad.jar"), tmp.resolve("w2"), "demo.g2.GreetingProvider",
        CodePluginJar.greetingPlugin("demo.g2", "bad.example.com", true));
    Files.move(jar, dir.resolve("bad.jar"));
    Files.write(dir.resolve("corrupt.jar"), new byte[] {1, 2, 3, 4, 5});
    plugins.await("bad.jar", PluginState.FAILED, 10);
    plugins.await("corrupt.jar", PluginState.FAILED, 10);
    String error = registry.plugins().stream().filter(q -> q.fileName().equals("bad.jar")).findFirst().get().error();
    assertTrue(error.contains("greeting plugin refuses to start"), error);
    assertTrue(registry.sources().isEmpty());
  }
}
