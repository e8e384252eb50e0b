package io.mvproxy.builtin;

import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.mvproxy.openapi.CrdOpenApi;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;

/**
 * OpenAPI of the review APIs, with the fields of their Go types ({@code k8s.io/api/authorization/v1/types.go},
 * {@code authentication/v1/types.go}, {@code authentication/v1beta1}): each kind is described as a CRD-shaped
 * manifest whose schema is turned into {@code paths} and definitions by {@link CrdOpenApi}, keeping only the
 * {@code create} (POST) operation, the only verb these APIs serve. So {@code kubectl explain
 * selfsubjectaccessreviews.spec.resourceAttributes} and client-side validation see the real fields. Stateless.
 */
final class ReviewSchemas {
  private ReviewSchemas() {
  }

  private static JsonObject str(String description) {
    return new JsonObject().put("type", "string").put("description", description);
  }

  private static JsonObject bool(String description) {
    return new JsonObject().put("type", "boolean").put("description", description);
  }

  private static JsonObject strings(String description) {
    return new JsonObject().put("type", "array").put("items", new JsonObject().put("type", "string"))
        .put("description", description).put("x-kubernetes-list-type", "atomic");
  }

  private static JsonObject obj(String description, Map<String, JsonObject> props, String... required) {
    JsonObject p = new JsonObject();
    props.forEach(p::put);
    JsonObject o = new JsonObject().put("type", "object").put("description", description).put("properties", p);
    if (required.length > 0) {
      o.put("required", new JsonArray(java.util.List.of((Object[]) required)));
    }
    return o;
  }

  private static JsonObject extra() {
    return new JsonObject().put("type", "object").put("description", "Extra information about the user, from the "
        + "authenticator (e.g. scopes).").put("additionalProperties", strings("A value of the extra key."));
  }

  private static JsonObject resourceAttributes() {
    return obj("The authorization request attributes of a resource request (what the authorizer is asked).",
        ordered("namespace", str("The namespace of the action; \"\" for cluster-scoped resources or all namespaces."),
            "verb", str("A Kubernetes resource API verb: get, list, watch, create, update, delete, proxy; \"*\" "
                + "means all."),
            "group", str("The API group of the resource; \"*\" means all."),
            "version", str("The API version of the resource; \"*\" means all."),
            "resource", str("One of the existing resource types; \"*\" means all."),
            "subresource", str("One of the existing subresources; \"\" means none."),
            "name", str("The name of the resource being requested for a get or deleted for a delete; \"\" means "
                + "all.")));
  }

  private static JsonObject nonResourceAttributes() {
    return obj("The authorization request attributes of a non-resource request.",
        ordered("path", str("The URL path of the request."), "verb", str("The standard HTTP verb.")));
  }

  private static JsonObject accessStatus() {
    return obj("Whether the request is allowed.", ordered(
        "allowed", bool("True when the action would be allowed."),
        "denied", bool("True when the action would be denied (no other authorizer is asked); false with allowed "
            + "false means no opinion."),
        "reason", str("Why the request was allowed or denied."),
        "evaluationError", str("An indication that some error occurred during the authorization check; the "
            + "authorizer may still have allowed or denied it.")), "allowed");
  }

  private static JsonObject userInfo() {
    return obj("The user of a token or request.", ordered(
        "username", str("The name that uniquely identifies this user among all active users."),
        "uid", str("A unique value that identifies this user across time."),
        "groups", strings("The names of groups this user is a part of."),
        "extra", extra()));
  }

  private static JsonObject array(String description, JsonObject items) {
    return new JsonObject().put("type", "array").put("description", description)
        .put("x-kubernetes-list-type", "atomic").put("items", items);
  }

  private static JsonObject rulesStatus() {
    JsonObject resourceRule = obj("Actions on resources.", ordered(
        "verbs", strings("Allowed verbs; \"*\" means all."),
        "apiGroups", strings("API groups of the resources; \"*\" means all."),
        "resources", strings("Resources; \"*\" means all, \"*/foo\" a subresource of all."),
        "resourceNames", strings("Names the rule applies to; empty means all.")), "verbs");
    JsonObject nonResourceRule = obj("Actions on non-resource URLs.", ordered(
        "verbs", strings("Allowed verbs; \"*\" means all."),
        "nonResourceURLs", strings("Partial URLs a user may access; a trailing \"*\" matches a prefix.")), "verbs");
    return obj("The set of actions the user can perform in the namespace.", ordered(
        "resourceRules", array("The resource actions allowed (may be incomplete).", resourceRule),
        "nonResourceRules", array("The non-resource actions allowed (may be incomplete).", nonResourceRule),
        "incomplete", bool("True when the rules are incomplete (an authorizer does not support listing them)."),
        "evaluationError", str("Why the rules are incomplete, when they are.")),
        "resourceRules", "nonResourceRules", "incomplete");
  }

