package io.mvproxy.node.rehearsal;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** The objects the rehearsal's {@link Traffic} writes: namespaces, widgets, sprockets, configmaps, as JSON or YAML. */
final class TrafficObjects {
  private TrafficObjects() {
  }

  /** @return the object as a YAML document (JSON is YAML), with its separator */
  static String yaml(JsonObject o) {
    return "---\n" + o.encode() + "\n";
  }

  /** @param name its name @return a v1 Namespace */
  static JsonObject namespace(String name) {
    return new JsonObject().put("apiVersion", "v1").put("kind", "Namespace")
        .put("metadata", new JsonObject().put("name", name));
  }

  /** @param apiVersion its apiVersion @param name its name @return a Widget (size 1, red), no namespace */
  static JsonObject widget(String apiVersion, String name) {
    return new JsonObject().put("apiVersion", apiVersion).put("kind", "Widget")
        .put("metadata", new JsonObject().put("name", name))
        .put("spec", new JsonObject().put("size", 1).put("color", "red"));
  }

  /** @param name its name @return a sprockets.mvproxy.io/v1 Sprocket (12 teeth), no namespace */
  static JsonObject sprocket(String name) {
    return new JsonObject().put("apiVersion", "sprockets.mvproxy.io/v1").put("kind", "Sprocket")
        .put("metadata", new JsonObject().put("name", name)).put("spec", new JsonObject().put("teeth", 12));
  }

  /** @param name its name @param owners its ownerReferences or null @return a ConfigMap ({@code k: v}) */
  static JsonObject configMap(String name, JsonArray owners) {
    JsonObject md = new JsonObject().put("name", name);
    if (owners != null) {
      md.put("ownerReferences", owners);
    }
    return new JsonObject().put("apiVersion", "v1").put("kind", "ConfigMap").put("metadata", md)
        .put("data", new JsonObject().put("k", "v"));
  }
}
