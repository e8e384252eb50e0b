package io.mvproxy.node.plugin;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A code plugin's class loader shares the plugin API and the registry's public API, and refuses its internals. */
@Tag("unit")
class PluginClassLoaderTest {
  @Test
  void sharesThePublicApiAndRefusesTheRegistryInternals(@TempDir Path dir) throws Exception {
    Path jar = dir.resolve("empty.jar");
    try (OutputStream os = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(os)) {
      j.flush();
    }
    try (PluginClassLoader cl = new PluginClassLoader(jar.toUri().toURL(), getClass().getClassLoader())) {
      assertSame(io.mvproxy.registry.Registry.class, cl.loadClass("io.mvproxy.registry.Registry"));
      assertSame(io.mvproxy.registry.KindStrategy.class, cl.loadClass("io.mvproxy.registry.KindStrategy"));
      assertSame(io.mvproxy.api.ApiSource.class, cl.loadClass("io.mvproxy.api.ApiSource"));
      ClassNotFoundException e = assertThrows(ClassNotFoundException.class,
          () -> cl.loadClass("io.mvproxy.registry.impl.CodeKinds"));
      assertTrue(e.getMessage().contains("plugins use io.mvproxy.registry"), e.getMessage());
      // the public API itself still reaches its implementation through the node's own class loader
      assertSame(getClass().getClassLoader().loadClass("io.mvproxy.registry.impl.CodeKinds"),
          io.mvproxy.registry.impl.CodeKinds.class);
    }
  }
}