  private static Map<String, JsonObject> ordered(Object... kv) {
    Map<String, JsonObject> m = new java.util.LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], (JsonObject) kv[i + 1]);
    }
    return m;
  }

  /**
   * @param gv a review group-version
   * @param r  one of its resources
   * @return the kind's {@code spec}/{@code status} schema (plus {@code apiVersion}, {@code kind}, {@code metadata}
   *     added by the CRD builder), or null for a resource not described here
   */
  static JsonObject schema(GroupVersion gv, DiscoveryResource r) {
    JsonObject sarSpec = obj("The information for an access review: exactly one of resourceAttributes and "
        + "nonResourceAttributes must be set.", ordered(
            "resourceAttributes", resourceAttributes(), "nonResourceAttributes", nonResourceAttributes(),
            "user", str("The user you are testing for."), "groups", strings("The groups you are testing for."),
            "extra", extra(), "uid", str("Information about the requesting user.")));
    Map<String, JsonObject> props = switch (gv.group() + "/" + r.resource()) {
      case "authorization.k8s.io/subjectaccessreviews", "authorization.k8s.io/localsubjectaccessreviews" ->
          ordered("spec", sarSpec, "status", accessStatus());
      case "authorization.k8s.io/selfsubjectaccessreviews" -> ordered("spec", obj("The information for a self "
          + "access review: exactly one of resourceAttributes and nonResourceAttributes must be set.", ordered(
              "resourceAttributes", resourceAttributes(), "nonResourceAttributes", nonResourceAttributes())),
          "status", accessStatus());
      case "authorization.k8s.io/selfsubjectrulesreviews" -> ordered(
          "spec", obj("The namespace to list the rules in.", ordered("namespace", str("The namespace to evaluate "
              + "rules for. Required."))),
          "status", rulesStatus());
      case "authentication.k8s.io/selfsubjectreviews" -> ordered("status", obj("The user of the request.",
          ordered("userInfo", userInfo())));
      case "authentication.k8s.io/tokenreviews" -> ordered(
          "spec", obj("The token to authenticate.", ordered("token", str("The opaque bearer token."),
              "audiences", strings("Identifiers the resource server presented with the token identifies as; the "
                  + "token must be valid for at least one of them (default: the API server's audiences)."))),
          "status", obj("The result of the token authentication.", ordered(
              "authenticated", bool("True when the token is valid."),
              "user", userInfo(),
              "audiences", strings("The audiences the token is valid for, among those requested."),
              "error", str("Why the token could not be checked or was refused."))));
      default -> null;
    };
    if (props == null) {
      return null;
    }
    JsonObject schema = new JsonObject().put("type", "object").put("properties", new JsonObject());
    props.forEach((k, v) -> schema.getJsonObject("properties").put(k, v));
    if (props.containsKey("spec")) {
      schema.put("required", new JsonArray().add("spec"));
    }
    return schema;
  }

  /**
   * @param sgv a review group-version as served
   * @param v2  true for the Swagger 2 fragment
   * @return its {@code paths} (POST only) and definitions
   */
  static JsonObject fragment(ServedGroupVersion sgv, boolean v2) {
    GroupVersion gv = sgv.groupVersion();
    JsonObject paths = new JsonObject();
    JsonObject defs = new JsonObject();
    for (DiscoveryResource r : sgv.resources()) {
      JsonObject schema = schema(gv, r);
      if (schema == null) {
        continue;
      }
      JsonObject version = new JsonObject().put("name", gv.version()).put("served", true).put("storage", true)
          .put("schema", new JsonObject().put("openAPIV3Schema", schema));
      JsonObject crd = new JsonObject().put("spec", new JsonObject().put("group", gv.group()).put("scope", r.scope())
          .put("names", new JsonObject().put("plural", r.resource()).put("kind", r.responseKind().kind()))
          .put("versions", new JsonArray().add(version)));
      CrdOpenApi api = new CrdOpenApi(crd);
      JsonObject f = v2 ? api.v2(gv.version()) : api.v3(gv.version());
      f.getJsonObject("paths").forEach(e -> {
        JsonObject item = (JsonObject) e.getValue();
        if (item.getValue("post") instanceof JsonObject post) {
          JsonObject keep = new JsonObject();
          item.forEach(op -> {
            if (!(op.getValue() instanceof JsonObject o && o.containsKey("x-kubernetes-action"))) {
              keep.put(op.getKey(), op.getValue()); // path parameters
            }
          });
          paths.put(e.getKey(), keep.put("post", post));
        }
      });
      String kind = r.responseKind().kind();
      JsonObject d = v2 ? f.getJsonObject("definitions") : f.getJsonObject("components").getJsonObject("schemas");
      d.forEach(e -> {
        if (!e.getKey().endsWith("." + kind + "List")) {
          defs.put(e.getKey(), e.getValue());
        }
      });
    }
    return v2 ? new JsonObject().put("paths", paths).put("definitions", defs)
        : new JsonObject().put("paths", paths).put("components", new JsonObject().put("schemas", defs));
  }
}
