package io.mvproxy.registry.impl.rest;

import com.jayway.jsonpath.Configuration;
import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import com.jayway.jsonpath.Option;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;

/**
 * Kubernetes JSONPath ({@code .spec.x}, {@code {.a[?(@.t=="X")].b}}) on objects, evaluated with Jayway json-path
 * (for printer columns, {@code client-go/util/jsonpath} semantics: first result only), plus plain dotted paths for
 * the scale subresource ({@code .spec.replicas}).
 */
public final class JsonPaths {
  private static final Configuration CONF = Configuration.defaultConfiguration()
      .addOptions(Option.SUPPRESS_EXCEPTIONS, Option.ALWAYS_RETURN_LIST);

  private JsonPaths() {
  }

  /**
   * @param k8sPath a Kubernetes JSONPath
   * @return the compiled path, or null when it cannot be compiled
   */
  public static JsonPath compile(String k8sPath) {
    String p = k8sPath.trim();
    if (p.startsWith("{") && p.endsWith("}")) {
      p = p.substring(1, p.length() - 1).trim();
    }
    if (!p.startsWith("$")) {
      p = p.startsWith(".") || p.startsWith("[") ? "$" + p : "$." + p;
    }
    try {
      return JsonPath.compile(p);
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** @return a parsed document to evaluate several paths on */
  public static DocumentContext document(JsonObject object) {
    return JsonPath.using(CONF).parse(plain(object));
  }

  /**
   * @param v a Vert.x JSON value
   * @return the same value as plain maps and lists (JsonPath reads those directly: no re-parse, so no parser depth
   *     limit applies; json-smart refuses documents nested over 400 levels)
   */
  static Object plain(Object v) {
    return io.mvproxy.api.PrettyJson.plain(v);
  }

  /**
   * @param doc  a document from {@link #document}
   * @param path a compiled path or null
   * @return the first result (Vert.x JSON types for objects and arrays), or null when none
   */
  public static Object first(DocumentContext doc, JsonPath path) {
    if (path == null) {
      return null;
    }
    Object r;
    try {
      r = doc.read(path);
    } catch (RuntimeException e) {
      return null;
    }
    if (r instanceof List<?> l) {
      if (l.isEmpty()) {
        return null;
      }
      r = l.get(0);
    }
    return toVertx(r);
  }

  @SuppressWarnings("unchecked")
  private static Object toVertx(Object o) {
    if (o instanceof Map<?, ?> m) {
      return new JsonObject((Map<String, Object>) m);
    } else if (o instanceof List<?> l) {
      return new JsonArray((List<Object>) l);
    }
    return o;
  }

  /**
   * @param object an object
   * @param dotted a dotted path such as {@code .spec.replicas}
   * @return the value, or null when a segment is missing
   */
  public static Object get(JsonObject object, String dotted) {
    Object cur = object;
    for (String seg : segments(dotted)) {
      if (!(cur instanceof JsonObject o)) {
        return null;
      }
      cur = o.getValue(seg);
    }
    return cur;
  }

  /**
   * Sets a value, creating missing intermediate objects.
   *
   * @param object the object to change
   * @param dotted a dotted path such as {@code .spec.replicas}
   * @param value  the value
   */
  public static void set(JsonObject object, String dotted, Object value) {
    String[] segs = segments(dotted);
    JsonObject cur = object;
    for (int i = 0; i < segs.length - 1; i++) {
      if (!(cur.getValue(segs[i]) instanceof JsonObject next)) {
        JsonObject created = new JsonObject();
        cur.put(segs[i], created);
        cur = created;
      } else {
        cur = next;
      }
    }
    cur.put(segs[segs.length - 1], value);
  }

  private static String[] segments(String dotted) {
    String p = dotted.startsWith(".") ? dotted.substring(1) : dotted;
    return p.split("\\.");
  }
}
