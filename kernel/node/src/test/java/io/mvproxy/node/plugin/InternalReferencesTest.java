package io.mvproxy.node.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.testkit.CodePluginJar;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A code plugin naming {@code io.mvproxy.registry.impl} only inside a hook that runs at request time (breakit: such a
 * jar was ACTIVE, then every create answered {@code 500 Internal error occurred:
 * io/mvproxy/registry/impl/YamlDocuments$Limits}) is FAILED at load, naming the internal class and the plugin class.
 */
@Tag("unit")
class InternalReferencesTest {
  private static final String LAZY = """
      package demo.lazy;
      import io.mvproxy.api.ApiSource;
      import io.mvproxy.api.ApiSourceContext;
      import io.mvproxy.api.ApiSourceProvider;
      import java.util.List;
      public final class P implements ApiSourceProvider {
        public List<ApiSource> create(ApiSourceContext context) {
          Runnable later = () -> io.mvproxy.registry.impl.YamlDocuments.read("a: 1",
              io.mvproxy.registry.impl.YamlDocuments.Limits.REQUEST);
          throw new IllegalStateException("created: the check did not run first");
        }
      }
      """;
  private static final String REFLECTIVE = """
      package demo.lazy;
      public final class R {
        public static Object load() throws Exception {
          return Class.forName("io.mvproxy.registry.impl.CodeKinds");
        }
      }
      """;
  private static final String CLEAN = """
      package demo.lazy;
      public final class C {
        public static String name() {
          return io.mvproxy.registry.Registry.class.getName();
        }
      }
      """;

  @Test
  void aReferenceInAHookFailsThePluginAtLoad(@TempDir Path dir) throws Exception {
    Path jar = jar(dir, Map.of("demo/lazy/P.java", LAZY));
    Plugin p = new PluginLoader(dir.resolve("private"), List.of()).load(jar, PluginLoader.fingerprint(jar), null);
    assertEquals(PluginState.FAILED, p.state(), String.valueOf(p.error()));
    assertTrue(p.error().startsWith("io.mvproxy.registry.impl.YamlDocuments"), p.error());
    assertTrue(p.error().contains(" is internal to the node's registry: plugins use io.mvproxy.registry (referred to"
        + " by demo.lazy.P"), p.error());
  }

  @Test
  void findsClassNameStringsAndPassesThePublicApi(@TempDir Path dir) throws Exception {
    Path classes = compile(dir, Map.of("demo/lazy/R.java", REFLECTIVE, "demo/lazy/C.java", CLEAN));
    assertEquals("io.mvproxy.registry.impl.CodeKinds",
        InternalReferences.referenced(Files.readAllBytes(classes.resolve("demo/lazy/R.class"))));
    assertNull(InternalReferences.referenced(Files.readAllBytes(classes.resolve("demo/lazy/C.class"))));
  }

  private static Path compile(Path dir, Map<String, String> sources) throws Exception {
    return CodePluginJar.compile(dir, sources);
  }

  private static Path jar(Path dir, Map<String, String> sources) throws Exception {
    return CodePluginJar.build(dir.resolve("lazy.jar"), dir, "demo.lazy.P", sources);
  }
}
