package io.mvproxy.openapi;

import io.mvproxy.api.GroupVersion;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The OpenAPI fragments of one CustomResourceDefinition ({@code apiextensions.k8s.io/v1}), per served version, in
 * the shape {@link io.mvproxy.api.ApiSource#openApiV3(GroupVersion)} and
 * {@link io.mvproxy.api.ApiSource#openApiV2(GroupVersion)} return: v3 {@code {"paths", "components": {"schemas"}}}
 * and v2 {@code {"paths", "definitions"}}. Follows
 * {@code apiextensions-apiserver/pkg/controller/openapi/builder/builder.go}: the object schema is named
 * {@code <reversed group>.<version>.<Kind>} (e.g. {@code com.example.stable.v1.CronTab}) and carries
 * {@code x-kubernetes-group-version-kind} as an array; {@code metadata}, {@code apiVersion} and {@code kind} are
 * added; operations carry the GVK as an object and POST/PUT/PATCH a {@code fieldValidation} query parameter, which is
 * how kubectl decides to rely on server-side field validation. The referenced built-in definitions are included so
 * that every {@code $ref} of a fragment resolves inside it.
 *
 * <p>Immutable and thread-safe; building is CPU work proportional to the schema size (milliseconds even for the
 * prometheus-operator CRDs), so build fragments once per CRD change, off the event loop for large CRDs.
 */
public final class CrdOpenApi {
  private final JsonObject crd;
  private final String group;
  private final String kind;
  private final String listKind;
  private final String plural;
  private final boolean namespaced;
  private final MetaDefinitions meta = new MetaDefinitions();

  /**
   * @param crd the CRD manifest as JSON (not modified; copied)
   * @throws IllegalArgumentException when {@code spec.group}, {@code spec.names.kind} or {@code spec.names.plural}
   *                                  is missing
   */
  public CrdOpenApi(JsonObject crd) {
    this.crd = crd.copy();
    JsonObject spec = this.crd.getJsonObject("spec", new JsonObject());
    JsonObject names = spec.getJsonObject("names", new JsonObject());
    String g = spec.getString("group");
    if (g == null) {
      throw new IllegalArgumentException("CRD has no spec.group");
    }
    this.group = g; // "" for the CRD-shaped descriptions of core built-in kinds
    this.kind = require(names.getString("kind"), "spec.names.kind");
    this.plural = require(names.getString("plural"), "spec.names.plural");
    this.listKind = names.getString("listKind", kind + "List");
    this.namespaced = !"Cluster".equals(spec.getString("scope", "Namespaced"));
  }

  private static String require(String v, String field) {
    if (v == null || v.isEmpty()) {
      throw new IllegalArgumentException("CRD has no " + field);
    }
    return v;
  }

  /** @return the names of the versions with {@code served: true}, in manifest order */
  public List<String> servedVersions() {
    List<String> out = new ArrayList<>();
    for (Object v : crd.getJsonObject("spec").getJsonArray("versions", new JsonArray())) {
      if (v instanceof JsonObject o && o.getBoolean("served", true) && o.getString("name") != null) {
        out.add(o.getString("name"));
      }
    }
    return out;
  }

  /**
   * @param version a version name
   * @return the group-version
   */
  public GroupVersion groupVersion(String version) {
    return new GroupVersion(group, version);
  }

  /**
   * The Kubernetes definition name of a kind, e.g. {@code com.example.stable.v1.CronTab}.
   *
   * @param group   API group
   * @param version API version
   * @param kind    kind
   * @return the name used under {@code components.schemas} and {@code definitions}
   */
  public static String definitionName(String group, String version, String kind) {
    return SchemaRefs.definitionName(group, version, kind);
  }

  /**
   * The OpenAPI v3 fragment of one version.
   *
   * @param version a version listed in {@code spec.versions}
   * @return {@code {"paths": {...}, "components": {"schemas": {...}}}}, a new object
   * @throws IllegalArgumentException when the CRD has no such version
   */
  public JsonObject v3(String version) {
    JsonObject v = versionEntry(version);
    CrdPaths.Names n = names(version);
    JsonObject schemas = new JsonObject();
    meta.closure(false, referencedMeta(v)).forEach(e -> schemas.put(e.getKey(), e.getValue()));
    schemas.put(n.objectDef(), CrdSchemas.objectSchema(schema(v), legacyPreserveUnknown(), false, n.gvk()));
    schemas.put(n.listDef(), CrdSchemas.listSchema(false, n.objectDef(), plural, n.gvk(), listKind));
    JsonObject paths = CrdPaths.build(n, false, hasSubresource(v, "status"), hasSubresource(v, "scale"));
    return new JsonObject().put("paths", paths).put("components", new JsonObject().put("schemas", schemas));
  }

  /**
   * The OpenAPI v2 fragment of one version (kubectl-validation flavour: {@code ToStructuralOpenAPIV2}).
   *
   * @param version a version listed in {@code spec.versions}
   * @return {@code {"paths": {...}, "definitions": {...}}}, a new object
   * @throws IllegalArgumentException when the CRD has no such version
   */
  public JsonObject v2(String version) {
    JsonObject v = versionEntry(version);
    CrdPaths.Names n = names(version);
    JsonObject defs = meta.closure(true, referencedMeta(v));
    defs.put(n.objectDef(), CrdSchemas.objectSchema(schema(v), legacyPreserveUnknown(), true, n.gvk()));
    defs.put(n.listDef(), CrdSchemas.listSchema(true, n.objectDef(), plural, n.gvk(), listKind));
    JsonObject paths = CrdPaths.build(n, true, hasSubresource(v, "status"), hasSubresource(v, "scale"));
    return new JsonObject().put("paths", paths).put("definitions", defs);
  }

  private CrdPaths.Names names(String version) {
    return new CrdPaths.Names(group, version, kind, plural, namespaced,
        SchemaRefs.definitionName(group, version, kind), SchemaRefs.definitionName(group, version, listKind));
  }

  private Set<String> referencedMeta(JsonObject v) {
    Set<String> s = new HashSet<>(Set.of(SchemaRefs.OBJECT_META, SchemaRefs.LIST_META, SchemaRefs.STATUS,
        SchemaRefs.DELETE_OPTIONS, SchemaRefs.PATCH, SchemaRefs.WATCH_EVENT));
    if (hasSubresource(v, "scale")) {
      s.add(SchemaRefs.SCALE);
    }
    return s;
  }

  private JsonObject versionEntry(String version) {
    for (Object o : crd.getJsonObject("spec").getJsonArray("versions", new JsonArray())) {
      if (o instanceof JsonObject v && version.equals(v.getString("name"))) {
        return v;
      }
    }
    throw new IllegalArgumentException("CRD " + plural + "." + group + " has no version " + version);
  }

  /** The version's schema, or the legacy top-level {@code spec.validation} one; null when none. */
  private JsonObject schema(JsonObject v) {
    JsonObject s = v.getJsonObject("schema");
    if (s == null) {
      s = crd.getJsonObject("spec").getJsonObject("validation");
    }
    return s == null ? null : s.getJsonObject("openAPIV3Schema");
  }

  private boolean legacyPreserveUnknown() {
    return crd.getJsonObject("spec").getBoolean("preserveUnknownFields", false);
  }

  private boolean hasSubresource(JsonObject v, String name) {
    JsonObject sub = v.getJsonObject("subresources");
    if (sub == null) {
      sub = crd.getJsonObject("spec").getJsonObject("subresources");
    }
    return sub != null && sub.getValue(name) != null;
  }
}
