package io.mvproxy.builtin;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The stored {@code apiregistration.k8s.io/v1} APIService of a plugin, merged from what each node's plugins loaded
 * (pure functions; {@link CrdRegistry} writes the results, as for CRDs). Annotation {@value #SERVED_BY} records the
 * server IDs whose plugins serve it (same format as {@link CrdObjects#SERVED_BY}: server ID to its versions); the
 * spec is the one the node that wrote last loaded; {@code status} is left to the nodes' availability check.
 */
public final class ApiServiceObjects {
  /** Annotation: JSON object of server ID to the version that node serves, e.g. {@code {"a":["v1alpha1"]}}. */
  public static final String SERVED_BY = CrdObjects.SERVED_BY;
  /** The API version of the objects. */
  public static final String API_VERSION = "apiregistration.k8s.io/v1";

  private ApiServiceObjects() {
  }

  /** @param stored a stored APIService @return true when a plugin provides it (it carries {@value #SERVED_BY}) */
  public static boolean isPlugin(JsonObject stored) {
    JsonObject md = stored.getValue("metadata") instanceof JsonObject m ? m : new JsonObject();
    return md.getValue("annotations") instanceof JsonObject a && a.containsKey(SERVED_BY);
  }

  /**
   * Merges one node's loaded APIService into the stored one.
   *
   * @param current  the stored object, or null (a new object gets a uid and timestamps)
   * @param serverId the node
   * @param manifest the APIService manifest the node loaded (valid)
   * @param now      RFC 3339 time for new timestamps
   * @return the object to store (equal to {@code current} when nothing changed)
   */
  public static JsonObject merge(JsonObject current, String serverId, JsonObject manifest, String now) {
    JsonObject out;
    if (current == null) {
      JsonObject md = new JsonObject().put("name", manifest.getJsonObject("metadata").getString("name"))
          .put("uid", UUID.randomUUID().toString()).put("creationTimestamp", now);
      out = new JsonObject().put("apiVersion", API_VERSION).put("kind", "APIService").put("metadata", md)
          .put("status", new JsonObject());
    } else {
      out = current.copy();
    }
    JsonObject md = out.getJsonObject("metadata");
    JsonObject mmd = manifest.getJsonObject("metadata", new JsonObject());
    for (String field : List.of("labels", "annotations")) {
      JsonObject given = mmd.getJsonObject(field);
      if (given != null) {
        JsonObject to = md.getJsonObject(field, new JsonObject());
        given.forEach(e -> to.put(e.getKey(), e.getValue()));
        md.put(field, to);
      }
    }
    JsonObject spec = manifest.getJsonObject("spec", new JsonObject()).copy();
    if (spec.getValue("service") instanceof JsonObject svc && svc.getValue("port") == null) {
      svc.put("port", 443);
    }
    out.put("spec", spec);
    Map<String, List<String>> servedBy = CrdObjects.servedBy(out);
    servedBy.put(serverId, List.of(spec.getString("version", "")));
    return annotate(out, servedBy);
  }

  /**
   * Removes one node's contribution (its plugin was unloaded).
   *
   * @param current  the stored object
   * @param serverId the node
   * @return the object to store, or null when no node's plugin provides it any more (delete it)
   */
  public static JsonObject withdraw(JsonObject current, String serverId) {
    Map<String, List<String>> servedBy = CrdObjects.servedBy(current);
    if (servedBy.remove(serverId) == null) {
      return current;
    }
    return servedBy.isEmpty() ? null : annotate(current.copy(), servedBy);
  }

  private static JsonObject annotate(JsonObject out, Map<String, List<String>> servedBy) {
    JsonObject md = out.getJsonObject("metadata");
    JsonObject ann = md.getJsonObject("annotations", new JsonObject());
    JsonObject sb = new JsonObject();
    servedBy.forEach((k, v) -> sb.put(k, new JsonArray(new ArrayList<>(v))));
    ann.put(SERVED_BY, sb.encode());
    md.put("annotations", ann);
    return out;
  }
}
