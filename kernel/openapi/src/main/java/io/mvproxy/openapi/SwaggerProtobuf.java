package io.mvproxy.openapi;

import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;

/**
 * Encodes an OpenAPI v2 (swagger 2.0) JSON document into the protobuf form kubectl 1.27/1.28 ask for with
 * {@code Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf}: the {@code openapi.v2.Document}
 * message of gnostic's {@code openapiv2/OpenAPIv2.proto}. Covers what Kubernetes documents use: swagger, info, paths
 * (operations, inline body/query/path parameters, responses, vendor extensions) and definitions (schemas with
 * properties, items, additionalProperties, validations, enum/default as YAML {@code Any} and vendor extensions, as
 * {@code gnostic/openapiv2} {@code NewDocument} produces them; JSON text is valid YAML). Stateless.
 */
final class SwaggerProtobuf {
  private SwaggerProtobuf() {
  }

  /**
   * @param doc a swagger 2.0 document as JSON
   * @return the serialized {@code openapi.v2.Document}
   */
  static byte[] encode(JsonObject doc) {
    ProtoWriter w = new ProtoWriter().string(1, doc.getString("swagger", "2.0"));
    JsonObject info = doc.getJsonObject("info");
    if (info != null) {
      w.message(2, new ProtoWriter().string(1, info.getString("title")).string(2, info.getString("version"))
          .string(3, info.getString("description")));
    }
    JsonObject paths = doc.getJsonObject("paths");
    if (paths != null) {
      ProtoWriter pw = new ProtoWriter();
      for (Map.Entry<String, Object> e : paths) {
        pw.message(2, new ProtoWriter().string(1, e.getKey()).message(2, pathItem((JsonObject) e.getValue())));
      }
      w.message(8, pw);
    }
    JsonObject defs = doc.getJsonObject("definitions");
    if (defs != null) {
      w.message(9, namedSchemas(defs));
    }
    vendorExtensions(w, 16, doc);
    return w.toByteArray();
  }

  private static ProtoWriter pathItem(JsonObject item) {
    ProtoWriter w = new ProtoWriter();
    String[] methods = {"get", "put", "post", "delete", "options", "head", "patch"};
    for (int i = 0; i < methods.length; i++) {
      JsonObject op = item.getJsonObject(methods[i]);
      if (op != null) {
        w.message(2 + i, operation(op));
      }
    }
    for (Object p : item.getJsonArray("parameters", new JsonArray())) {
      w.message(9, parameter((JsonObject) p));
    }
    vendorExtensions(w, 10, item);
    return w;
  }

  private static ProtoWriter operation(JsonObject op) {
    ProtoWriter w = new ProtoWriter();
    strings(w, 1, op.getJsonArray("tags"));
    w.string(2, op.getString("summary")).string(3, op.getString("description"))
        .string(5, op.getString("operationId"));
    strings(w, 6, op.getJsonArray("produces"));
    strings(w, 7, op.getJsonArray("consumes"));
    for (Object p : op.getJsonArray("parameters", new JsonArray())) {
      w.message(8, parameter((JsonObject) p));
    }
    JsonObject responses = op.getJsonObject("responses");
    if (responses != null) {
      ProtoWriter rw = new ProtoWriter();
      for (Map.Entry<String, Object> e : responses) {
        if (e.getKey().startsWith("x-")) {
          continue;
        }
        JsonObject r = (JsonObject) e.getValue();
        ProtoWriter resp = new ProtoWriter().string(1, r.getString("description"));
        if (r.getJsonObject("schema") != null) {
          resp.message(2, new ProtoWriter().message(1, schema(r.getJsonObject("schema"))));
        }
        rw.message(1, new ProtoWriter().string(1, e.getKey()).message(2, new ProtoWriter().message(1, resp)));
      }
      w.message(9, rw);
    }
    strings(w, 10, op.getJsonArray("schemes"));
    w.bool(11, op.getBoolean("deprecated", false));
    vendorExtensions(w, 13, op);
    return w;
  }

  /** A {@code ParametersItem}: a body parameter, or a query/path/header parameter sub-schema. */
  private static ProtoWriter parameter(JsonObject p) {
    String in = p.getString("in", "");
    ProtoWriter param;
    if (p.containsKey("$ref")) {
      return new ProtoWriter().message(2, new ProtoWriter().string(1, p.getString("$ref")));
    }
    if ("body".equals(in)) {
      ProtoWriter b = new ProtoWriter().string(1, p.getString("description")).string(2, p.getString("name"))
          .string(3, in).bool(4, p.getBoolean("required", false));
      if (p.getJsonObject("schema") != null) {
        b.message(5, schema(p.getJsonObject("schema")));
      }
      vendorExtensions(b, 6, p);
      param = new ProtoWriter().message(1, b);
    } else {
      boolean query = "query".equals(in);
      boolean path = "path".equals(in);
      // QueryParameterSubSchema (3) and FormData (2) have allow_empty_value at 5, shifting type..unique_items by one
      int shift = query || "formData".equals(in) ? 1 : 0;
      ProtoWriter s = new ProtoWriter().bool(1, p.getBoolean("required", false)).string(2, in)
          .string(3, p.getString("description")).string(4, p.getString("name"))
          .string(5 + shift, p.getString("type")).string(6 + shift, p.getString("format"))
          .bool(19 + shift, p.getBoolean("uniqueItems", false));
      int oneof = query ? 3 : path ? 4 : "formData".equals(in) ? 2 : 1;
      param = new ProtoWriter().message(2, new ProtoWriter().message(oneof, s));
    }
    return new ProtoWriter().message(1, param);
  }

