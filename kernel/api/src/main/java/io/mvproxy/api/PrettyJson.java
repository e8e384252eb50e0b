package io.mvproxy.api;

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

/**
 * {@code ?pretty=true} output as kube-apiserver writes it ({@code json.MarshalIndent(obj, "", "  ")}): two-space
 * indents, {@code "key": value}, {@code {}} and {@code []} when empty, and a final newline. Used for every JSON answer
 * (objects and {@link StatusWriter Status} errors) when the request says {@code ?pretty=true}.
 */
public final class PrettyJson {
  private static final ObjectWriter WRITER;

  static {
    DefaultIndenter two = new DefaultIndenter("  ", "\n");
    DefaultPrettyPrinter pp = new DefaultPrettyPrinter(Separators.createDefaultInstance()
        .withObjectFieldValueSpacing(Separators.Spacing.AFTER).withObjectEmptySeparator("")
        .withArrayEmptySeparator(""));
    pp.indentObjectsWith(two);
    pp.indentArraysWith(two);
    WRITER = new ObjectMapper().writer(pp);
  }

  private PrettyJson() {
  }

  /** @param o an object @return it indented, with a trailing newline */
  public static Buffer encode(JsonObject o) {
    try {
      return Buffer.buffer(WRITER.writeValueAsString(plain(o)) + "\n");
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * @param v a Vert.x JSON value ({@link JsonObject}, {@link io.vertx.core.json.JsonArray}, or a scalar)
   * @return the same value as plain, ordered {@code Map}s and {@code List}s (scalars as they are), for libraries that
   *         read those (Jackson writers, JsonPath)
   */
  public static Object plain(Object v) {
    if (v instanceof JsonObject o) {
      java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
      o.forEach(e -> m.put(e.getKey(), plain(e.getValue())));
      return m;
    }
    if (v instanceof io.vertx.core.json.JsonArray a) {
      java.util.List<Object> l = new java.util.ArrayList<>(a.size());
      a.forEach(e -> l.add(plain(e)));
      return l;
    }
    return v;
  }
}
