package io.mvproxy.node.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.testkit.CodePluginJar;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real code-plugin jars against the registry's boundary: a plugin that declares its kind through the public API
 * ({@code io.mvproxy.registry.Registry}) is ACTIVE with the registry's source, and a plugin that calls the
 * internals ({@code io.mvproxy.registry.impl}) is FAILED naming the refused class, while the node keeps loading.
 */
@Tag("fleet")
class PluginRegistryApiTest {
  @TempDir
  Path tmp;
  WatchedPluginDir plugins;

  @BeforeEach
  void start() throws Exception {
    plugins = new WatchedPluginDir(tmp, PluginLimits.DEFAULTS);
  }

  @AfterEach
  void stop() throws Exception {
    plugins.close();
  }

  static Map<String, String> provider(String pkg, String body) {
    return Map.of(pkg + "/P.java", """
        package %s;

        import io.mvproxy.api.ApiSource;
        import io.mvproxy.api.ApiSourceContext;
        import io.mvproxy.api.ApiSourceProvider;
        import io.vertx.core.json.JsonObject;
        import java.util.List;

        public final class P implements ApiSourceProvider {
          @Override
          public List<ApiSource> create(ApiSourceContext context) {
            %s
          }
        }
        """.formatted(pkg, body));
  }

  @Test
  void publicApiLoadsAndInternalsAreRefused() throws Exception {
    Path work = Files.createDirectories(tmp.resolve("work"));
    CodePluginJar.build(work.resolve("internal.jar"), tmp.resolve("w-internal"), "demo.internal.P",
        provider("demo.internal", "return List.of(io.mvproxy.registry.impl.CodeKinds.serve("
            + "io.mvproxy.registry.KindDefinition.builder(\"a.example.com\", \"v1\", \"A\", \"as\")"
            + ".schema(new JsonObject().put(\"type\", \"object\")).build().toCustomResourceDefinition(), null, context));"));
    CodePluginJar.build(work.resolve("public.jar"), tmp.resolve("w-public"), "demo.pub.P",
        provider("demo.pub", "return List.of(io.mvproxy.registry.Registry.serve("
            + "io.mvproxy.registry.KindDefinition.builder(\"gauges.example.com\", \"v1\", \"Gauge\", \"gauges\")"
            + ".schema(new JsonObject().put(\"type\", \"object\")).build(), io.mvproxy.registry.KindStrategy.NONE, "
            + "context));"));
    Files.move(work.resolve("internal.jar"), plugins.dir.resolve("internal.jar"));
    Files.move(work.resolve("public.jar"), plugins.dir.resolve("public.jar"));
    Plugin pub = plugins.await("public.jar", PluginState.ACTIVE, 30);
    assertEquals(1, pub.sources().size());
    assertEquals("kind/gauges.gauges.example.com", pub.sources().get(0).name());
    String error = plugins.await("internal.jar", PluginState.FAILED, 30).error();
    assertTrue(error.contains("io.mvproxy.registry.impl.CodeKinds is internal to the node's registry: plugins use "
        + "io.mvproxy.registry"), error);
  }
}
