package io.mvproxy.controllers;

import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the node's discovery through its API: {@code /api} and {@code /apis} in aggregated
 * {@code apidiscovery.k8s.io/v2}. With the peer proxy on, that is the FLEET's peer-aggregated view (resources only a
 * peer serves included); with it off, the node's own. A version marked {@code Stale} is reported failed as client-go
 * reports it ({@code stale GroupVersion discovery: <gv>}), its resources left out.
 */
public final class FleetDiscovery {
  private final ApiClient api;

  /** @param api the controller's client */
  public FleetDiscovery(ApiClient api) {
    this.api = api;
  }

  /** @return what was discovered; a failed document marks every group-version it would have held unknown */
  public Future<Discovered> discover() {
    return api.send(io.vertx.core.http.HttpMethod.GET, "/api", null, null, ApiClient.AGGREGATED_DISCOVERY)
        .compose(core -> api.send(io.vertx.core.http.HttpMethod.GET, "/apis", null, null,
            ApiClient.AGGREGATED_DISCOVERY).map(groups -> parse(core, groups)));
  }

  /**
   * Parses the two aggregated documents.
   *
   * @param core   answer to {@code /api}
   * @param groups answer to {@code /apis}
   * @return the resources and failures
   */
  static Discovered parse(ApiResponse core, ApiResponse groups) {
    List<ApiResource> out = new ArrayList<>();
    Map<String, String> failed = new LinkedHashMap<>();
    for (ApiResponse doc : List.of(core, groups)) {
      if (!doc.ok()) {
        failed.put(doc == core ? "v1" : "apis", doc.message());
        continue;
      }
      for (Object g : doc.items()) {
        JsonObject group = (JsonObject) g;
        String name = group.getJsonObject("metadata", new JsonObject()).getString("name", "");
        for (Object v : group.getJsonArray("versions", new JsonArray())) {
          JsonObject version = (JsonObject) v;
          String ver = version.getString("version");
          String gv = name.isEmpty() ? ver : name + "/" + ver;
          if ("Stale".equals(version.getString("freshness"))) {
            failed.put(gv, "stale GroupVersion discovery: " + gv);
            continue;
          }
          for (Object r : version.getJsonArray("resources", new JsonArray())) {
            JsonObject res = (JsonObject) r;
            JsonObject kind = res.getJsonObject("responseKind", new JsonObject());
            Set<String> verbs = new LinkedHashSet<>();
            res.getJsonArray("verbs", new JsonArray()).forEach(x -> verbs.add(String.valueOf(x)));
            out.add(new ApiResource(name, ver, res.getString("resource"), kind.getString("kind", ""),
                "Namespaced".equals(res.getString("scope")), Set.copyOf(verbs)));
          }
        }
      }
    }
    return new Discovered(out, failed);
  }
}
