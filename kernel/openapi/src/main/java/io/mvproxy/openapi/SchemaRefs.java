package io.mvproxy.openapi;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;

/**
 * Reference helpers shared by the v2 and v3 builders: the canonical Kubernetes definition names, the v2
 * ({@code #/definitions/}) and v3 ({@code #/components/schemas/}) prefixes, and the rewrite of a v2-style schema tree
 * into v3 style. Follows {@code apiextensions-apiserver/pkg/controller/openapi/builder/builder.go}
 * ({@code refForOpenAPIVersion}) and {@code kube-openapi/pkg/util.ToRESTFriendlyName}.
 */
final class SchemaRefs {
  /** Prefix of an OpenAPI v2 definition reference. */
  static final String V2_PREFIX = "#/definitions/";
  /** Prefix of an OpenAPI v3 schema reference. */
  static final String V3_PREFIX = "#/components/schemas/";
  /** Definition name of ObjectMeta. */
  static final String OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
  /** Definition name of ListMeta. */
  static final String LIST_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta";
  /** Definition name of Status. */
  static final String STATUS = "io.k8s.apimachinery.pkg.apis.meta.v1.Status";
  /** Definition name of DeleteOptions. */
  static final String DELETE_OPTIONS = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions";
  /** Definition name of Patch. */
  static final String PATCH = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch";
  /** Definition name of WatchEvent. */
  static final String WATCH_EVENT = "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent";
  /** Definition name of autoscaling/v1 Scale. */
  static final String SCALE = "io.k8s.api.autoscaling.v1.Scale";

  private SchemaRefs() {
  }

  /**
   * The Kubernetes definition name of a custom kind: the group's dot-separated labels reversed, then version and
   * kind, e.g. {@code stable.example.com/v1 CronTab -> com.example.stable.v1.CronTab}.
   *
   * @param group   API group (may be empty)
   * @param version API version
   * @param kind    kind
   * @return the definition name
   */
  static String definitionName(String group, String version, String kind) {
    if (group.isEmpty()) {
      return "io.k8s.api.core." + version + "." + kind; // kube-apiserver's name for core kinds
    }
    StringBuilder sb = new StringBuilder();
    String[] labels = group.split("\\.");
    for (int i = labels.length - 1; i >= 0; i--) {
      if (!labels[i].isEmpty()) {
        sb.append(labels[i]).append('.');
      }
    }
    return sb.append(version).append('.').append(kind).toString();
  }

  /**
   * @param v2   true for v2
   * @param name a definition name
   * @return {@code {"$ref": prefix + name}}
   */
  static JsonObject ref(boolean v2, String name) {
    return new JsonObject().put("$ref", (v2 ? V2_PREFIX : V3_PREFIX) + name);
  }

  /**
   * A reference with a description: v2 puts both side by side; v3 wraps the reference in {@code allOf} as
   * {@code kube-openapi/pkg/builder3} does, because OpenAPI 3.0 ignores siblings of {@code $ref}.
   *
   * @param v2          true for v2
   * @param name        the definition name
   * @param description the description, or null
   * @return the schema
   */
  static JsonObject describedRef(boolean v2, String name, String description) {
    JsonObject s = new JsonObject();
    if (description != null) {
      s.put("description", description);
    }
    if (v2) {
      return s.put("$ref", V2_PREFIX + name);
    }
    return s.put("allOf", new JsonArray().add(ref(false, name)));
  }

  /**
   * Rewrites, in place, a schema tree written with v2 references into v3 style: prefixes changed and references
   * with siblings wrapped in {@code allOf}.
   *
   * @param node a schema (or any JSON value inside one)
   * @return the same node
   */
  static Object toV3(Object node) {
    if (node instanceof JsonObject o) {
      for (String k : new ArrayList<>(o.fieldNames())) {
        o.put(k, toV3(o.getValue(k)));
      }
      Object ref = o.getValue("$ref");
      if (ref instanceof String r && r.startsWith(V2_PREFIX)) {
        String v3 = V3_PREFIX + r.substring(V2_PREFIX.length());
        if (o.size() == 1) {
          o.put("$ref", v3);
        } else {
          o.remove("$ref");
          o.put("allOf", new JsonArray().add(new JsonObject().put("$ref", v3)));
        }
      }
      return o;
    }
    if (node instanceof JsonArray a) {
      for (int i = 0; i < a.size(); i++) {
        a.set(i, toV3(a.getValue(i)));
      }
    }
    return node;
  }
}
