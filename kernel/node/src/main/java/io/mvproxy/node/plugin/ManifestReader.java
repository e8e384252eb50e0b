package io.mvproxy.node.plugin;

import io.mvproxy.registry.impl.YamlDocuments;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads Kubernetes manifests from a plugin jar: multi-document YAML (or JSON) into JSON objects, skipping empty
 * documents, with SnakeYAML configured for untrusted input ({@link YamlDocuments}: aliases resolved, alias bombs,
 * depth, size and time bounded by {@link PluginLimits}).
 */
public final class ManifestReader {
  private final PluginLimits limits;

  /** A reader with {@link PluginLimits#DEFAULTS}. */
  public ManifestReader() {
    this(PluginLimits.DEFAULTS);
  }

  /** @param limits the bounds */
  public ManifestReader(PluginLimits limits) {
    this.limits = limits;
  }

  /**
   * @param in   the stream (not closed)
   * @param name the file name, for messages
   * @return each non-empty document as JSON
   * @throws IllegalArgumentException naming the file when it is not YAML/JSON, crosses a bound or a document is not
   *     an object
   */
  public List<JsonObject> read(InputStream in, String name) {
    return read(in, name, Long.MAX_VALUE);
  }

  /**
   * @param in            the stream (not closed); at most {@link PluginLimits#maxManifestBytes} are read
   * @param name          the file name, for messages
   * @param deadlineNanos {@link System#nanoTime()} after which parsing fails
   * @return each non-empty document as JSON
   * @throws IllegalArgumentException naming the file and the bound crossed
   */
  public List<JsonObject> read(InputStream in, String name, long deadlineNanos) {
    int maxChars = (int) Math.min(Integer.MAX_VALUE - 1, limits.maxManifestBytes());
    List<Object> docs;
    try {
      docs = YamlDocuments.read(new Bounded(in, limits.maxManifestBytes(), name), new YamlDocuments.Limits(maxChars,
          limits.maxAliases(), 1000, limits.maxValues(), deadlineNanos));
    } catch (IllegalArgumentException e) {
      String m = e.getMessage();
      throw new IllegalArgumentException(name + ": " + (m.contains("parse budget") ? "not parsed within the load "
          + "budget of " + limits.budget().toSeconds() + " s" : m.contains("larger than the limit") ? m
          : "not valid YAML: " + m), e);
    }
    List<JsonObject> out = new ArrayList<>();
    for (Object doc : docs) {
      if (!(doc instanceof JsonObject o)) {
        throw new IllegalArgumentException(name + ": a manifest must be an object");
      }
      out.add(o);
    }
    return out;
  }

  /** Fails once more than {@code max} bytes were read, whatever the zip entry claimed. */
  private static final class Bounded extends InputStream {
    private final InputStream in;
    private final long max;
    private final String name;
    private long read;

    Bounded(InputStream in, long max, String name) {
      this.in = in;
      this.max = max;
      this.name = name;
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0 && ++read > max) {
        throw tooLarge();
      }
      return b;
    }

    @Override
    public int read(byte[] buf, int off, int len) throws IOException {
      int n = in.read(buf, off, len);
      if (n > 0 && (read += n) > max) {
        throw tooLarge();
      }
      return n;
    }

    private IOException tooLarge() {
      return new IOException(name + " is larger than the limit of " + max + " bytes");
    }
  }
}
