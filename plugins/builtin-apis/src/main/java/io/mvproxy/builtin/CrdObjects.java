package io.mvproxy.builtin;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The stored {@code apiextensions.k8s.io/v1} CustomResourceDefinition of the fleet, merged from what each node's
 * plugins loaded (pure functions; {@link CrdRegistry} writes the results). Nodes of a mixed-version fleet may load
 * different versions of one CRD; the stored object is their union: annotation {@value #SERVED_BY} records, per
 * server ID, the versions that node serves; a version is {@code served} when some node serves it; the group, names,
 * scope, the storage version and each version's definition are the ones the node that wrote last loaded. Status is
 * what kube-apiserver's CRD controllers write ({@code apiextensions-apiserver/pkg/controller/status},
 * {@code establish}): {@code acceptedNames}, {@code NamesAccepted} and {@code Established} true,
 * {@code storedVersions}.
 */
public final class CrdObjects {
  /** Annotation: JSON object of server ID to the versions that node serves, e.g. {@code {"a":["v1"]}}. */
  public static final String SERVED_BY = "mvproxy.io/served-by";
  /** The API version of the objects. */
  public static final String API_VERSION = "apiextensions.k8s.io/v1";

  private CrdObjects() {
  }

  /**
   * Merges one node's loaded CRD into the stored one.
   *
   * @param current  the stored object, or null when none is stored (a new object gets a uid and timestamps)
   * @param serverId the node
   * @param manifest the CRD manifest the node loaded (valid)
   * @param now      RFC 3339 time for new timestamps
   * @return the object to store (equal to {@code current} when nothing changed)
   */
  public static JsonObject merge(JsonObject current, String serverId, JsonObject manifest, String now) {
    JsonObject out = current == null ? created(manifest, now) : current.copy();
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
    Map<String, List<String>> servedBy = servedBy(out);
    JsonObject spec = manifest.getJsonObject("spec").copy();
    List<String> mine = new ArrayList<>();
    String storage = null;
    Map<String, JsonObject> versions = new LinkedHashMap<>();
    for (Object o : spec.getJsonArray("versions", new JsonArray())) {
      JsonObject v = ((JsonObject) o).copy();
      versions.put(v.getString("name"), v);
      if (v.getBoolean("served", false)) {
        mine.add(v.getString("name"));
      }
      if (v.getBoolean("storage", false)) {
        storage = v.getString("name");
      }
    }
    servedBy.put(serverId, mine);
    JsonObject oldSpec = out.getJsonObject("spec", new JsonObject());
    Set<String> declared = new LinkedHashSet<>(versions.keySet());
    for (Object o : oldSpec.getJsonArray("versions", new JsonArray())) {
      JsonObject v = (JsonObject) o;
      versions.putIfAbsent(v.getString("name"), v.copy());
    }
    JsonObject next = defaults(spec);
    next.put("versions", versions(versions, servedBy, declared, storage));
    return finish(out, oldSpec, next, servedBy, storage);
  }

  /**
   * Removes one node's contribution (its plugin was unloaded).
   *
   * @param current  the stored object
   * @param serverId the node
   * @return the object to store, or null when no node serves the CRD any more (delete it)
   */
  public static JsonObject withdraw(JsonObject current, String serverId) {
    JsonObject out = current.copy();
    Map<String, List<String>> servedBy = servedBy(out);
    if (servedBy.remove(serverId) == null) {
      return current;
    }
    if (servedBy.isEmpty()) {
      return null;
    }
    JsonObject spec = out.getJsonObject("spec").copy();
    Map<String, JsonObject> versions = new LinkedHashMap<>();
    String storage = null;
    for (Object o : spec.getJsonArray("versions", new JsonArray())) {
      JsonObject v = (JsonObject) o;
      versions.put(v.getString("name"), v.copy());
      if (v.getBoolean("storage", false)) {
        storage = v.getString("name");
      }
    }
    spec.put("versions", versions(versions, servedBy, Set.of(), storage));
    return finish(out, out.getJsonObject("spec"), spec, servedBy, storage);
  }

