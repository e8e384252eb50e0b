package io.mvproxy.openapi;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Turns a CRD version's {@code openAPIV3Schema} into the published object and list schemas, as
 * {@code apiextensions-apiserver/pkg/controller/openapi/builder/builder.go} ({@code buildKubeNative},
 * {@code addEmbeddedProperties}, {@code buildListSchema}) does, with the structural {@code Unfold} of
 * {@code x-kubernetes-int-or-string} and, for v2, {@code controller/openapi/v2/conversion.go}
 * ({@code ToStructuralOpenAPIV2}: no {@code allOf/anyOf/oneOf/not}, no {@code nullable}, no properties or items under
 * {@code x-kubernetes-preserve-unknown-fields}, untyped arrays without items). Stateless; inputs are not modified.
 */
final class CrdSchemas {
  private static final Set<String> NOT_STRUCTURAL = Set.of("$schema", "id", "$ref", "example", "externalDocs",
      "definitions", "dependencies", "additionalItems", "patternProperties");
  private static final String API_VERSION_DESC = "APIVersion defines the versioned schema of this representation "
      + "of an object. Servers should convert recognized schemas to the latest internal value, and may reject "
      + "unrecognized values. More info: "
      + "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
  private static final String KIND_DESC = "Kind is a string value representing the REST resource this object "
      + "represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. "
      + "In CamelCase. More info: "
      + "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";
  private static final String METADATA_DESC = "Standard object's metadata. More info: "
      + "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
  private static final String LIST_METADATA_DESC = "Standard list metadata. More info: "
      + "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";

  private CrdSchemas() {
  }

  /**
   * The published object schema.
   *
   * @param schema               the CRD version's {@code openAPIV3Schema}, or null when it has none
   * @param crdPreserveUnknown   the legacy {@code spec.preserveUnknownFields}
   * @param v2                   true for OpenAPI v2 (kubectl validation flavour), false for v3
   * @param gvk                  the {@code {group, version, kind}} object
   * @return a new schema carrying {@code x-kubernetes-group-version-kind} as an array
   */
  static JsonObject objectSchema(JsonObject schema, boolean crdPreserveUnknown, boolean v2, JsonObject gvk) {
    JsonObject ret;
    if (schema == null || (v2 && (crdPreserveUnknown
        || Boolean.TRUE.equals(schema.getValue("x-kubernetes-preserve-unknown-fields"))))) {
      // kubectl's v2 validation would reject every field not listed, so publish a bare object.
      ret = new JsonObject().put("type", "object");
    } else {
      ret = structural(schema.copy());
      if (v2) {
        toV2(ret);
      }
      JsonObject props = properties(ret);
      props.put("metadata", SchemaRefs.describedRef(v2, SchemaRefs.OBJECT_META, METADATA_DESC));
      props.put("apiVersion", typeMeta(API_VERSION_DESC));
      props.put("kind", typeMeta(KIND_DESC));
      addEmbeddedProperties(ret, v2);
      if (!ret.containsKey("type")) {
        ret.put("type", "object");
      }
    }
    return ret.put("x-kubernetes-group-version-kind", new JsonArray().add(gvk.copy()));
  }

  /**
   * The list schema ({@code buildListSchema}).
   *
   * @param v2         true for v2
   * @param objectName the definition name of the item kind
   * @param plural     the resource plural (for the items description)
   * @param gvk        the item {@code {group, version, kind}}
   * @param listKind   the list kind
   * @return a new schema
   */
  static JsonObject listSchema(boolean v2, String objectName, String plural, JsonObject gvk, String listKind) {
    JsonObject props = new JsonObject()
        .put("apiVersion", typeMeta(API_VERSION_DESC))
        .put("items", new JsonObject().put("description", "List of " + plural + ". More info: "
                + "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md")
            .put("type", "array").put("items", SchemaRefs.ref(v2, objectName)))
        .put("kind", typeMeta(KIND_DESC))
        .put("metadata", SchemaRefs.describedRef(v2, SchemaRefs.LIST_META, LIST_METADATA_DESC));
    return new JsonObject().put("description", listKind + " is a list of " + gvk.getString("kind"))
        .put("type", "object").put("required", new JsonArray().add("items")).put("properties", props)
        .put("x-kubernetes-group-version-kind", new JsonArray().add(gvk.copy().put("kind", listKind)));
  }

  private static JsonObject typeMeta(String description) {
    return new JsonObject().put("description", description).put("type", "string");
  }

  private static JsonObject properties(JsonObject s) {
    JsonObject p = s.getJsonObject("properties");
    if (p == null) {
      p = new JsonObject();
      s.put("properties", p);
    }
    return p;
  }

