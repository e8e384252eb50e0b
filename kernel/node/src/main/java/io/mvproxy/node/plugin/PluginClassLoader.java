package io.mvproxy.node.plugin;

import java.net.URL;
import java.net.URLClassLoader;

/**
 * One class loader per code-plugin jar: parent-first only for {@code java.*}, {@code javax.*}, Vert.x, Netty and the
 * plugin API ({@code io.mvproxy.api}, and the registry's public API {@code io.mvproxy.registry}), so plugins share
 * those types with the node; everything else is looked up in the jar first (a plugin may bundle its own libraries).
 * The registry's internals ({@code io.mvproxy.registry.impl}) are refused: a jar whose classes name them is FAILED
 * before any of its code runs ({@link InternalReferences}), and a name built at run time ({@code Class.forName}) gets
 * a {@code ClassNotFoundException} saying so. Closed when the plugin is unloaded.
 */
public final class PluginClassLoader extends URLClassLoader {
  private static final String[] PARENT_FIRST = {"java.", "javax.", "jdk.", "sun.", "io.vertx.", "io.netty.",
      "io.mvproxy.api.", "io.mvproxy.registry.", "com.hazelcast.", "com.fasterxml.jackson."};
  /** The registry's internals, not part of the plugin API (see {@code io.mvproxy.registry}). */
  static final String REGISTRY_IMPL = "io.mvproxy.registry.impl.";

  static {
    ClassLoader.registerAsParallelCapable();
  }

  /**
   * @param jar    the (private copy of the) plugin jar
   * @param parent the node's class loader
   */
  public PluginClassLoader(URL jar, ClassLoader parent) {
    super(new URL[] {jar}, parent);
  }

  @Override
  protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
    if (name.startsWith(REGISTRY_IMPL)) {
      throw new ClassNotFoundException(name + " is internal to the node's registry: plugins use io.mvproxy.registry");
    }
    for (String p : PARENT_FIRST) {
      if (name.startsWith(p)) {
        return super.loadClass(name, resolve);
      }
    }
    synchronized (getClassLoadingLock(name)) {
      Class<?> c = findLoadedClass(name);
      if (c == null) {
        try {
          c = findClass(name);
        } catch (ClassNotFoundException e) {
          c = super.loadClass(name, false);
        }
      }
      if (resolve) {
        resolveClass(c);
      }
      return c;
    }
  }

  @Override
  public URL getResource(String name) {
    URL own = findResource(name);
    return own != null ? own : super.getResource(name);
  }
}