  private static ProtoWriter namedSchemas(JsonObject map) {
    ProtoWriter w = new ProtoWriter();
    for (Map.Entry<String, Object> e : map) {
      if (e.getValue() instanceof JsonObject s) {
        w.message(1, new ProtoWriter().string(1, e.getKey()).message(2, schema(s)));
      }
    }
    return w;
  }

  /** An {@code openapi.v2.Schema}. */
  static ProtoWriter schema(JsonObject s) {
    ProtoWriter w = new ProtoWriter().string(1, s.getString("$ref")).string(2, str(s, "format"))
        .string(3, str(s, "title")).string(4, str(s, "description"));
    if (s.containsKey("default")) {
      w.message(5, any(s.getValue("default")));
    }
    w.dbl(6, num(s, "multipleOf")).dbl(7, num(s, "maximum")).bool(8, bool(s, "exclusiveMaximum"))
        .dbl(9, num(s, "minimum")).bool(10, bool(s, "exclusiveMinimum"))
        .int64(11, (long) num(s, "maxLength")).int64(12, (long) num(s, "minLength")).string(13, str(s, "pattern"))
        .int64(14, (long) num(s, "maxItems")).int64(15, (long) num(s, "minItems"))
        .bool(16, bool(s, "uniqueItems")).int64(17, (long) num(s, "maxProperties"))
        .int64(18, (long) num(s, "minProperties"));
    if (s.getValue("required") instanceof JsonArray req) {
      strings(w, 19, req);
    }
    if (s.getValue("enum") instanceof JsonArray en) {
      en.forEach(v -> w.message(20, any(v)));
    }
    Object ap = s.getValue("additionalProperties");
    if (ap instanceof JsonObject apo) {
      w.message(21, new ProtoWriter().message(1, schema(apo)));
    } else if (ap instanceof Boolean b) {
      w.message(21, new ProtoWriter().oneofBool(2, b));
    }
    Object type = s.getValue("type");
    if (type instanceof String t) {
      w.message(22, new ProtoWriter().repeatedString(1, t));
    } else if (type instanceof JsonArray ts) {
      ProtoWriter tw = new ProtoWriter();
      strings(tw, 1, ts);
      w.message(22, tw);
    }
    Object items = s.getValue("items");
    if (items instanceof JsonObject io) {
      w.message(23, new ProtoWriter().message(1, schema(io)));
    } else if (items instanceof JsonArray ia) {
      ProtoWriter iw = new ProtoWriter();
      ia.forEach(i -> iw.message(1, schema((JsonObject) i)));
      w.message(23, iw);
    }
    if (s.getValue("allOf") instanceof JsonArray all) {
      all.forEach(a -> w.message(24, schema((JsonObject) a)));
    }
    if (s.getValue("properties") instanceof JsonObject props) {
      w.message(25, namedSchemas(props));
    }
    w.string(26, str(s, "discriminator")).bool(27, bool(s, "readOnly"));
    if (s.containsKey("example")) {
      w.message(30, any(s.getValue("example")));
    }
    vendorExtensions(w, 31, s);
    return w;
  }

  /** Writes every {@code x-*} key of {@code o} as a repeated {@code NamedAny} at {@code field}. */
  private static void vendorExtensions(ProtoWriter w, int field, JsonObject o) {
    for (Map.Entry<String, Object> e : o) {
      if (e.getKey().startsWith("x-")) {
        w.message(field, new ProtoWriter().string(1, e.getKey()).message(2, any(e.getValue())));
      }
    }
  }

  /** An {@code openapi.v2.Any} holding the value as YAML (JSON text, which YAML parsers accept). */
  private static ProtoWriter any(Object value) {
    return new ProtoWriter().string(2, Json.encode(value) + "\n");
  }

  private static void strings(ProtoWriter w, int field, JsonArray a) {
    if (a != null) {
      a.forEach(v -> w.repeatedString(field, String.valueOf(v)));
    }
  }

  private static String str(JsonObject s, String k) {
    return s.getValue(k) instanceof String v ? v : null;
  }

  private static double num(JsonObject s, String k) {
    return s.getValue(k) instanceof Number n ? n.doubleValue() : 0;
  }

  private static boolean bool(JsonObject s, String k) {
    return Boolean.TRUE.equals(s.getValue(k));
  }
}
