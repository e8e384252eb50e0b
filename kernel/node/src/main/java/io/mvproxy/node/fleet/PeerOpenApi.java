package io.mvproxy.node.fleet;

import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.discovery.DiscoveryGroup;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.DiscoveryVersion;
import io.mvproxy.node.membership.PeerInfo;
import io.mvproxy.openapi.OpenApiDocuments;
import io.mvproxy.openapi.PeerFragments;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.logging.Logger;

/**
 * The peers' OpenAPI documents this node merges into its own (F16: a resource added to a group-version this node also
 * serves must be in this node's {@code /openapi/v3/apis/<g>/<v>} and {@code /openapi/v2}, as it is in its
 * peer-aggregated discovery). {@link #plan} picks, from the peers' local discovery, which peer documents the
 * resources this node lacks: peers in server-ID order, each one only for resources no local source and no earlier
 * peer covers. {@link #collect} fetches those documents (revalidating with their ETags, keeping the last good copy
 * when a fetch fails) and returns them, still undecoded, as a {@link Collected} whose {@link Collected#fragments()}
 * does the JSON work on a worker thread. Owned by {@link DiscoveryVerticle} and used on its event loop only.
 */
final class PeerOpenApi {
  private static final Logger LOG = Logger.getLogger(PeerOpenApi.class.getName());
  static final String V2 = "/openapi/v2";

  private final PeerOpenApiClient client;
  /** server ID to document path to the last good answer. */
  private final Map<String, Map<String, PeerOpenApiClient.Fetched>> cache = new HashMap<>();

  /** @param client the peer OpenAPI client */
  PeerOpenApi(PeerOpenApiClient client) {
    this.client = client;
  }

  /**
   * @param local the node's local discovery groups
   * @param peers live peers whose discovery is loaded, by server ID (sorted)
   * @return per server ID (sorted), per group-version, the resources that peer's documents are needed for; empty when
   *     this node serves every resource of the fleet
   */
  static Map<String, Map<GroupVersion, Set<String>>> plan(List<DiscoveryGroup> local,
                                                           Map<String, List<DiscoveryGroup>> peers) {
    Map<GroupVersion, Set<String>> covered = resources(local);
    Map<String, Map<GroupVersion, Set<String>>> out = new TreeMap<>();
    new TreeMap<>(peers).forEach((id, groups) -> resources(groups).forEach((gv, res) -> {
      for (String r : res) {
        if (covered.computeIfAbsent(gv, k -> new TreeSet<>()).add(r)) {
          out.computeIfAbsent(id, k -> new TreeMap<>()).computeIfAbsent(gv, k -> new TreeSet<>()).add(r);
        }
      }
    }));
    return out;
  }

  private static Map<GroupVersion, Set<String>> resources(List<DiscoveryGroup> groups) {
    Map<GroupVersion, Set<String>> out = new TreeMap<>();
    for (DiscoveryGroup g : groups) {
      for (DiscoveryVersion v : g.versions()) {
        Set<String> s = out.computeIfAbsent(new GroupVersion(g.name(), v.version()), k -> new TreeSet<>());
        for (DiscoveryResource r : v.resources()) {
          s.add(r.resource());
        }
      }
    }
    return out;
  }

