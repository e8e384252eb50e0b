package io.mvproxy.registry.impl;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.representer.Representer;
import org.yaml.snakeyaml.DumperOptions;

/**
 * Reads multi-document YAML (JSON is YAML) into JSON values with SnakeYAML configured for untrusted input, as
 * Kubernetes' {@code sigs.k8s.io/yaml} reads manifests: aliases are resolved (at most {@link Limits#maxAliases}
 * collection aliases per document, SnakeYAML's {@code maxAliasesForCollections}; an alias bomb is refused), input at
 * most {@link Limits#maxCodePoints} code points ({@code codePointLimit}), nesting at most {@link Limits#maxDepth},
 * at most {@link Limits#maxValues} values after alias expansion, and reading stops at {@link Limits#deadlineNanos}.
 * Timestamps stay strings (as in Kubernetes); duplicate keys are an error ({@link #readKeepingLastDuplicate}: the last
 * value wins).
 */
public final class YamlDocuments {
  /**
   * The bounds of one read.
   *
   * @param maxCodePoints input size, code points
   * @param maxAliases    collection aliases per document
   * @param maxDepth      nesting depth
   * @param maxValues     scalars and collections after alias expansion, all documents together
   * @param deadlineNanos {@link System#nanoTime()} after which reading fails; {@link Long#MAX_VALUE} for none
   */
  public record Limits(int maxCodePoints, int maxAliases, int maxDepth, long maxValues, long deadlineNanos) {
    /** Limits for request bodies (3 MiB): 50 aliases (SnakeYAML's default), 1000 levels, 4 M values. */
    public static final Limits REQUEST = new Limits(3 * 1024 * 1024 + 1024, 50, 1000, 4_000_000, Long.MAX_VALUE);

    /** @param nanos a deadline @return a copy with that deadline */
    public Limits withDeadline(long nanos) {
      return new Limits(maxCodePoints, maxAliases, maxDepth, maxValues, nanos);
    }
  }

  private YamlDocuments() {
  }

  /**
   * @param in     UTF-8 YAML (not closed)
   * @param limits bounds
   * @return every non-empty document as a JSON value (JsonObject, JsonArray or a scalar)
   * @throws IllegalArgumentException with the reason when the input is not YAML or crosses a bound
   */
  public static List<Object> read(InputStream in, Limits limits) {
    return read(new InputStreamReader(in, StandardCharsets.UTF_8), limits);
  }

  /** @see #read(InputStream, Limits) */
  public static List<Object> read(String yaml, Limits limits) {
    return read(new java.io.StringReader(yaml), limits);
  }

  /**
   * Reads like {@link #read(InputStream, Limits)} but, as {@code sigs.k8s.io/yaml YAMLToJSON}, keeps the last value
   * of a key given twice in a mapping instead of failing (see {@link #duplicateKeys}).
   *
   * @param yaml   UTF-8 YAML
   * @param limits bounds
   * @return every non-empty document as a JSON value
   * @throws IllegalArgumentException with the reason when the input is not YAML or crosses a bound
   */
  public static List<Object> readKeepingLastDuplicate(byte[] yaml, Limits limits) {
    return read(new InputStreamReader(new java.io.ByteArrayInputStream(yaml), StandardCharsets.UTF_8), limits, true);
  }

  /**
   * The keys given twice in a mapping of the first document, as go-yaml's strict decoding
   * ({@code yaml.UnmarshalStrict}, behind {@code sigs.k8s.io/yaml YAMLToJSONStrict}) reports them.
   *
   * @param yaml   UTF-8 YAML that {@link #readKeepingLastDuplicate} read
   * @param limits bounds
   * @return one {@code line <n>: key "<k>" already set in map} per repeated key (n from 1, the repeat's line), in
   *     document order; empty when none (or when the input cannot be composed)
   */
  public static List<String> duplicateKeys(byte[] yaml, Limits limits) {
    LoaderOptions lo = options(limits);
    lo.setAllowDuplicateKeys(true);
    List<String> out = new ArrayList<>();
    try {
      org.yaml.snakeyaml.nodes.Node root = new Yaml(lo).compose(
          new InputStreamReader(new java.io.ByteArrayInputStream(yaml), StandardCharsets.UTF_8));
      duplicateKeys(root, out, new IdentityHashMap<>());
    } catch (RuntimeException e) {
      return List.of();
    }
    return out;
  }

