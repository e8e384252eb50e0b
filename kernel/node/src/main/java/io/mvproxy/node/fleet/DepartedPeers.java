package io.mvproxy.node.fleet;

import io.mvproxy.api.discovery.DiscoveryGroup;
import io.mvproxy.discovery.DiscoveryCodec;
import io.mvproxy.discovery.DiscoveryFormat;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.logging.Logger;

/**
 * What departed peers served, remembered for {@link #RETENTION_MS} (Stale in discovery, 503 in routing) by the
 * {@link DiscoveryVerticle} (its single writer, on its event loop), and shared fleet-wide through the cluster map
 * {@link #MAP} so that a node that starts or rejoins after a peer crashed still answers 503, not 404, for the GVRs
 * only that peer served.
 */
final class DepartedPeers {
  /** How long the APIs of a departed peer stay known (Stale, 503), ms: like a lingering upstream lease. */
  static final long RETENTION_MS = 3_600_000;
  /**
   * Cluster-wide map of what departed peers served (server ID to {@code {"at": epoch ms, "discovery":
   * APIGroupDiscoveryList}}). Written by the survivors that saw it leave, removed once it is back.
   */
  static final String MAP = "mvproxy.departed";
  private static final Logger LOG = Logger.getLogger(DiscoveryVerticle.class.getName());

  private final String serverId;
  private final Map<String, List<DiscoveryGroup>> departed = new TreeMap<>();
  private final Map<String, Long> departedAt = new HashMap<>();
  private AsyncMap<String, JsonObject> shared;

  /** @param serverId this node's server ID (never remembered as departed from the shared map) */
  DepartedPeers(String serverId) {
    this.serverId = serverId;
  }

  /**
   * Opens the cluster map; once open, its entries are merged in ({@link #loadShared}).
   *
   * @param vertx    the clustered Vert.x
   * @param liveLoaded whether a server ID is a live peer whose discovery is loaded (not merged then)
   * @param changed  run on the event loop when merging added an entry
   */
  void bind(Vertx vertx, Predicate<String> liveLoaded, Runnable changed) {
    vertx.sharedData().<String, JsonObject>getAsyncMap(MAP).onSuccess(m -> {
      shared = m;
      loadShared(liveLoaded, changed);
    }).onFailure(e -> LOG.warning("cluster map " + MAP + " unavailable: " + e));
  }

  /** @return server ID to the groups it served, for the departed peers still remembered (live view, do not modify) */
  Map<String, List<DiscoveryGroup>> groups() {
    return departed;
  }

  /**
   * Remembers that a peer left (or rejoined as another member, its API set to be learnt again), as of now.
   *
   * @param id     its server ID
   * @param groups what it served
   * @param share  whether to write it to the cluster map too (a peer that left; not one that rejoined)
   */
  void left(String id, List<DiscoveryGroup> groups, boolean share) {
    departed.put(id, groups);
    departedAt.put(id, System.currentTimeMillis());
    if (share && shared != null) {
      shared.put(id, new JsonObject().put("at", departedAt.get(id))
          .put("discovery", DiscoveryCodec.toJson(groups, DiscoveryFormat.V2)));
    }
  }

  /** Forgets a peer whose discovery was fetched again, here and in the cluster map. @param id its server ID */
  void back(String id) {
    if (departed.remove(id) != null && shared != null) {
      shared.remove(id);
    }
    departedAt.remove(id);
  }

  /** Removes this node's own entry from the cluster map: it is back, what it served before is no longer departed. */
  void selfBack() {
    if (shared != null) {
      shared.remove(serverId);
    }
  }

  /** Forgets the peers that departed more than {@link #RETENTION_MS} before {@code now} (epoch ms). */
  void expire(long now) {
    departedAt.entrySet().removeIf(e -> {
      boolean expired = now - e.getValue() > RETENTION_MS;
      if (expired) {
        departed.remove(e.getKey());
      }
      return expired;
    });
  }

  /**
   * Merges what other nodes remember of departed peers ({@link #MAP}) into this node's departed set: for peers that
   * are not live and loaded here, within {@link #RETENTION_MS}. No-op before the map is open.
   *
   * @param liveLoaded whether a server ID is a live peer whose discovery is loaded
   * @param changed    run when an entry was added
   */
  void loadShared(Predicate<String> liveLoaded, Runnable changed) {
    if (shared == null) {
      return;
    }
    shared.entries().onSuccess(all -> {
      long now = System.currentTimeMillis();
      boolean added = false;
      for (Map.Entry<String, JsonObject> e : all.entrySet()) {
        String id = e.getKey();
        long at = e.getValue().getLong("at", 0L);
        if (id.equals(serverId) || liveLoaded.test(id) || departed.containsKey(id) || now - at > RETENTION_MS) {
          continue;
        }
        try {
          departed.put(id, DiscoveryCodec.fromJson(e.getValue().getJsonObject("discovery")));
          departedAt.put(id, at);
          added = true;
          LOG.info("peer " + id + " departed before this node knew it (remembered by the fleet): its APIs get 503");
        } catch (RuntimeException bad) {
          LOG.warning("unreadable departed entry for " + id + ": " + bad);
        }
      }
      if (added) {
        changed.run();
      }
    });
  }
}
