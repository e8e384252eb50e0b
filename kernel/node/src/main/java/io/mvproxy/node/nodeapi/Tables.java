package io.mvproxy.node.nodeapi;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/** {@code meta.k8s.io/v1} Tables for the mvproxy.io resources (what {@code kubectl get} prints). */
final class Tables {
  private Tables() {
  }

  /**
   * @param plugins true for Plugin objects, false for APIServerNode objects
   * @param items   the objects
   * @return the Table
   */
  static JsonObject of(boolean plugins, List<JsonObject> items) {
    JsonArray cols = new JsonArray();
    List<String> names = plugins ? List.of("Name", "Node", "State", "Version", "APIs", "Error")
        : List.of("Name", "Version", "Address", "State", "Plugins", "Group-Versions");
    for (String n : names) {
      cols.add(new JsonObject().put("name", n).put("type", "string").put("format", n.equals("Name") ? "name" : "")
          .put("description", n).put("priority", n.equals("Group-Versions") || n.equals("APIs") ? 1 : 0));
    }
    JsonArray rows = new JsonArray();
    for (JsonObject o : items) {
      JsonObject md = o.getJsonObject("metadata");
      JsonObject spec = o.getJsonObject("spec", new JsonObject());
      JsonObject st = o.getJsonObject("status", new JsonObject());
      JsonArray cells = new JsonArray().add(md.getString("name"));
      if (plugins) {
        cells.add(spec.getString("serverId", "")).add(st.getString("state", "")).add(spec.getString("version", ""))
            .add(String.join(",", st.getJsonArray("groupVersions", new JsonArray()).stream().map(String::valueOf)
                .toList())).add(st.getString("error", ""));
      } else {
        cells.add(spec.getString("version", "")).add(spec.getString("address", "")).add(st.getString("state", ""))
            .add(String.join(",", st.getJsonArray("plugins", new JsonArray()).stream().map(String::valueOf)
                .toList()))
            .add(String.join(",", st.getJsonArray("groupVersions", new JsonArray()).stream().map(String::valueOf)
                .toList()));
      }
      rows.add(new JsonObject().put("cells", cells).put("object", new JsonObject()
          .put("kind", "PartialObjectMetadata").put("apiVersion", "meta.k8s.io/v1").put("metadata", md)));
    }
    return new JsonObject().put("kind", "Table").put("apiVersion", "meta.k8s.io/v1")
        .put("metadata", new JsonObject().put("resourceVersion", "")).put("columnDefinitions", cols)
        .put("rows", rows);
  }
}
