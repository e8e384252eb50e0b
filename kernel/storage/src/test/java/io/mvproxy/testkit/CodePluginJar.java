package io.mvproxy.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/** Builds real code-plugin jars in tests: compiles Java sources with the JDK compiler and jars them. */
public final class CodePluginJar {
  private CodePluginJar() {
  }

  /**
   * @param out      the jar to write
   * @param work     scratch folder
   * @param provider fully qualified provider class name (listed in META-INF/services)
   * @param sources  file path (e.g. {@code demo/P.java}) to Java source
   * @return {@code out}
   */
  public static Path build(Path out, Path work, String provider, java.util.Map<String, String> sources)
      throws IOException {
    Path classes = compile(work, sources);
    Path tmp = out.resolveSibling(out.getFileName() + ".tmp");
    try (OutputStream os = Files.newOutputStream(tmp); JarOutputStream jar = new JarOutputStream(os);
         Stream<Path> files = Files.walk(classes)) {
      jar.putNextEntry(new JarEntry("META-INF/services/io.mvproxy.api.ApiSourceProvider"));
      jar.write((provider + "\n").getBytes(StandardCharsets.UTF_8));
      jar.closeEntry();
      for (Path p : files.filter(Files::isRegularFile).toList()) {
        jar.putNextEntry(new JarEntry(classes.relativize(p).toString().replace('\\', '/')));
        jar.write(Files.readAllBytes(p));
        jar.closeEntry();
      }
    }
    Files.move(tmp, out, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    return out;
  }

  /**
   * Compiles Java sources against this JVM's class path (Java 17) with the JDK compiler.
   *
   * @param work    scratch folder: sources go to {@code work/src}, classes to {@code work/classes}
   * @param sources file path (e.g. {@code demo/P.java}) to Java source
   * @return the classes folder
   * @throws IllegalStateException when the sources do not compile (javac's messages on stderr)
   */
  public static Path compile(Path work, java.util.Map<String, String> sources) throws IOException {
    Path src = Files.createDirectories(work.resolve("src"));
    Path classes = Files.createDirectories(work.resolve("classes"));
    List<String> args = new java.util.ArrayList<>(List.of("-d", classes.toString(), "-cp",
        System.getProperty("java.class.path"), "--release", "17"));
    for (var e : sources.entrySet()) {
      Path f = src.resolve(e.getKey());
      Files.createDirectories(f.getParent());
      Files.writeString(f, e.getValue());
      args.add(f.toString());
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    if (javac.run(null, null, System.err, args.toArray(String[]::new)) != 0) {
      throw new IllegalStateException("plugin sources do not compile");
    }
    return classes;
  }

  /**
   * Writes a manifest jar by hand, bypassing {@code plugin pack}'s validation (to test what a node does with a jar
   * built by other tools).
   *
   * @param out      the jar
   * @param manifest the YAML put under {@code manifests/crd.yaml}
   * @return {@code out}
   */
  public static Path rawManifestJar(Path out, String manifest) throws IOException {
    try (OutputStream os = Files.newOutputStream(out); JarOutputStream jar = new JarOutputStream(os)) {
      jar.putNextEntry(new JarEntry("manifests/crd.yaml"));
      jar.write(manifest.getBytes(StandardCharsets.UTF_8));
      jar.closeEntry();
    }
    return out;
  }

  /**
   * A provider whose single source serves {@code greetings.<group>/v1} with one fixed object, or whose constructor
   * throws when {@code failInConstructor}.
   */
  public static java.util.Map<String, String> greetingPlugin(String pkg, String group, boolean failInConstructor) {
    String p = pkg.replace('.', '/');
    return java.util.Map.of(p + "/GreetingProvider.java", """
        package %1$s;
        import io.mvproxy.api.*;
        import io.mvproxy.api.discovery.*;
        import io.vertx.core.json.JsonObject;
        import io.vertx.ext.web.RoutingContext;
        import java.util.List;
        public class GreetingProvider implements ApiSourceProvider {
          public GreetingProvider() {
            if (%3$s) { throw new IllegalStateException("greeting plugin refuses to start"); }
          }
          public List<ApiSource> create(ApiSourceContext ctx) {
            return List.of(new ApiSource() {
              public String name() { return "code/greetings.%2$s"; }
              public List<ServedGroupVersion> groupVersions() {
                ResponseKind k = new ResponseKind("%2$s", "v1", "Greeting");
                return List.of(new ServedGroupVersion(new GroupVersion("%2$s", "v1"), 1000, 100,
                    List.of(new DiscoveryResource("greetings", "greeting", k, false, List.of("get", "list"),
                        List.of(), List.of(), List.of(), null)), Freshness.Current));
              }
              public void handle(RoutingContext rc, RequestInfo info, UserInfo user) {
                rc.response().putHeader("Content-Type", "application/json").end(new JsonObject()
                    .put("apiVersion", "%2$s/v1").put("kind", "Greeting")
                    .put("metadata", new JsonObject().put("name", "hello"))
                    .put("message", "hello " + user.name()).encode());
              }
            });
          }
        }
        """.formatted(pkg, group, failInConstructor));
  }
}
