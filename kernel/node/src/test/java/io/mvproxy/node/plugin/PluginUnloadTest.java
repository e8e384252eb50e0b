package io.mvproxy.node.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.ApiSourceContext;
import io.vertx.core.Vertx;
import java.lang.ref.WeakReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A code plugin in its own class loader, hot-loaded from a real jar, served, then removed: its class loader must be
 * garbage-collected (nothing pins it: no caches, no listeners). Also: a provider whose constructor throws is FAILED.
 */
class PluginUnloadTest {
  @TempDir
  Path tmp;
  Vertx vertx;
  PluginRegistry registry;
  Path dir;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    dir = tmp.resolve("plugins");
    registry = new PluginRegistry();
    ApiSourceContext ctx = new ApiSourceContext() {
      @Override
      public Vertx vertx() {
        return vertx;
      }

      @Override
      public io.mvproxy.api.storage.Storage storage() {
        return null;
      }


      @Override
      public String serverId() {
        return "test";
      }
    };
    vertx.deployVerticle(new PluginVerticle(dir, new PluginLoader(tmp.resolve("private"), List.of()), ctx, registry))
        .toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void unloadedCodePluginIsGarbageCollected() throws Exception {
    Path jar = CodePluginJar.build(tmp.resolve("greetings.jar"), tmp.resolve("w1"), "demo.g1.GreetingProvider",
        CodePluginJar.greetingPlugin("demo.g1", "greet.example.com", false));
    Files.move(jar, dir.resolve("greetings.jar"));
    awaitState("greetings.jar", PluginState.ACTIVE);
    Plugin p = registry.plugins().get(0);
    assertEquals("greet.example.com", p.sources().get(0).groupVersions().get(0).groupVersion().group());
    assertNotNull(p.classLoader());
    WeakReference<ClassLoader> loader = new WeakReference<>(p.classLoader());
    assertTrue(p.sources().get(0).getClass().getClassLoader() == p.classLoader());
    p = null;
    Files.delete(dir.resolve("greetings.jar"));
    long end = System.currentTimeMillis() + 5000;
    while (!registry.plugins().isEmpty() && System.currentTimeMillis() < end) {
      Thread.sleep(20);
    }
    assertTrue(registry.plugins().isEmpty());
    Thread.sleep(PluginVerticle.DRAIN_MS + 500);
    for (int i = 0; i < 50 && loader.get() != null; i++) {
      System.gc();
      Thread.sleep(100);
    }
    assertNull(loader.get(), "the unloaded plugin's class loader is still reachable");
  }

  @Test
  void providerThatThrowsIsFailedAndCorruptJarToo() throws Exception {
    Path jar = CodePluginJar.build(tmp.resolve("bad.jar"), tmp.resolve("w2"), "demo.g2.GreetingProvider",
        CodePluginJar.greetingPlugin("demo.g2", "bad.example.com", true));
    Files.move(jar, dir.resolve("bad.jar"));
    Files.write(dir.resolve("corrupt.jar"), new byte[] {1, 2, 3, 4, 5});
    awaitState("bad.jar", PluginState.FAILED);
    awaitState("corrupt.jar", PluginState.FAILED);
    String error = registry.plugins().stream().filter(q -> q.fileName().equals("bad.jar")).findFirst().get().error();
    assertTrue(error.contains("greeting plugin refuses to start"), error);
    assertTrue(registry.sources().isEmpty());
  }

  void awaitState(String file, PluginState state) throws Exception {
    long end = System.currentTimeMillis() + 10_000;
    while (System.currentTimeMillis() < end) {
      for (Plugin p : registry.plugins()) {
        if (p.fileName().equals(file) && p.state() == state) {
          return;
        }
      }
      Thread.sleep(20);
    }
    throw new AssertionError(file + " never became " + state + ": " + registry.plugins());
  }
}