  private static void duplicateKeys(org.yaml.snakeyaml.nodes.Node n, List<String> out,
                                    IdentityHashMap<org.yaml.snakeyaml.nodes.Node, Boolean> seenNodes) {
    if (n == null || seenNodes.put(n, Boolean.TRUE) != null) {
      return;  // an alias's node is walked once
    }
    if (n instanceof org.yaml.snakeyaml.nodes.MappingNode m) {
      java.util.Set<String> keys = new java.util.HashSet<>();
      for (org.yaml.snakeyaml.nodes.NodeTuple t : m.getValue()) {
        if (t.getKeyNode() instanceof org.yaml.snakeyaml.nodes.ScalarNode k && !keys.add(k.getValue())) {
          String shown = k.getTag() == Tag.STR ? io.mvproxy.api.GoStrings.quote(k.getValue()) : k.getValue();
          out.add("line " + (k.getStartMark().getLine() + 1) + ": key " + shown + " already set in map");
        }
        duplicateKeys(t.getValueNode(), out, seenNodes);
      }
    } else if (n instanceof org.yaml.snakeyaml.nodes.SequenceNode q) {
      q.getValue().forEach(c -> duplicateKeys(c, out, seenNodes));
    }
  }

  private static LoaderOptions options(Limits limits) {
    LoaderOptions lo = new LoaderOptions();
    lo.setCodePointLimit(limits.maxCodePoints());
    lo.setMaxAliasesForCollections(limits.maxAliases());
    lo.setNestingDepthLimit(limits.maxDepth());
    lo.setAllowRecursiveKeys(false);
    return lo;
  }

  private static List<Object> read(Reader reader, Limits limits) {
    return read(reader, limits, false);
  }

  private static List<Object> read(Reader reader, Limits limits, boolean keepLastDuplicate) {
    LoaderOptions lo = new LoaderOptions();
    lo.setCodePointLimit(limits.maxCodePoints());
    lo.setMaxAliasesForCollections(limits.maxAliases());
    lo.setNestingDepthLimit(limits.maxDepth());
    lo.setAllowDuplicateKeys(keepLastDuplicate);
    lo.setAllowRecursiveKeys(false);
    Yaml yaml = new Yaml(new StringTimestamps(lo), new Representer(new DumperOptions()), new DumperOptions(), lo);
    long[] budget = {limits.maxValues()};
    List<Object> out = new ArrayList<>();
    try {
      for (Object doc : yaml.loadAll(new DeadlineReader(reader, limits.deadlineNanos()))) {
        if (doc == null || doc instanceof String s && s.isEmpty()) {
          continue;
        }
        out.add(toJson(doc, budget, new IdentityHashMap<>(), 0, limits.maxDepth()));
      }
    } catch (RuntimeException e) {
      String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      throw new IllegalArgumentException(m.replaceAll("\\s+", " ").trim(), e);
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static Object toJson(Object v, long[] budget, IdentityHashMap<Object, Boolean> path, int depth, int max) {
    if (--budget[0] < 0) {
      throw new IllegalArgumentException("the YAML expands to too many values (aliases)");
    }
    if (depth > max) {
      throw new IllegalArgumentException("the YAML is nested deeper than " + max + " levels");
    }
    if (v instanceof Map<?, ?> m) {
      if (path.put(m, Boolean.TRUE) != null) {
        throw new IllegalArgumentException("recursive alias");
      }
      JsonObject o = new JsonObject();
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!(e.getKey() instanceof String) && e.getKey() != null && !(e.getKey() instanceof Number)
            && !(e.getKey() instanceof Boolean)) {
          throw new IllegalArgumentException("a mapping key is not a scalar");
        }
        o.put(String.valueOf(e.getKey()), toJson(e.getValue(), budget, path, depth + 1, max));
      }
      path.remove(m);
      return o;
    }
    if (v instanceof Collection<?> c) {
      if (path.put(c, Boolean.TRUE) != null) {
        throw new IllegalArgumentException("recursive alias");
      }
      JsonArray a = new JsonArray();
      for (Object e : c) {
        a.add(toJson(e, budget, path, depth + 1, max));
      }
      path.remove(c);
      return a;
    }
    if (v instanceof java.math.BigInteger b) {
      return b.bitLength() < 64 ? (Object) b.longValue() : (Object) b.doubleValue();
    }
    if (v instanceof Integer i) {
      return i.longValue();
    }
    if (v instanceof byte[] bytes) {
      return java.util.Base64.getEncoder().encodeToString(bytes);
    }
    if (v instanceof Double d && !Double.isFinite(d)) {
      throw new IllegalArgumentException("json: unsupported value: " + d);
    }
    return v;
  }

  /** SnakeYAML's safe constructor with timestamps kept as strings. */
  private static final class StringTimestamps extends SafeConstructor {
    StringTimestamps(LoaderOptions lo) {
      super(lo);
      this.yamlConstructors.put(Tag.TIMESTAMP, new ConstructYamlStr());
    }
  }

  /** A reader that fails once its deadline has passed (bounds the time a parse may take). */
  private static final class DeadlineReader extends Reader {
    private final Reader in;
    private final long deadline;

    DeadlineReader(Reader in, long deadline) {
      this.in = in;
      this.deadline = deadline;
    }

    @Override
    public int read(char[] buf, int off, int len) throws IOException {
      if (deadline != Long.MAX_VALUE && System.nanoTime() - deadline > 0) {
        throw new IOException("parse budget exceeded");
      }
      return in.read(buf, off, len);
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
