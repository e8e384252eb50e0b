package io.mvproxy.node.plugin;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.testkit.CodePluginJar;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real jars over each plugin bound (a manifest over the size limit, a YAML alias bomb, a provider that never
 * returns) are FAILED with the reason, and a valid jar dropped right after them becomes ACTIVE: the loader is never
 * wedged.
 */
@Tag("fleet")
class PluginLimitsTest {
  static final Duration BUDGET = Duration.ofSeconds(3);
  @TempDir
  Path tmp;
  WatchedPluginDir plugins;
  Path dir;

  @BeforeEach
  void start() throws Exception {
    PluginLimits limits = new PluginLimits(PluginLimits.DEFAULTS.maxJarBytes(), PluginLimits.DEFAULTS.maxManifestBytes(),
        PluginLimits.DEFAULTS.maxManifestsBytes(), PluginLimits.DEFAULTS.maxAliases(),
        PluginLimits.DEFAULTS.maxValues(), BUDGET);
    plugins = new WatchedPluginDir(tmp, limits);
    dir = plugins.dir;
  }

  @AfterEach
  void stop() throws Exception {
    plugins.close();
  }

  /** A jar whose single manifest entry is {@code bytes} long (compresses to a few KiB). */
  static Path hugeManifestJar(Path out, long bytes) throws Exception {
    byte[] line = "# padding padding padding padding padding padding padding padding padding\n"
        .getBytes(StandardCharsets.UTF_8);
    try (OutputStream os = Files.newOutputStream(out); JarOutputStream jar = new JarOutputStream(os)) {
      jar.putNextEntry(new JarEntry("manifests/huge.yaml"));
      for (long n = 0; n < bytes; n += line.length) {
        jar.write(line);
      }
      jar.closeEntry();
    }
    return out;
  }

  /** The classic "billion laughs": 9 levels of 9 aliases each. */
  static String aliasBomb() {
    StringBuilder b = new StringBuilder("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    char prev = 'a';
    for (char c = 'b'; c <= 'i'; c++) {
      b.append(c).append(": &").append(c).append(" [");
      for (int i = 0; i < 9; i++) {
        b.append(i == 0 ? "" : ",").append('*').append(prev);
      }
      b.append("]\n");
      prev = c;
    }
    return b.toString();
  }

  @Test
  void jarsOverABoundFailAndTheNextJarLoads() throws Exception {
    Path work = Files.createDirectories(tmp.resolve("work"));
    hugeManifestJar(work.resolve("a-huge.jar"), PluginLimits.DEFAULTS.maxManifestBytes() + 4096);
    CodePluginJar.rawManifestJar(work.resolve("b-bomb.jar"), aliasBomb());
    Map<String, String> slow = new java.util.HashMap<>(CodePluginJar.greetingPlugin("demo.slow", "slow.example.com",
        false));
    slow.replaceAll((k, v) -> v.replace("if (false) { throw new IllegalStateException(\"greeting plugin refuses to "
        + "start\"); }", "try { Thread.sleep(600_000); } catch (InterruptedException e) { }"));
    CodePluginJar.build(work.resolve("c-slow.jar"), tmp.resolve("w-slow"), "demo.slow.GreetingProvider", slow);
    CodePluginJar.build(work.resolve("d-valid.jar"), tmp.resolve("w-valid"), "demo.ok.GreetingProvider",
        CodePluginJar.greetingPlugin("demo.ok", "ok.example.com", false));
    for (String j : List.of("a-huge.jar", "b-bomb.jar", "c-slow.jar", "d-valid.jar")) {
      Files.move(work.resolve(j), dir.resolve(j));
    }
    long t0 = System.nanoTime();
    Plugin valid = plugins.await("d-valid.jar", PluginState.ACTIVE, 30);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(ms < BUDGET.toMillis() + 15_000, "valid jar ACTIVE after " + ms + " ms");
    assertTrue(valid.sources().size() == 1);
    String huge = plugins.await("a-huge.jar", PluginState.FAILED, 5).error();
    assertTrue(huge.contains("more than the limit of " + PluginLimits.DEFAULTS.maxManifestBytes()), huge);
    String bomb = plugins.await("b-bomb.jar", PluginState.FAILED, 5).error();
    assertTrue(bomb.contains("Number of aliases for non-scalar nodes exceeds the specified max=50"), bomb);
    String slowError = plugins.await("c-slow.jar", PluginState.FAILED, 5).error();
    assertTrue(slowError.contains("not loaded within the load budget of 3 s"), slowError);
  }
}
