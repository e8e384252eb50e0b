package io.mvproxy.openapi;

import io.mvproxy.api.GroupVersion;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What peers' OpenAPI documents add to this node's: per group-version, the peers' v3 documents reduced to the
 * resources this node lacks, the same for {@code /openapi/v2}, and the group-versions the peers serve without any
 * document (so the {@code /openapi/v3} root does not advertise a URL that would 404). KEP-4020 peer-aggregated
 * discovery lists peers' resources on every node; these fragments make the node's OpenAPI cover the same set, so that
 * {@code kubectl apply}/{@code explain} of a resource only peers serve works through any node. Merged by
 * {@link OpenApiDocuments#build(java.util.Collection, java.util.Collection, PeerFragments)} after the local
 * fragments, which stay authoritative for every path and schema name they define.
 *
 * @param v3         per group-version, reduced peer documents ({@code paths}, {@code components.schemas}), in the
 *                   order they are merged (first wins among peers)
 * @param v2         reduced peer {@code /openapi/v2} documents ({@code paths}, {@code definitions}), same order rule
 * @param documentless group-versions peers serve but have no document for (their {@code /openapi/v3/...} is 404)
 */
public record PeerFragments(Map<GroupVersion, List<JsonObject>> v3, List<JsonObject> v2,
                            Set<GroupVersion> documentless) {
  /** Copies the collections. */
  public PeerFragments {
    Map<GroupVersion, List<JsonObject>> copy = new TreeMap<>();
    v3.forEach((gv, docs) -> copy.put(gv, List.copyOf(docs)));
    v3 = java.util.Collections.unmodifiableMap(copy);
    v2 = List.copyOf(v2);
    documentless = Set.copyOf(documentless);
  }

  /** @return nothing from peers (a node alone, or one that serves every resource of the fleet) */
  public static PeerFragments none() {
    return new PeerFragments(Map.of(), List.of(), Set.of());
  }

  /** @return true when no peer adds anything */
  public boolean isEmpty() {
    return v3.isEmpty() && v2.isEmpty() && documentless.isEmpty();
  }

  /**
   * Reduces a peer's document to the paths of some resources plus the schemas those paths reference (transitively).
   * A path belongs to the resource it addresses: {@code /apis/<g>/<v>[/watch][/namespaces/{namespace}]/<plural>...}
   * (core: {@code /api/<v>/...}); the {@code namespaces/{name}} paths belong to {@code namespaces}.
   *
   * @param doc       a peer's v3 group-version document or its v2 document (not modified)
   * @param resources per group-version, the plural resource names to keep
   * @param v2        true for a swagger 2.0 document ({@code definitions}), false for OpenAPI 3 ({@code components})
   * @return {@code {"paths", "components": {"schemas"}}} (v3) or {@code {"paths", "definitions"}} (v2), new objects;
   *     empty paths when nothing matches
   */
  public static JsonObject select(JsonObject doc, Map<GroupVersion, Set<String>> resources, boolean v2) {
    JsonObject paths = new JsonObject();
    JsonObject allPaths = doc.getJsonObject("paths", new JsonObject());
    for (String path : allPaths.fieldNames()) {
      PathResource pr = PathResource.parse(path);
      if (pr != null && resources.getOrDefault(pr.gv(), Set.of()).contains(pr.resource())) {
        paths.put(path, allPaths.getValue(path));
      }
    }
    JsonObject defs = v2 ? doc.getJsonObject("definitions", new JsonObject())
        : doc.getJsonObject("components", new JsonObject()).getJsonObject("schemas", new JsonObject());
    String prefix = v2 ? "#/definitions/" : "#/components/schemas/";
    JsonObject kept = new JsonObject();
    Deque<Object> todo = new ArrayDeque<>();
    todo.add(paths);
    Set<String> seen = new HashSet<>();
    while (!todo.isEmpty()) {
      Object node = todo.pop();
      if (node instanceof JsonObject o) {
        for (Map.Entry<String, Object> e : o) {
          if (e.getKey().equals("$ref") && e.getValue() instanceof String ref && ref.startsWith(prefix)) {
            String name = ref.substring(prefix.length());
            if (seen.add(name) && defs.containsKey(name)) {
              kept.put(name, defs.getValue(name));
              todo.add(defs.getValue(name));
            }
          } else {
            todo.add(e.getValue());
          }
        }
      } else if (node instanceof JsonArray a) {
        a.forEach(todo::add);
      }
    }
    JsonObject sorted = new JsonObject(new TreeMap<>(kept.getMap()));
    return v2 ? new JsonObject().put("paths", paths).put("definitions", sorted)
        : new JsonObject().put("paths", paths).put("components", new JsonObject().put("schemas", sorted));
  }

  /**
   * The group-version and resource an OpenAPI path addresses.
   *
   * @param gv       the group-version
   * @param resource the plural resource name
   */
  record PathResource(GroupVersion gv, String resource) {
    /** @return the resource of {@code path}, or null for a path outside any resource (e.g. {@code /apis/g/v/}) */
    static PathResource parse(String path) {
      String[] s = path.split("/", -1);
      int i;
      GroupVersion gv;
      if (s.length >= 4 && s[0].isEmpty() && s[1].equals("api")) {
        gv = new GroupVersion("", s[2]);
        i = 3;
      } else if (s.length >= 5 && s[0].isEmpty() && s[1].equals("apis")) {
        gv = new GroupVersion(s[2], s[3]);
        i = 4;
      } else {
        return null;
      }
      if (i < s.length && s[i].equals("watch")) {
        i++;
      }
      if (i + 2 < s.length && s[i].equals("namespaces") && s[i + 1].equals("{namespace}")) {
        i += 2;
      }
      return i < s.length && !s[i].isEmpty() ? new PathResource(gv, s[i]) : null;
    }
  }
}
