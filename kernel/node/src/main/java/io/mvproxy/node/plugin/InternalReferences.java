package io.mvproxy.node.plugin;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Finds, before a code plugin runs, a class of its jar that names the registry's internals
 * ({@code io.mvproxy.registry.impl}). {@link PluginClassLoader} refuses those classes, but only when the JVM resolves
 * a reference, which for a reference inside a method body is the first time that method runs: a plugin whose hook
 * (say {@code KindStrategy.validate}) calls the internals would load ACTIVE and then fail every request with an
 * opaque {@code NoClassDefFoundError}. Every class file's constant pool holds the names it refers to (class
 * entries, field and method descriptors, string constants for {@code Class.forName}) as modified UTF-8, which is
 * plain ASCII for these names, so a byte search of each {@code .class} entry finds every static reference.
 */
final class InternalReferences {
  private static final byte[] SLASHED = PluginClassLoader.REGISTRY_IMPL.replace('.', '/')
      .getBytes(StandardCharsets.US_ASCII);
  private static final byte[] DOTTED = PluginClassLoader.REGISTRY_IMPL.getBytes(StandardCharsets.US_ASCII);

  private InternalReferences() {
  }

  /**
   * @param zip      the plugin jar
   * @param deadline {@link System#nanoTime()} by which the scan must be done
   * @return null when no class names the internals, else the failure message:
   *     {@code io.mvproxy.registry.impl.X is internal to the node's registry: plugins use io.mvproxy.registry
   *     (referred to by com.example.P)}
   * @throws IOException when an entry cannot be read
   * @throws IllegalArgumentException when the deadline passes (the plugin's load budget)
   */
  static String find(ZipFile zip, long deadline) throws IOException {
    for (Enumeration<? extends ZipEntry> en = zip.entries(); en.hasMoreElements(); ) {
      ZipEntry e = en.nextElement();
      if (e.isDirectory() || !e.getName().endsWith(".class")) {
        continue;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalArgumentException("the jar's classes could not be checked within the load budget");
      }
      byte[] bytes;
      try (InputStream in = zip.getInputStream(e)) {
        bytes = in.readAllBytes();
      }
      String target = referenced(bytes);
      if (target != null) {
        String self = e.getName().substring(0, e.getName().length() - ".class".length()).replace('/', '.');
        return target + " is internal to the node's registry: plugins use io.mvproxy.registry (referred to by "
            + self + ")";
      }
    }
    return null;
  }

  /**
   * @param classFile the bytes of one class file
   * @return the first internal class named in it (dotted), or null
   */
  static String referenced(byte[] classFile) {
    for (byte[] needle : new byte[][] {SLASHED, DOTTED}) {
      int at = indexOf(classFile, needle);
      if (at >= 0) {
        int end = at + needle.length;
        while (end < classFile.length && isNamePart(classFile[end])) {
          end++;
        }
        return new String(classFile, at, end - at, StandardCharsets.US_ASCII).replace('/', '.');
      }
    }
    return null;
  }

  private static boolean isNamePart(byte b) {
    return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '$'
        || b == '/' || b == '.';
  }

  private static int indexOf(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
