package io.mvproxy.node.plugin;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.ApiSourceContext;
import io.mvproxy.api.ApiSourceFactory;
import io.mvproxy.api.Gvr;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.logging.Logger;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Loads the plugin jars of a node's plugin folder: each jar is copied to a private folder (users may overwrite the
 * original), its manifests are read and handed to the {@link ApiSourceFactory} that supports their kind. A jar that
 * is corrupt, holds an invalid manifest, or claims a GVR another plugin already serves is FAILED with the reason;
 * the others load normally. Jars are processed in file-name order, so the first claimant of a GVR wins.
 */
public final class PluginLoader {
  private static final Logger LOG = Logger.getLogger(PluginLoader.class.getName());
  private final List<ApiSourceFactory> factories;
  private final ManifestReader reader = new ManifestReader();
  private final Path privateDir;

  /**
   * @param privateDir folder the jars are copied to before reading (created when missing)
   * @param factories  manifest handlers; {@link #discoverFactories()} finds the ones on the class path
   */
  public PluginLoader(Path privateDir, List<ApiSourceFactory> factories) {
    this.privateDir = privateDir;
    this.factories = List.copyOf(factories);
  }

  /** @return every {@link ApiSourceFactory} registered on the node's class path */
  public static List<ApiSourceFactory> discoverFactories() {
    List<ApiSourceFactory> out = new ArrayList<>();
    ServiceLoader.load(ApiSourceFactory.class, PluginLoader.class.getClassLoader()).forEach(out::add);
    return out;
  }

  /**
   * @param dir     the plugin folder (a missing folder means no plugins)
   * @param context node services for the sources
   * @return one {@link Plugin} per jar, ACTIVE or FAILED
   */
  public List<Plugin> loadAll(Path dir, ApiSourceContext context) {
    List<Path> jars = new ArrayList<>();
    if (Files.isDirectory(dir)) {
      try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.jar")) {
        ds.forEach(jars::add);
      } catch (IOException e) {
        LOG.warning("cannot list plugin folder " + dir + ": " + e);
      }
    }
    jars.sort(null);
    Map<Gvr, String> claimed = new HashMap<>();
    List<Plugin> out = new ArrayList<>();
    for (Path jar : jars) {
      Plugin p = load(jar, context);
      if (p.state() == PluginState.ACTIVE) {
        String conflict = conflict(p, claimed);
        if (conflict != null) {
          p.sources().forEach(ApiSource::close);
          p = p.failed(conflict);
        } else {
          for (ApiSource s : p.sources()) {
            gvrs(s).forEach(g -> claimed.put(g, jar.getFileName().toString()));
          }
        }
      }
      if (p.state() == PluginState.FAILED) {
        LOG.warning("plugin " + jar.getFileName() + " FAILED: " + p.error());
      } else {
        LOG.info("plugin " + p.name() + " " + p.version() + " ACTIVE: "
            + p.sources().stream().map(ApiSource::name).toList());
      }
      out.add(p);
    }
    return out;
  }

  /**
   * Loads one jar.
   *
   * @param jar     the jar
   * @param context node services
   * @return the plugin, ACTIVE with its sources or FAILED with the reason
   */
  public Plugin load(Path jar, ApiSourceContext context) {
    String fileName = jar.getFileName().toString();
    Plugin plugin = new Plugin(fileName.replaceFirst("\\.jar$", ""), "", jar, PluginState.LOADED, null, List.of());
    List<ApiSource> sources = new ArrayList<>();
    try {
      Files.createDirectories(privateDir);
      Path copy = privateDir.resolve(fileName);
      Files.copy(jar, copy, StandardCopyOption.REPLACE_EXISTING);
      try (ZipFile zip = new ZipFile(copy.toFile())) {
        ZipEntry desc = zip.getEntry(PluginJarFormat.DESCRIPTOR);
        if (desc != null) {
          try (InputStream in = zip.getInputStream(desc)) {
            JsonObject d = new JsonObject(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
            plugin = new Plugin(d.getString("name", plugin.name()), d.getString("version", ""), jar,
                PluginState.LOADED, null, List.of());
          }
        }
        List<String> names = new ArrayList<>();
        for (Enumeration<? extends ZipEntry> en = zip.entries(); en.hasMoreElements(); ) {
          ZipEntry e = en.nextElement();
          if (!e.isDirectory() && PluginJarFormat.isManifest(e.getName())) {
            names.add(e.getName());
          }
        }
        names.sort(null);
        for (String n : names) {
          try (InputStream in = zip.getInputStream(zip.getEntry(n))) {
            for (JsonObject m : reader.read(in, n)) {
              sources.add(create(m, n, context));
            }
          }
        }
      }
      if (sources.isEmpty()) {
        return plugin.failed("no manifests under " + PluginJarFormat.MANIFESTS);
      }
      return new Plugin(plugin.name(), plugin.version(), jar, PluginState.ACTIVE, null, sources);
    } catch (IOException | RuntimeException e) {
      sources.forEach(ApiSource::close);
      String msg = e instanceof StatusException se ? se.getMessage() : String.valueOf(e.getMessage());
      return plugin.failed(e instanceof IOException ? "cannot read jar: " + msg : msg);
    }
  }

  private ApiSource create(JsonObject manifest, String entry, ApiSourceContext context) {
    String apiVersion = manifest.getString("apiVersion", "");
    String kind = manifest.getString("kind", "");
    for (ApiSourceFactory f : factories) {
      if (f.supports(apiVersion, kind)) {
        try {
          return f.create(manifest, context);
        } catch (StatusException e) {
          throw new IllegalArgumentException(entry + ": " + e.getMessage(), e);
        }
      }
    }
    throw new IllegalArgumentException(entry + ": no API source supports " + apiVersion + " " + kind);
  }

  private static String conflict(Plugin p, Map<Gvr, String> claimed) {
    for (ApiSource s : p.sources()) {
      for (Gvr g : gvrs(s)) {
        if (claimed.containsKey(g)) {
          return g + " is already served by plugin " + claimed.get(g);
        }
      }
    }
    return null;
  }

  /** @param s a source @return every GVR it serves */
  public static List<Gvr> gvrs(ApiSource s) {
    List<Gvr> out = new ArrayList<>();
    for (ServedGroupVersion gv : s.groupVersions()) {
      for (DiscoveryResource r : gv.resources()) {
        out.add(new Gvr(gv.groupVersion().group(), gv.groupVersion().version(), r.resource()));
      }
    }
    return out;
  }
}
