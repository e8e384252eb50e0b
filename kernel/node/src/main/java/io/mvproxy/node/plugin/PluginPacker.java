package io.mvproxy.node.plugin;

import io.mvproxy.api.ApiSourceFactory;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * Builds a manifest-only plugin jar ({@link PluginJarFormat}): the descriptor plus each manifest file under
 * {@code manifests/}. Every document must parse, be of a kind some {@link ApiSourceFactory} supports, and pass
 * that factory's validation (as Kubernetes would validate it). The jar is
 * written to a temporary file and moved into place atomically, so a running node never sees half a jar.
 */
public final class PluginPacker {
  private final ManifestReader reader = new ManifestReader();
  private final List<ApiSourceFactory> factories = PluginLoader.discoverFactories();

  /**
   * @param out       the jar to write
   * @param name      plugin name, or null for the jar file name without {@code .jar}
   * @param version   plugin version ({@code ""} when none)
   * @param manifests manifest files
   * @throws IllegalArgumentException naming the file when a manifest cannot be read or is of an unsupported kind
   * @throws IOException when the jar cannot be written
   */
  public void pack(Path out, String name, String version, List<Path> manifests) throws IOException {
    String pluginName = name != null ? name : out.getFileName().toString().replaceFirst("\\.jar$", "");
    Set<String> entries = new HashSet<>();
    for (Path m : manifests) {
      List<JsonObject> docs;
      try (InputStream in = Files.newInputStream(m)) {
        docs = reader.read(in, m.toString());
      } catch (IOException e) {
        throw new IllegalArgumentException(m + ": cannot read: " + e.getMessage(), e);
      }
      if (docs.isEmpty()) {
        throw new IllegalArgumentException(m + ": no manifest in file");
      }
      for (JsonObject d : docs) {
        String av = d.getString("apiVersion", "");
        String kind = d.getString("kind", "");
        ApiSourceFactory factory = factories.stream().filter(f -> f.supports(av, kind)).findFirst()
            .orElseThrow(() -> new IllegalArgumentException(m + ": unsupported manifest " + av + " " + kind
                + " (expected apiextensions.k8s.io/v1 CustomResourceDefinition or apiregistration.k8s.io/v1 "
                + "APIService)"));
        try {
          factory.validate(d);
        } catch (io.mvproxy.api.StatusException e) {
          throw new IllegalArgumentException(m + ": " + e.getMessage(), e);
        }
      }
      if (!entries.add(m.getFileName().toString())) {
        throw new IllegalArgumentException(m + ": two manifests with the same file name");
      }
    }
    Path parent = out.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    Path tmp = Files.createTempFile(parent, ".pack-", ".jar.tmp");
    Manifest mf = new Manifest();
    mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    mf.getMainAttributes().putValue("Created-By", "mvproxy plugin pack");
    try (OutputStream os = Files.newOutputStream(tmp); JarOutputStream jar = new JarOutputStream(os, mf)) {
      jar.putNextEntry(new JarEntry(PluginJarFormat.DESCRIPTOR));
      jar.write(new JsonObject().put("name", pluginName).put("version", version).encodePrettily()
          .getBytes(StandardCharsets.UTF_8));
      jar.closeEntry();
      for (Path m : manifests) {
        jar.putNextEntry(new JarEntry(PluginJarFormat.MANIFESTS + m.getFileName()));
        jar.write(Files.readAllBytes(m));
        jar.closeEntry();
      }
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(tmp);
      throw e;
    }
    try {
      // temp files are created 0600; a plugin jar must be readable by the node's user (e.g. in a container)
      Files.setPosixFilePermissions(tmp, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: keep the defaults
    }
    Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