  /**
   * The fetched documents of one plan, not yet decoded.
   *
   * @param plan    the plan they were fetched for
   * @param docs    per server ID, per document path, the answer (null body: the peer has no such document)
   * @param failed  true when some fetch failed (and no earlier copy was there): worth retrying
   * @param changed true when some document differs from the previous collection
   */
  record Collected(Map<String, Map<GroupVersion, Set<String>>> plan,
                   Map<String, Map<String, PeerOpenApiClient.Fetched>> docs, boolean failed, boolean changed) {
    /**
     * Decodes and reduces the documents (CPU work: call it on a worker thread). A body that is not a JSON object is
     * logged and skipped.
     *
     * @return what the peers add to this node's documents
     */
    PeerFragments fragments() {
      Map<GroupVersion, List<JsonObject>> v3 = new TreeMap<>();
      List<JsonObject> v2 = new ArrayList<>();
      Set<GroupVersion> withDoc = new HashSet<>();
      Set<GroupVersion> without = new TreeSet<>();
      plan.forEach((id, byGv) -> {
        Map<String, PeerOpenApiClient.Fetched> got = docs.getOrDefault(id, Map.of());
        byGv.forEach((gv, res) -> {
          PeerOpenApiClient.Fetched f = got.get(v3Path(gv));
          JsonObject doc = f == null ? null : decode(id, v3Path(gv), f);
          if (doc != null) {
            JsonObject part = PeerFragments.select(doc, Map.of(gv, res), false);
            if (!part.getJsonObject("paths").isEmpty()) {
              v3.computeIfAbsent(gv, k -> new ArrayList<>()).add(part);
              withDoc.add(gv);
            }
          } else if (f != null) {
            without.add(gv);
          }
        });
        PeerOpenApiClient.Fetched f = got.get(V2);
        JsonObject doc = f == null ? null : decode(id, V2, f);
        if (doc != null) {
          JsonObject part = PeerFragments.select(doc, byGv, true);
          if (!part.getJsonObject("paths").isEmpty()) {
            v2.add(part);
          }
        }
      });
      without.removeAll(withDoc);
      return new PeerFragments(v3, v2, without);
    }

    private static JsonObject decode(String id, String path, PeerOpenApiClient.Fetched f) {
      if (f.body() == null) {
        return null;
      }
      try {
        return f.body().toJsonObject();
      } catch (RuntimeException e) {
        LOG.warning("OpenAPI " + path + " of peer " + id + " is not a JSON object: " + e.getMessage());
        return null;
      }
    }
  }

  /**
   * Fetches every document the plan needs from the peers: the v3 document of each planned group-version and, once
   * per planned peer, {@code /openapi/v2}. Never fails; forgets documents of peers and paths no longer planned.
   *
   * @param plan  from {@link #plan}
   * @param peers live peers by server ID
   * @return the documents
   */
  Future<Collected> collect(Map<String, Map<GroupVersion, Set<String>>> plan, Map<String, PeerInfo> peers) {
    cache.keySet().retainAll(plan.keySet());
    List<Future<?>> all = new ArrayList<>();
    boolean[] failed = {false};
    boolean[] changed = {false};
    Map<String, Map<String, PeerOpenApiClient.Fetched>> next = new TreeMap<>();
    plan.forEach((id, byGv) -> {
      PeerInfo peer = peers.get(id);
      Map<String, PeerOpenApiClient.Fetched> old = cache.computeIfAbsent(id, k -> new HashMap<>());
      Map<String, PeerOpenApiClient.Fetched> now = new TreeMap<>();
      next.put(id, now);
      List<String> paths = new ArrayList<>();
      byGv.keySet().forEach(gv -> paths.add(v3Path(gv)));
      paths.add(V2);
      old.keySet().retainAll(paths);
      for (String path : paths) {
        PeerOpenApiClient.Fetched last = old.get(path);
        if (peer == null) {
          if (last != null) {
            now.put(path, last);
          }
          continue;
        }
        all.add(client.fetch(peer, path, last).andThen(ar -> {
          if (ar.succeeded()) {
            now.put(path, ar.result());
            old.put(path, ar.result());
            changed[0] |= ar.result() != last;
          } else {
            LOG.warning("OpenAPI " + path + " of peer " + id + " could not be fetched: " + ar.cause().getMessage());
            failed[0] = true;
            if (last != null) {
              now.put(path, last);
            }
          }
        }));
      }
    });
    return Future.join(all).transform(ar -> Future.succeededFuture(
        new Collected(plan, next, failed[0], changed[0])));
  }

  /** @return the peer path of a group-version's v3 document */
  static String v3Path(GroupVersion gv) {
    return "/openapi/v3/" + OpenApiDocuments.key(gv);
  }
}
