package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.StatusException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;

/**
 * The type checks kube-apiserver's typed JSON decoder ({@code sigs.k8s.io/json}, Go's {@code encoding/json}) makes on
 * the top-level fields of a built-in kind (those of the kind's own Go struct, e.g. {@code ConfigMap.data}): a value
 * of the wrong JSON type is {@code 400 BadRequest} {@code ConfigMap in version "v1" cannot be handled as a
 * ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string}
 * ({@code apiserver/pkg/endpoints/handlers/create.go transformDecodeError}; Go's {@code UnmarshalTypeError}: the
 * struct holding the field, the field's JSON path without map keys or list indexes, the Go type of the value that
 * did not fit). Only what the schema tells exactly is checked: booleans, integers with a {@code format}, strings
 * (unless the strategy names a Go type, {@link ObjectStrategy#goTypeName}), and maps and lists of those; fields
 * holding nested structs are left to the schema's validation. Custom resources never come here: apiextensions
 * validates them unstructured and answers {@code 422}.
 */
final class TypedFields {
  private static final Map<String, String> SKIP = Map.of("apiVersion", "", "kind", "", "metadata", "");

  private TypedFields() {
  }

  /**
   * @param req the request (its kind, version schema and strategy)
   * @param o   the decoded body
   * @throws StatusException 400 BadRequest at the first field (in document order) of the wrong JSON type
   */
  static void check(CrdRequest req, JsonObject o) {
    JsonObject schema = req.version() == null ? null : req.version().schema();
    if (schema == null || !(schema.getValue("properties") instanceof JsonObject props)) {
      return;
    }
    String struct = " " + req.crd().kind();
    for (Map.Entry<String, Object> e : o) {
      String field = e.getKey();
      Object v = e.getValue();
      if (SKIP.containsKey(field) || v == null || !(props.getValue(field) instanceof JsonObject fs)) {
        continue; // null fits every Go type; unknown fields are dropped by the decoder
      }
      String named = req.strategy().goTypeName(field);
      String scalar = named != null ? named : scalar(fs);
      if (scalar != null) {
        if (!fits(fs, v)) {
          throw ObjectRules.typeError(req, field, ObjectRules.typeName(v), scalar, struct);
        }
        continue;
      }
      JsonObject elem = fs.getValue("additionalProperties") instanceof JsonObject a ? a
          : fs.getValue("items") instanceof JsonObject i ? i : null;
      String elemType = elem == null ? null : scalar(elem);
      if (elemType == null) {
        continue; // a struct or a collection of structs: its Go type name is not in the schema
      }
      boolean map = "object".equals(fs.getString("type"));
      if (map ? !(v instanceof JsonObject) : !(v instanceof JsonArray)) {
        throw ObjectRules.typeError(req, field, ObjectRules.typeName(v),
            (map ? "map[string]" : "[]") + elemType, struct);
      }
      Iterable<?> values = map ? ((JsonObject) v).getMap().values() : (JsonArray) v;
      for (Object x : values) {
        if (x != null && !fits(elem, x)) {
          throw ObjectRules.typeError(req, field, ObjectRules.typeName(x), elemType, struct);
        }
      }
    }
  }

  /** @return the Go type of a scalar schema, or null when it is not one this check knows exactly */
  private static String scalar(JsonObject s) {
    String format = s.getString("format", "");
    return switch (s.getString("type", "")) {
      case "boolean" -> "bool";
      case "string" -> "byte".equals(format) ? "[]uint8" : "string";
      case "integer" -> "int32".equals(format) || "int64".equals(format) ? format : null;
      default -> null;
    };
  }

  /** @return true when the JSON value {@code v} decodes into the scalar type of {@code s} */
  private static boolean fits(JsonObject s, Object v) {
    return switch (s.getString("type", "")) {
      case "boolean" -> v instanceof Boolean;
      case "string" -> v instanceof String;
      // a non-integral number gets Go's "number 1.5" text: left to the schema
      case "integer" -> v instanceof Number;
      default -> true;
    };
  }
}
