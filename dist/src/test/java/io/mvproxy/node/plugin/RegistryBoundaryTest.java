package io.mvproxy.node.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.node.fleet.TestData;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The boundary between the registry's public API ({@code io.mvproxy.registry}) and its internals
 * ({@code io.mvproxy.registry.impl}): no plugin source under {@code plugins/} names the internals, except the two
 * plugins that are part of the node itself and listed in {@link #INTERNAL} with the reason; the clock plugin's
 * classes do not refer to them either, while they do use the public API.
 */
@Tag("unit")
class RegistryBoundaryTest {
  static final String IMPL = "io.mvproxy.registry.impl";

  /**
   * Plugins shipped on the node's class path (dist) that implement the registry's own kinds with its internals,
   * and why; every other plugin (examples, aggregated-api-source, any code plugin) uses the public API only.
   */
  static final Map<String, String> INTERNAL = Map.of(
      "plugins/builtin-apis", "the built-in kinds need the full internal strategy (ObjectStrategy: admission, "
          + "subresources, strategic merge patch metadata, table cells, storage shape) and the CRD, webhook and "
          + "policy validators, as kube-apiserver's own pkg/registry does",
      "plugins/crd-source", "the CRD manifest factory builds CrdApiSource from parsed CRDs (CrdParser, Kinds, "
          + "CrdDiscovery), as apiextensions-apiserver's customresource handler does");

  @Test
  void noPluginSourceOutsideTheNodeNamesTheInternals() throws IOException {
    Path plugins = TestData.repoRoot().resolve("plugins");
    Map<String, List<String>> offenders = new TreeMap<>();
    List<Path> scanned = new ArrayList<>();
    try (Stream<Path> files = Files.walk(plugins)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java") && !p.toString().contains("/target/")).toList()) {
        String module = module(plugins, f);
        if (INTERNAL.containsKey(module)) {
          continue;
        }
        scanned.add(f);
        List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
          if (lines.get(i).contains(IMPL)) {
            offenders.computeIfAbsent(plugins.getParent().relativize(f).toString(), k -> new ArrayList<>())
                .add((i + 1) + ": " + lines.get(i).trim());
          }
        }
      }
    }
    assertTrue(scanned.stream().anyMatch(p -> p.endsWith("Alarms.java")), "the clock plugin was scanned");
    assertEquals(Map.of(), offenders, "plugins naming " + IMPL + " (use io.mvproxy.registry, or list the module in "
        + "INTERNAL with the reason)");
  }

  @Test
  void theClockPluginsClassesUseOnlyThePublicApi() throws IOException {
    Path classes = TestData.example("clock-plugin").resolve("target/classes");
    List<byte[]> bytes = new ArrayList<>();
    if (Files.isDirectory(classes)) {
      try (Stream<Path> files = Files.walk(classes)) {
        for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
          bytes.add(Files.readAllBytes(f));
        }
      }
    } else {
      try (JarFile jar = new JarFile(io.mvproxy.node.fleet.TestData.example("clock-plugin")
          .resolve("target/mvproxy-clock-plugin.jar").toFile())) {
        for (Enumeration<JarEntry> en = jar.entries(); en.hasMoreElements(); ) {
          JarEntry e = en.nextElement();
          if (e.getName().endsWith(".class")) {
            try (InputStream in = jar.getInputStream(e)) {
              bytes.add(in.readAllBytes());
            }
          }
        }
      }
    }
    assertTrue(!bytes.isEmpty(), "the clock plugin is built");
    boolean usesPublic = false;
    for (byte[] b : bytes) {
      String s = new String(b, StandardCharsets.ISO_8859_1);
      assertTrue(!s.contains("io/mvproxy/registry/impl/"), "a clock plugin class refers to the registry's internals");
      usesPublic |= s.contains("io/mvproxy/registry/Registry");
    }
    assertTrue(usesPublic, "the clock plugin uses io.mvproxy.registry.Registry");
  }

  private static String module(Path plugins, Path file) {
    Path rel = plugins.relativize(file);
    // plugins/<module>/src/... or plugins/examples/<module>/src/...
    return "examples".equals(rel.getName(0).toString())
        ? "plugins/examples/" + rel.getName(1) : "plugins/" + rel.getName(0);
  }
}
