package io.mvproxy.registry.impl.rest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import io.mvproxy.api.StatusException;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Decodes request bodies as kube-apiserver's JSON decoder does for unstructured objects ({@code sigs.k8s.io/json},
 * apimachinery {@code pkg/util/json}): duplicate fields are recorded (the last value wins) for
 * {@link FieldValidation}; integers that fit int64 stay integers, other numbers are float64 and a number outside
 * its range ({@code 1e999999}) is refused ({@code strconv.ParseFloat: parsing "1e999999": value out of range});
 * nesting is bounded by {@link ObjectBounds#MAX_PARSE_DEPTH}.
 */
public final class StrictJson {
  private static final JsonFactory FACTORY = JsonFactory.builder()
      .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(ObjectBounds.MAX_PARSE_DEPTH).build())
      .build();
  private static final BigInteger MIN_LONG = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger MAX_LONG = BigInteger.valueOf(Long.MAX_VALUE);

  private StrictJson() {
  }

  /**
   * @param body       the bytes
   * @param duplicates collects the paths of duplicate fields ({@code spec.a}, {@code spec.list[0].b}); may be null
   * @return the value: JsonObject, JsonArray, String, Long, Double, Boolean or null
   * @throws IllegalArgumentException with the decoder's message when the body is not JSON or a number is out of
   *     range
   */
  public static Object decode(Buffer body, List<String> duplicates) {
    byte[] bytes = body.getBytes();
    if (bytes.length > 0 && (bytes[0] == 0 || bytes[0] < 0 || bytes.length > 1 && bytes[1] == 0)) {
      // Jackson skips a UTF-8 byte order mark and reads UTF-16/32; Go's decoder reads UTF-8 only and refuses both
      String go = GoJsonSyntax.syntaxError(bytes);
      if (go != null) {
        throw new IllegalArgumentException(go);
      }
    }
    try (JsonParser p = FACTORY.createParser(bytes)) {
      JsonToken t = p.nextToken();
      if (t == null) {
        throw new IllegalArgumentException("unexpected end of JSON input");
      }
      Object v = value(p, t, "", duplicates);
      if (p.nextToken() != null) {
        throw new IllegalArgumentException("invalid character after top-level value");
      }
      return v;
    } catch (IOException e) {
      if (GoJsonSyntax.syntaxError(bytes) == null) {
        byte[] utf8 = GoJsonSyntax.replaceInvalidUtf8(bytes);
        if (utf8 != bytes) {
          // Go reads a string's invalid UTF-8 as U+FFFD where Jackson refuses it: read the text Go would
          return decode(io.vertx.core.buffer.Buffer.buffer(utf8), duplicates);
        }
      }
      throw new IllegalArgumentException(StatusException.badRequest(e.getMessage()).getMessage(), e);
    }
  }

  private static Object value(JsonParser p, JsonToken t, String path, List<String> dups) throws IOException {
    switch (t) {
      case START_OBJECT -> {
        JsonObject o = new JsonObject();
        Set<String> seen = dups == null ? null : new HashSet<>();
        for (JsonToken k = p.nextToken(); k != JsonToken.END_OBJECT; k = p.nextToken()) {
          String name = p.currentName();
          String child = path.isEmpty() ? name : path + "." + name;
          if (seen != null && !seen.add(name)) {
            dups.add(child);
          }
          o.put(name, value(p, p.nextToken(), child, dups));
        }
        return o;
      }
      case START_ARRAY -> {
        JsonArray a = new JsonArray();
        int i = 0;
        for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
          a.add(value(p, e, path + "[" + i++ + "]", dups));
        }
        return a;
      }
      case VALUE_STRING -> {
        return p.getText();
      }
      case VALUE_NUMBER_INT -> {
        BigInteger b = p.getBigIntegerValue();
        if (b.compareTo(MIN_LONG) >= 0 && b.compareTo(MAX_LONG) <= 0) {
          return b.longValue();
        }
        return toDouble(p.getText());
      }
      case VALUE_NUMBER_FLOAT -> {
        return toDouble(p.getText());
      }
      case VALUE_TRUE -> {
        return Boolean.TRUE;
      }
      case VALUE_FALSE -> {
        return Boolean.FALSE;
      }
      case VALUE_NULL -> {
        return null;
      }
      default -> throw new IllegalArgumentException("unexpected " + t);
    }
  }

  private static Double toDouble(String text) {
    double d = new BigDecimal(text).doubleValue();
    if (Double.isInfinite(d)) {
      throw new IllegalArgumentException("strconv.ParseFloat: parsing \"" + text + "\": value out of range");
    }
    return d;
  }

  /**
   * @param v a decoded value (Vert.x JSON types, Jackson or YAML maps/lists)
   * @throws IllegalArgumentException when it holds a non-finite number (YAML {@code .inf}, {@code 1e999999})
   */
  public static void requireFinite(Object v) {
    List<Object> todo = new ArrayList<>();
    todo.add(v);
    while (!todo.isEmpty()) {
      Object o = todo.remove(todo.size() - 1);
      if (o instanceof JsonObject jo) {
        jo.forEach(e -> todo.add(e.getValue()));
      } else if (o instanceof JsonArray ja) {
        ja.forEach(todo::add);
      } else if (o instanceof java.util.Map<?, ?> m) {
        todo.addAll(m.values());
      } else if (o instanceof java.util.Collection<?> c) {
        todo.addAll(c);
      } else if (o instanceof com.fasterxml.jackson.databind.JsonNode n) {
        if (n.isNumber() && !Double.isFinite(n.doubleValue()) && !n.isBigDecimal() && !n.isBigInteger()) {
          throw new IllegalArgumentException("json: unsupported value: " + n.asText());
        }
        if (n.isBigDecimal() && Double.isInfinite(n.doubleValue())) {
          throw new IllegalArgumentException("strconv.ParseFloat: parsing \"" + n.asText() + "\": value out of range");
        }
        n.elements().forEachRemaining(todo::add);
      } else if (o instanceof Double d && !Double.isFinite(d) || o instanceof Float f && !Float.isFinite(f)) {
        throw new IllegalArgumentException("json: unsupported value: " + o);
      }
    }
  }
}
