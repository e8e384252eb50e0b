package io.mvproxy.node.plugin;

import java.net.URL;
import java.net.URLClassLoader;

/**
 * One class loader per code-plugin jar: parent-first only for {@code java.*}, {@code javax.*}, Vert.x, Netty and the
 * plugin API ({@code io.mvproxy.api}), so plugins share those types with the node; everything else is looked up in
 * the jar first (a plugin may bundle its own libraries). Closed when the plugin is unloaded.
 */
public final class PluginClassLoader extends URLClassLoader {
  private static final String[] PARENT_FIRST = {"java.", "javax.", "jdk.", "sun.", "io.vertx.", "io.netty.",
      "io.mvproxy.api.", "com.hazelcast.", "com.fasterxml.jackson."};

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
