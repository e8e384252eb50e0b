package io.mvproxy.node.plugin;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.ApiSourceContext;
import io.mvproxy.api.ApiSourceFactory;
import io.mvproxy.api.ApiSourceProvider;
import io.mvproxy.api.Gvr;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Reads one plugin jar (blocking: call it on a worker thread). The jar is first copied to a private folder, so users
 * may overwrite the original; its manifests are handed to the {@link ApiSourceFactory} that supports their kind, and
 * a code plugin's {@link ApiSourceProvider}s, declared in the jar's OWN {@code META-INF/services}, are created in a
 * {@link PluginClassLoader} of their own. Any failure (corrupt jar, invalid manifest, a provider that throws, a bound
 * of {@link PluginLimits} crossed: jar or manifest too large, alias bomb, parse budget spent) gives a FAILED plugin
 * with the reason; nothing escapes.
 */
public final class PluginLoader {
  private static final String PROVIDERS = "META-INF/services/" + ApiSourceProvider.class.getName();
  private final List<ApiSourceFactory> factories;
  private final ManifestReader reader;
  private final PluginLimits limits;
  private final Path privateDir;
  private final AtomicLong loads = new AtomicLong();

  /**
   * @param privateDir folder the jars are copied to before reading (created when missing)
   * @param factories  manifest handlers; {@link #discoverFactories()} finds the ones on the class path
   */
  public PluginLoader(Path privateDir, List<ApiSourceFactory> factories) {
    this(privateDir, factories, PluginLimits.DEFAULTS);
  }

  /**
   * @param privateDir folder the jars are copied to before reading (created when missing)
   * @param factories  manifest handlers
   * @param limits     bounds on each jar
   */
  public PluginLoader(Path privateDir, List<ApiSourceFactory> factories, PluginLimits limits) {
    this.privateDir = privateDir;
    this.factories = List.copyOf(factories);
    this.limits = limits;
    this.reader = new ManifestReader(limits);
  }

  /** @return the bounds on each jar */
  public PluginLimits limits() {
    return limits;
  }

  /** @return every {@link ApiSourceFactory} registered on the node's class path */
  public static List<ApiSourceFactory> discoverFactories() {
    List<ApiSourceFactory> out = new ArrayList<>();
    ServiceLoader.load(ApiSourceFactory.class, PluginLoader.class.getClassLoader()).forEach(out::add);
    return out;
  }

