package io.mvproxy.example.wardle;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The sample server's OpenAPI documents, as kubernetes/sample-apiserver serves them (generated there from its Go
 * types, written out here): {@code /openapi/v2} (Swagger 2.0) and {@code /openapi/v3/apis/wardle.example.com/v1alpha1}
 * (OpenAPI 3.0) describe {@code flunders} (the operations of {@link WardleApi#VERBS}) and the kinds {@code Flunder}
 * and {@code FlunderList} with {@code x-kubernetes-group-version-kind}, so {@code kubectl explain flunders} finds
 * them through the aggregator; {@code /openapi/v3} is the root listing that one document with its hash
 * ({@code kube-openapi/pkg/handler3}). Stateless; the documents are built once.
 */
public final class WardleOpenApi {
  /** Path of the group-version's v3 document. */
  public static final String V3_PATH = "/openapi/v3/apis/" + WardleApi.GROUP + "/" + WardleApi.VERSION;
  private static final String PKG = "com.example.wardle.v1alpha1.";
  private static final String META = "io.k8s.apimachinery.pkg.apis.meta.v1.";
  private static final JsonObject V3 = document(true);
  private static final JsonObject V2 = document(false);
  private static final String V3_HASH = SampleApiServer.sha512Hex(V3.encode());

  private WardleOpenApi() {
  }

  /** @return the OpenAPI 3.0 document of {@code wardle.example.com/v1alpha1} (a copy) */
  public static JsonObject v3() {
    return V3.copy();
  }

  /** @return the Swagger 2.0 document of the server (a copy) */
  public static JsonObject v2() {
    return V2.copy();
  }

  /** @return the v3 root: {@code {"paths":{"apis/wardle.example.com/v1alpha1":{"serverRelativeURL":...}}}} */
  public static JsonObject v3Root() {
    return new JsonObject().put("paths", new JsonObject().put(V3_PATH.substring("/openapi/v3/".length()),
        new JsonObject().put("serverRelativeURL", V3_PATH + "?hash=" + V3_HASH)));
  }

  /** @return the ETag of the v3 document (its hash, quoted) */
  public static String v3Etag() {
    return "\"" + V3_HASH + "\"";
  }

  private static JsonObject document(boolean v3) {
    String ref = v3 ? "#/components/schemas/" : "#/definitions/";
    JsonObject schemas = new JsonObject();
    schemas.put(PKG + "Flunder", object("Flunder is an example type with a spec and a status.")
        .put("properties", typeMeta().put("metadata", refTo(ref, META + "ObjectMeta", "Standard object's metadata."))
            .put("spec", refTo(ref, PKG + "FlunderSpec", "The desired state of the flunder."))
            .put("status", refTo(ref, PKG + "FlunderStatus", "The observed state of the flunder.")))
        .put("x-kubernetes-group-version-kind", gvk(WardleApi.KIND)));
    schemas.put(PKG + "FlunderList", object("FlunderList is a list of Flunder objects.")
        .put("required", new JsonArray().add("items"))
        .put("properties", typeMeta().put("metadata", refTo(ref, META + "ListMeta", "Standard list metadata."))
            .put("items", new JsonObject().put("type", "array").put("description", "The flunders.")
                .put("items", refTo(ref, PKG + "Flunder", null))))
        .put("x-kubernetes-group-version-kind", gvk(WardleApi.KIND + "List")));
    schemas.put(PKG + "FlunderSpec", object("FlunderSpec is the specification of a Flunder.")
        .put("properties", new JsonObject()
            .put("reference", string("A name of another flunder or fischer, depending on the ReferenceType."))
            .put("referenceType", string("The reference type, defaults to \"Flunder\" if reference is set."))));
    schemas.put(PKG + "FlunderStatus", object("FlunderStatus is the status of a Flunder."));
    schemas.put(META + "ObjectMeta", object("ObjectMeta is metadata that all persisted resources must have.")
        .put("properties", new JsonObject().put("name", string("Name must be unique within a namespace."))
            .put("namespace", string("Namespace defines the space within which each name must be unique."))
            .put("uid", string("UID is the unique in time and space value for this object."))
            .put("resourceVersion", string("An opaque value that represents the internal version of this object."))
            .put("creationTimestamp", string("The time this object was created.").put("format", "date-time"))
            .put("labels", stringMap("Map of string keys and values to organize and categorize objects."))
            .put("annotations", stringMap("Unstructured key value map stored with a resource."))));
    schemas.put(META + "ListMeta", object("ListMeta describes metadata that synthetic resources must have.")
        .put("properties", new JsonObject()
            .put("resourceVersion", string("The version of the list, for watches."))
            .put("continue", string("Set when more items are available: the token of the next page."))));
    String collection = WardleApi.PREFIX + "/namespaces/{namespace}/" + WardleApi.RESOURCE;
    JsonObject paths = new JsonObject()
        .put(WardleApi.PREFIX + "/" + WardleApi.RESOURCE, new JsonObject()
            .put("get", op(v3, ref, "listFlunderForAllNamespaces", "list", "list or watch objects of kind Flunder",
                PKG + "FlunderList")))
        .put(collection, new JsonObject()
            .put("get", op(v3, ref, "listNamespacedFlunder", "list", "list or watch objects of kind Flunder",
                PKG + "FlunderList"))
            .put("post", op(v3, ref, "createNamespacedFlunder", "post", "create a Flunder", PKG + "Flunder"))
            .put("parameters", new JsonArray().add(param(v3, "namespace"))))
        .put(collection + "/{name}", new JsonObject()
            .put("get", op(v3, ref, "readNamespacedFlunder", "get", "read the specified Flunder", PKG + "Flunder"))
            .put("delete", op(v3, ref, "deleteNamespacedFlunder", "delete", "delete a Flunder", PKG + "Flunder"))
            .put("parameters", new JsonArray().add(param(v3, "name")).add(param(v3, "namespace"))));
    JsonObject info = new JsonObject().put("title", "Wardle").put("version", WardleApi.VERSION);
    return v3
        ? new JsonObject().put("openapi", "3.0.0").put("info", info).put("paths", paths)
            .put("components", new JsonObject().put("schemas", schemas))
        : new JsonObject().put("swagger", "2.0").put("info", info).put("paths", paths).put("definitions", schemas);
  }

  private static JsonObject op(boolean v3, String ref, String id, String action, String description, String schema) {
    JsonObject ok = new JsonObject().put("description", "OK");
    JsonObject body = new JsonObject().put("$ref", ref + schema);
    if (v3) {
      ok.put("content", new JsonObject().put("application/json", new JsonObject().put("schema", body)));
    } else {
      ok.put("schema", body);
    }
    return new JsonObject().put("description", description).put("operationId", id)
        .put("tags", new JsonArray().add("wardleExampleCom_v1alpha1"))
        .put("responses", new JsonObject().put("200", ok))
        .put("x-kubernetes-action", action)
        .put("x-kubernetes-group-version-kind", gvk(WardleApi.KIND).getJsonObject(0));
  }

  private static JsonObject param(boolean v3, String name) {
    JsonObject p = new JsonObject().put("name", name).put("in", "path").put("required", true)
        .put("description", name + " of the " + ("name".equals(name) ? "Flunder" : "objects") + ".");
    return v3 ? p.put("schema", new JsonObject().put("type", "string")) : p.put("type", "string");
  }

  private static JsonObject typeMeta() {
    return new JsonObject()
        .put("apiVersion", string("APIVersion defines the versioned schema of this representation of an object."))
        .put("kind", string("Kind is a string value representing the REST resource this object represents."));
  }

  private static JsonObject object(String description) {
    return new JsonObject().put("description", description).put("type", "object");
  }

  private static JsonObject string(String description) {
    return new JsonObject().put("description", description).put("type", "string");
  }

  private static JsonObject stringMap(String description) {
    return object(description).put("additionalProperties", new JsonObject().put("type", "string"));
  }

  private static JsonObject refTo(String prefix, String schema, String description) {
    JsonObject r = new JsonObject().put("$ref", prefix + schema);
    if (description == null) {
      return r;
    }
    // OpenAPI 3.0 ignores siblings of $ref: kube-openapi's v3 wraps it in allOf to keep the description
    return prefix.startsWith("#/components/") ? new JsonObject().put("allOf", new JsonArray().add(r))
        .put("description", description) : r.put("description", description);
  }

  private static JsonArray gvk(String kind) {
    return new JsonArray().add(new JsonObject().put("group", WardleApi.GROUP).put("kind", kind)
        .put("version", WardleApi.VERSION));
  }
}