  /** Drops non-structural keywords and unfolds int-or-string, recursively, in place. */
  private static JsonObject structural(JsonObject s) {
    NOT_STRUCTURAL.forEach(s::remove);
    if (Boolean.TRUE.equals(s.getValue("x-kubernetes-int-or-string")) && !isIntOrStringPattern(s)) {
      JsonArray unfold = new JsonArray().add(new JsonObject().put("type", "integer"))
          .add(new JsonObject().put("type", "string"));
      if (!s.containsKey("anyOf")) {
        s.put("anyOf", unfold);
      } else {
        JsonArray allOf = new JsonArray().add(new JsonObject().put("anyOf", unfold));
        JsonArray old = s.getJsonArray("allOf");
        if (old != null) {
          allOf.addAll(old);
        }
        s.put("allOf", allOf);
      }
    }
    forEachChild(s, CrdSchemas::structural);
    return s;
  }

  private static boolean isIntOrStringPattern(JsonObject s) {
    JsonArray anyOf = s.getJsonArray("anyOf");
    if (anyOf == null || anyOf.size() != 2) {
      JsonArray allOf = s.getJsonArray("allOf");
      return allOf != null && !allOf.isEmpty() && allOf.getValue(0) instanceof JsonObject first
          && isIntOrStringPattern(new JsonObject().put("anyOf", first.getValue("anyOf")));
    }
    return anyOf.getValue(0) instanceof JsonObject a && anyOf.getValue(1) instanceof JsonObject b
        && "integer".equals(a.getValue("type")) && "string".equals(b.getValue("type"));
  }

  /** {@code ToStructuralOpenAPIV2}, in place (parents first, so nullable children are still visible). */
  private static void toV2(JsonObject s) {
    s.remove("allOf");
    s.remove("anyOf");
    s.remove("oneOf");
    s.remove("not");
    if (Boolean.TRUE.equals(s.remove("nullable"))) {
      s.remove("type");
      s.remove("items");
      s.remove("properties");
    }
    if (Boolean.TRUE.equals(s.getValue("x-kubernetes-preserve-unknown-fields"))) {
      s.remove("items");
      s.remove("properties");
    }
    if ("array".equals(s.getValue("type")) && !(s.getValue("items") instanceof JsonObject)) {
      s.remove("type");
      s.remove("items");
    }
    JsonObject props = s.getJsonObject("properties");
    JsonArray required = s.getJsonArray("required");
    if (props != null && required != null) {
      JsonArray kept = new JsonArray();
      for (Object r : required) {
        Object p = props.getValue(String.valueOf(r));
        if (!(p instanceof JsonObject po && Boolean.TRUE.equals(po.getValue("nullable")))) {
          kept.add(r);
        }
      }
      s.put("required", kept);
    }
    if (s.getValue("required") instanceof JsonArray r && r.isEmpty()) {
      s.remove("required");
    }
    forEachChild(s, child -> {
      toV2(child);
      return child;
    });
  }

  /** {@code addEmbeddedProperties}, in place (children first). */
  private static void addEmbeddedProperties(JsonObject s, boolean v2) {
    forEachChild(s, child -> {
      addEmbeddedProperties(child, v2);
      return child;
    });
    if (v2 && Boolean.TRUE.equals(s.getValue("x-kubernetes-preserve-unknown-fields"))) {
      return;
    }
    if (Boolean.TRUE.equals(s.getValue("x-kubernetes-embedded-resource"))) {
      JsonObject props = properties(s);
      props.put("apiVersion", typeMeta("apiVersion defines the versioned schema of this representation of an "
          + "object. More info: "
          + "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"));
      props.put("kind", typeMeta("kind is a string value representing the type of this object. In CamelCase. "
          + "More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"));
      props.put("metadata", SchemaRefs.describedRef(v2, SchemaRefs.OBJECT_META, METADATA_DESC));
      JsonArray required = s.getJsonArray("required");
      if (required == null) {
        required = new JsonArray();
        s.put("required", required);
      }
      if (!required.contains("kind")) {
        required.add("kind");
      }
      if (!required.contains("apiVersion")) {
        required.add("apiVersion");
      }
    }
  }

  /**
   * Applies {@code f} to every direct sub-schema ({@code properties.*}, {@code items}, {@code additionalProperties},
   * {@code allOf/anyOf/oneOf[*]}, {@code not}) and stores what it returns.
   */
  private static void forEachChild(JsonObject s, java.util.function.UnaryOperator<JsonObject> f) {
    if (s.getValue("properties") instanceof JsonObject props) {
      for (String k : new ArrayList<>(props.fieldNames())) {
        if (props.getValue(k) instanceof JsonObject p) {
          props.put(k, f.apply(p));
        }
      }
    }
    for (String k : List.of("items", "additionalProperties", "not")) {
      if (s.getValue(k) instanceof JsonObject c) {
        s.put(k, f.apply(c));
      }
    }
    for (String k : List.of("allOf", "anyOf", "oneOf", "items")) {
      if (s.getValue(k) instanceof JsonArray arr) {
        for (int i = 0; i < arr.size(); i++) {
          if (arr.getValue(i) instanceof JsonObject c) {
            arr.set(i, f.apply(c));
          }
        }
      }
    }
  }
}