  /**
   * @param jar a jar
   * @return {@code size:mtime} of the jar, or null when it cannot be read
   */
  public static String fingerprint(Path jar) {
    try {
      BasicFileAttributes a = Files.readAttributes(jar, BasicFileAttributes.class);
      return a.size() + ":" + a.lastModifiedTime().toMillis();
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * Loads one jar.
   *
   * @param jar         the jar in the plugin folder
   * @param fingerprint its {@link #fingerprint} when listed
   * @param context     node services
   * @return the plugin, ACTIVE with its sources or FAILED with the reason
   */
  public Plugin load(Path jar, String fingerprint, ApiSourceContext context) {
    String fileName = jar.getFileName().toString();
    Plugin plugin = new Plugin(fileName.replaceFirst("\\.jar$", ""), "", jar, fingerprint, PluginState.LOADED, null,
        List.of(), null);
    List<ApiSource> sources = new ArrayList<>();
    PluginClassLoader cl = null;
    long deadline = System.nanoTime() + limits.budget().toNanos();
    try {
      long size = Files.size(jar);
      if (size > limits.maxJarBytes()) {
        throw new IllegalArgumentException("the jar is " + size + " bytes, more than the limit of "
            + limits.maxJarBytes());
      }
      Files.createDirectories(privateDir);
      Path copy = privateDir.resolve(loads.incrementAndGet() + "-" + fileName);
      Files.copy(jar, copy, StandardCopyOption.REPLACE_EXISTING);
      boolean code;
      try (ZipFile zip = new ZipFile(copy.toFile())) {
        plugin = describe(zip, plugin);
        long total = 0;
        for (String n : manifestEntries(zip)) {
          ZipEntry entry = zip.getEntry(n);
          if (entry.getSize() > limits.maxManifestBytes()) {
            throw new IllegalArgumentException(n + " is " + entry.getSize() + " bytes, more than the limit of "
                + limits.maxManifestBytes());
          }
          total += Math.max(0, entry.getSize());
          if (total > limits.maxManifestsBytes()) {
            throw new IllegalArgumentException("the manifests are more than " + limits.maxManifestsBytes()
                + " bytes together");
          }
          try (InputStream in = zip.getInputStream(entry)) {
            for (JsonObject m : reader.read(in, n, deadline)) {
              sources.add(create(m, n, context));
            }
          }
        }
        code = zip.getEntry(PROVIDERS) != null;
        // a reference inside a method body resolves only when the method first runs (a hook at request time):
        // refuse the plugin now, not with a NoClassDefFoundError on every request later
        String internal = code ? InternalReferences.find(zip, deadline) : null;
        if (internal != null) {
          throw new IllegalArgumentException(internal);
        }
      }
      if (code) {
        cl = new PluginClassLoader(copy.toUri().toURL(), PluginLoader.class.getClassLoader());
        sources.addAll(providers(cl, context));
      }
      if (sources.isEmpty()) {
        throw new IllegalArgumentException("no manifests under " + PluginJarFormat.MANIFESTS + " and no "
            + PROVIDERS);
      }
      return new Plugin(plugin.name(), plugin.version(), jar, fingerprint, PluginState.ACTIVE, null, sources, cl);
    } catch (IOException | RuntimeException | LinkageError | java.util.ServiceConfigurationError e) {
      sources.forEach(ApiSource::close);
      closeQuietly(cl);
      String msg = describe(e);
      return plugin.failed(e instanceof IOException ? "cannot read jar: " + msg : msg);
    }
  }

  private static Plugin describe(ZipFile zip, Plugin plugin) throws IOException {
    ZipEntry desc = zip.getEntry(PluginJarFormat.DESCRIPTOR);
    if (desc == null) {
      return plugin;
    }
    try (InputStream in = zip.getInputStream(desc)) {
      byte[] bytes = in.readNBytes(64 * 1024 + 1);
      if (bytes.length > 64 * 1024) {
        throw new IllegalArgumentException(PluginJarFormat.DESCRIPTOR + " is larger than 65536 bytes");
      }
      JsonObject d = new JsonObject(new String(bytes, StandardCharsets.UTF_8));
      return new Plugin(d.getString("name", plugin.name()), d.getString("version", ""), plugin.jar(),
          plugin.fingerprint(), PluginState.LOADED, null, List.of(), null);
    } catch (io.vertx.core.json.DecodeException e) {
      throw new IllegalArgumentException(PluginJarFormat.DESCRIPTOR + ": not a JSON object", e);
    }
  }

  private static List<String> manifestEntries(ZipFile zip) {
    List<String> names = new ArrayList<>();
    for (Enumeration<? extends ZipEntry> en = zip.entries(); en.hasMoreElements(); ) {
      ZipEntry e = en.nextElement();
      if (!e.isDirectory() && PluginJarFormat.isManifest(e.getName())) {
        names.add(e.getName());
      }
    }
    names.sort(null);
    return names;
  }

  private static List<ApiSource> providers(PluginClassLoader cl, ApiSourceContext context) {
    List<ApiSource> out = new ArrayList<>();
    ServiceLoader.load(ApiSourceProvider.class, cl).stream()
        .filter(p -> p.type().getClassLoader() == cl)
        .forEach(p -> {
          List<ApiSource> created = p.get().create(context);
          if (created == null || created.isEmpty()) {
            throw new IllegalArgumentException(p.type().getName() + " created no API source");
          }
          out.addAll(created);
        });
    return out;
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

  /** @return the messages of {@code t} and its causes, joined with ": " */
  static String describe(Throwable t) {
    StringBuilder b = new StringBuilder();
    for (Throwable c = t; c != null && b.length() < 2000; c = c.getCause() == c ? null : c.getCause()) {
      String m = c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
      if (b.indexOf(m) < 0) {
        b.append(b.length() == 0 ? "" : ": ").append(m);
      }
    }
    return b.toString();
  }

  /** Closes a plugin class loader, ignoring errors. @param cl the loader or null */
  static void closeQuietly(PluginClassLoader cl) {
    if (cl != null) {
      try {
        cl.close();
      } catch (IOException e) {
        // nothing more to release
      }
    }
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