  /**
   * @param obj a stored CRD
   * @return its {@value #SERVED_BY} annotation as server ID to versions (sorted by server ID; empty when absent)
   */
  public static Map<String, List<String>> servedBy(JsonObject obj) {
    Map<String, List<String>> out = new TreeMap<>();
    JsonObject ann = obj.getJsonObject("metadata", new JsonObject()).getJsonObject("annotations");
    String raw = ann == null ? null : ann.getString(SERVED_BY);
    if (raw != null) {
      try {
        new JsonObject(raw).forEach(e -> out.put(e.getKey(), ((JsonArray) e.getValue()).stream()
            .map(String::valueOf).toList()));
      } catch (RuntimeException e) {
        // a hand-edited annotation: start over from what the nodes publish next
      }
    }
    return out;
  }

  private static JsonObject created(JsonObject manifest, String now) {
    JsonObject md = new JsonObject().put("name", manifest.getJsonObject("metadata").getString("name"))
        .put("uid", UUID.randomUUID().toString()).put("generation", 1).put("creationTimestamp", now);
    return new JsonObject().put("apiVersion", API_VERSION).put("kind", "CustomResourceDefinition")
        .put("metadata", md).put("status", new JsonObject().put("conditions", new JsonArray()
            .add(condition("NamesAccepted", "NoConflicts", "no conflicts found", now))
            .add(condition("Established", "InitialNamesAccepted", "the initial names have been accepted", now))));
  }

  private static JsonObject condition(String type, String reason, String message, String now) {
    return new JsonObject().put("type", type).put("status", "True").put("lastTransitionTime", now)
        .put("reason", reason).put("message", message);
  }

  /** kube's defaults of a v1 CRD spec (names.singular, names.listKind, conversion None). */
  private static JsonObject defaults(JsonObject spec) {
    JsonObject names = spec.getJsonObject("names", new JsonObject()).copy();
    String kind = names.getString("kind", "");
    if (names.getString("singular", "").isEmpty()) {
      names.put("singular", kind.toLowerCase(Locale.ROOT));
    }
    if (names.getString("listKind", "").isEmpty()) {
      names.put("listKind", kind + "List");
    }
    spec.put("names", names);
    return io.mvproxy.registry.impl.conversion.CrdConversion.setDefaults(spec);
  }

  /**
   * @param versions every known version definition by name, in order
   * @param servedBy server ID to the versions it serves
   * @param declared versions the writing node declares (kept even when nobody serves them)
   * @param storage  the storage version wanted (else the first kept version)
   */
  private static JsonArray versions(Map<String, JsonObject> versions, Map<String, List<String>> servedBy,
                                    Set<String> declared, String storage) {
    Set<String> served = new LinkedHashSet<>();
    servedBy.values().forEach(served::addAll);
    List<String> kept = versions.keySet().stream().filter(v -> served.contains(v) || declared.contains(v)).toList();
    String store = storage != null && kept.contains(storage) ? storage : kept.isEmpty() ? null : kept.get(0);
    JsonArray out = new JsonArray();
    for (String name : kept) {
      out.add(versions.get(name).put("served", served.contains(name)).put("storage", name.equals(store)));
    }
    return out;
  }

  private static JsonObject finish(JsonObject out, JsonObject oldSpec, JsonObject spec,
                                   Map<String, List<String>> servedBy, String storage) {
    JsonObject md = out.getJsonObject("metadata");
    JsonObject ann = md.getJsonObject("annotations", new JsonObject());
    JsonObject sb = new JsonObject();
    servedBy.forEach((k, v) -> sb.put(k, new JsonArray(new ArrayList<>(v))));
    ann.put(SERVED_BY, sb.encode());
    md.put("annotations", ann);
    if (!oldSpec.isEmpty() && !oldSpec.equals(spec)) {
      md.put("generation", md.getLong("generation", 1L) + 1);
    }
    out.put("spec", spec);
    JsonObject status = out.getJsonObject("status", new JsonObject());
    status.put("acceptedNames", spec.getJsonObject("names").copy());
    Set<String> stored = new LinkedHashSet<>();
    status.getJsonArray("storedVersions", new JsonArray()).forEach(v -> stored.add(String.valueOf(v)));
    spec.getJsonArray("versions").forEach(v -> {
      if (((JsonObject) v).getBoolean("storage", false)) {
        stored.add(((JsonObject) v).getString("name"));
      }
    });
    status.put("storedVersions", new JsonArray(new ArrayList<>(stored)));
    out.put("status", status);
    return out;
  }
}
