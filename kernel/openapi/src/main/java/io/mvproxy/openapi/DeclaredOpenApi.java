package io.mvproxy.openapi;

import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.DiscoverySubresource;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * OpenAPI fragments for a group-version whose source publishes none (a code plugin such as {@code clocks}), built
 * from what it declares in discovery: per resource, the kind, plural, scope, verbs and {@code status}/{@code scale}
 * subresources, with an object schema that keeps any field ({@code x-kubernetes-preserve-unknown-fields}, as a CRD
 * without a structural schema gets in {@code apiextensions-apiserver/pkg/controller/openapi/builder}) plus
 * {@code apiVersion}, {@code kind} and {@code metadata}. Only the operations of declared verbs are listed
 * ({@code x-kubernetes-action} get/list/watch/watchlist/post/put/patch/delete/deletecollection). Enough for
 * {@code kubectl explain} and client-side validation to find the kind; the fields themselves are not described.
 * Stateless.
 */
final class DeclaredOpenApi {
  private static final Map<String, String> VERB_OF_ACTION = Map.of("get", "get", "list", "list", "watch", "watch",
      "watchlist", "watch", "post", "create", "put", "update", "patch", "patch", "delete", "delete",
      "deletecollection", "deletecollection");

  private DeclaredOpenApi() {
  }

  /**
   * @param sgv the declared group-version
   * @param v2  true for the swagger 2.0 fragment ({@code paths}, {@code definitions}), false for the v3 one
   * @return the fragment, or null when no resource declares a kind (e.g. subresource-only lists)
   */
  static JsonObject fragment(ServedGroupVersion sgv, boolean v2) {
    JsonObject paths = new JsonObject();
    JsonObject defs = new JsonObject();
    for (DiscoveryResource r : sgv.resources()) {
      if (r.responseKind() == null || r.responseKind().kind() == null || r.responseKind().kind().isEmpty()
          || r.resource().contains("/")) {
        continue;
      }
      String version = sgv.groupVersion().version();
      CrdOpenApi api = new CrdOpenApi(crd(sgv.groupVersion().group(), version, r));
      JsonObject f = v2 ? api.v2(version) : api.v3(version);
      f.getJsonObject("paths").forEach(e -> {
        JsonObject item = keepVerbs((JsonObject) e.getValue(), r.verbs());
        if (item != null) {
          paths.put(e.getKey(), item);
        }
      });
      JsonObject d = v2 ? f.getJsonObject("definitions") : f.getJsonObject("components").getJsonObject("schemas");
      d.forEach(e -> defs.put(e.getKey(), e.getValue()));
    }
    if (paths.isEmpty()) {
      return null;
    }
    return v2 ? new JsonObject().put("paths", paths).put("definitions", defs)
        : new JsonObject().put("paths", paths).put("components", new JsonObject().put("schemas", defs));
  }

  /** The CRD-shaped description of one declared resource (one served version, any fields kept). */
  private static JsonObject crd(String group, String version, DiscoveryResource r) {
    JsonObject sub = new JsonObject();
    for (DiscoverySubresource s : r.subresources()) {
      if (s.subresource().equals("status")) {
        sub.put("status", new JsonObject());
      } else if (s.subresource().equals("scale")) {
        sub.put("scale", new JsonObject().put("specReplicasPath", ".spec.replicas")
            .put("statusReplicasPath", ".status.replicas"));
      }
    }
    JsonObject v = new JsonObject().put("name", version).put("served", true).put("storage", true)
        .put("schema", new JsonObject().put("openAPIV3Schema", new JsonObject().put("type", "object")
            .put("x-kubernetes-preserve-unknown-fields", true)));
    if (!sub.isEmpty()) {
      v.put("subresources", sub);
    }
    return new JsonObject().put("spec", new JsonObject().put("group", group).put("scope", r.scope())
        .put("names", new JsonObject().put("plural", r.resource()).put("kind", r.responseKind().kind()))
        .put("versions", new JsonArray().add(v)));
  }

  /** @return the path item with only the operations of declared verbs, or null when none is left */
  private static JsonObject keepVerbs(JsonObject item, List<String> verbs) {
    JsonObject out = new JsonObject();
    List<String> ops = new ArrayList<>();
    item.forEach(e -> {
      if (e.getValue() instanceof JsonObject op && op.containsKey("x-kubernetes-action")) {
        String verb = VERB_OF_ACTION.get(op.getString("x-kubernetes-action"));
        if (verb != null && verbs.contains(verb)) {
          out.put(e.getKey(), op);
          ops.add(e.getKey());
        }
      } else {
        out.put(e.getKey(), e.getValue()); // path parameters
      }
    });
    return ops.isEmpty() ? null : out;
  }
}
