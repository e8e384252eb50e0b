package io.mvproxy.registry.impl.schema;

/** {@code field.Path} strings: {@code Child} ({@code a.b}), {@code Key} ({@code a[k]}), {@code Index} ({@code a[0]}). */
public final class FieldPaths {
  private FieldPaths() {
  }

  /** @return {@code parent.Child(name)}; {@code parent} null is the root */
  public static String child(String parent, String name) {
    return parent == null ? name : parent + "." + name;
  }

  /** @return {@code parent.Key(key)} */
  public static String key(String parent, String key) {
    return (parent == null ? "" : parent) + "[" + key + "]";
  }

  /** @return {@code parent.Index(i)} */
  public static String index(String parent, int i) {
    return (parent == null ? "" : parent) + "[" + i + "]";
  }

  /** @return the path string, {@code <nil>} for the root */
  public static String string(String path) {
    return path == null ? FieldError.ROOT : path;
  }
}
