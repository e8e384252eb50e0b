package io.mvproxy.node.fleet;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.discovery.DiscoveryGroup;
import io.mvproxy.api.discovery.DiscoveryVersion;
import io.mvproxy.discovery.DiscoveryDocuments;
import io.mvproxy.node.membership.PeerInfo;
import io.mvproxy.openapi.OpenApiDocuments;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * The OpenAPI documents of a node's fleet view, kept by the {@link DiscoveryVerticle} (on its context): rebuilt off
 * the event loop when the fleet's group-versions or the resources only peers serve change, with the peers' local
 * documents for those resources merged in ({@link PeerOpenApi}); revalidated on demand; the peers' part of a
 * group-version whose peers left is taken out at once.
 */
final class FleetOpenApi {
  /** Retry delay after a failed peer OpenAPI fetch, ms. */
  static final long OPENAPI_RETRY_MS = 5_000;
  private final Logger log;
  private final PeerOpenApi peerOpenApi;
  private final FleetViewRef view;
  private final Supplier<List<ApiSource>> sources;
  private final Supplier<List<PeerState>> loadedPeers;
  private Vertx vertx;
  private OpenApiDocuments openapi = OpenApiDocuments.empty();
  /** What the current documents were built for (fleet group-versions, plan, peers' discovery ETags); null: rebuild. */
  private Object openapiBuiltKey;
  /**
   * Counts {@link #invalidate()} calls; part of the build key, so a change of the local sources that arrives while a
   * build runs (which read the sources before it) is not lost when that build completes and records its key.
   */
  private long localGeneration;
  /** The peer-document plan the current documents were built with. */
  private Map<String, Map<GroupVersion, Set<String>>> openapiBuiltPlan = Map.of();
  private boolean openapiRunning;
  private boolean openapiAgain;
  private boolean openapiRevalidate;
  private long openapiRetryTimer = -1;

  /**
   * @param peerOpenApi the peers' documents, or null when peers are disabled
   * @param view        the view the documents are published in
   * @param sources     the local sources published in discovery
   * @param loadedPeers the live peers whose discovery is loaded
   * @param log         the discovery verticle's logger
   */
  FleetOpenApi(PeerOpenApi peerOpenApi, FleetViewRef view, Supplier<List<ApiSource>> sources,
               Supplier<List<PeerState>> loadedPeers, Logger log) {
    this.peerOpenApi = peerOpenApi;
    this.view = view;
    this.sources = sources;
    this.loadedPeers = loadedPeers;
    this.log = log;
  }

  /** @param vertx the Vert.x of the verticle that owns this (timers, blocking builds) */
  void bind(Vertx vertx) {
    this.vertx = vertx;
  }

  /**
   * Rebuilds the OpenAPI documents (off the event loop) when what they are built from changed: the fleet's
   * group-versions, the plan of peer documents ({@link PeerOpenApi#plan}) or the planned peers' discovery; with
   * {@code revalidate}, also re-asks the planned peers (If-None-Match) and rebuilds when a document changed. One
   * refresh runs at a time; a request arriving meanwhile runs after it. A failed peer fetch is retried after
   * {@link #OPENAPI_RETRY_MS} (the last good copy is used meanwhile).
   */
  void refresh(boolean revalidate) {
    openapiRevalidate |= revalidate;
    if (openapiRunning) {
      openapiAgain = true;
      return;
    }
    DiscoveryDocuments dd = view.get().discovery();
    List<ApiSource> local = sources.get();
    Set<GroupVersion> fleet = new java.util.TreeSet<>();
    for (DiscoveryGroup g : dd.mergedGroups()) {
      for (DiscoveryVersion v : g.versions()) {
        // Stale ones too: their documents are then asked of the routing decision, which answers 503, not 404
        fleet.add(new GroupVersion(g.name(), v.version()));
      }
    }
    Map<String, PeerInfo> infos = new HashMap<>();
    Map<String, String> fetched = new HashMap<>();
    loadedPeers.get().forEach(p -> {
      infos.put(p.info.serverId(), p.info);
      fetched.put(p.info.serverId(), String.valueOf(p.fetchedEtag));
    });
    Map<String, Map<GroupVersion, Set<String>>> plan = plan(dd);
    Map<String, String> etags = new TreeMap<>();
    plan.keySet().forEach(id -> etags.put(id, fetched.get(id)));
    List<Object> key = List.of(fleet, plan, etags, localGeneration);
    boolean again = openapiRevalidate && !plan.isEmpty();
    openapiRevalidate = false;
    if (key.equals(openapiBuiltKey) && !again) {
      return;
    }
    openapiRunning = true;
    Future<PeerOpenApi.Collected> collected = plan.isEmpty() ? Future.succeededFuture(null)
        : peerOpenApi.collect(plan, infos);
    collected.compose(c -> {
      if (c != null && c.failed()) {
        retryOpenApi();
      }
      if (key.equals(openapiBuiltKey) && (c == null || !c.changed())) {
        return Future.<OpenApiDocuments>succeededFuture(null);
      }
      return vertx.executeBlocking(() -> OpenApiDocuments.build(local, fleet,
          c == null ? io.mvproxy.openapi.PeerFragments.none() : c.fragments()), false);
    }).onComplete(ar -> {
      openapiRunning = false;
      if (ar.failed()) {
        openapiBuiltKey = null;
        log.warning("OpenAPI documents could not be built: " + ar.cause());
      } else if (ar.result() != null) {
        openapiBuiltKey = key;
        openapiBuiltPlan = plan;
        openapi = ar.result();
        FleetView cur = view.get();
        view.set(new FleetView(cur.routing(), cur.discovery(), trimmed(cur.discovery()), cur.members(),
            cur.leaving()));
      }
      if (openapiAgain) {
        openapiAgain = false;
        refresh(false);
      }
    });
  }

  /** @return which peers' documents cover the resources this node lacks ({@link PeerOpenApi#plan}) */
  private Map<String, Map<GroupVersion, Set<String>>> plan(DiscoveryDocuments dd) {
    if (peerOpenApi == null) {
      return Map.of();
    }
    Map<String, List<DiscoveryGroup>> loaded = new TreeMap<>();
    loadedPeers.get().forEach(p -> loaded.put(p.info.serverId(), p.groups));
    return PeerOpenApi.plan(dd.localGroups(), loaded);
  }

  /**
   * The current documents, with the peers' part taken out at once of the group-versions no longer in the plan for
   * {@code dd} (their peers left), before the full rebuild.
   *
   * @param dd the discovery documents about to be published
   * @return the documents to publish with them
   */
  OpenApiDocuments trimmed(DiscoveryDocuments dd) {
    Map<String, Map<GroupVersion, Set<String>>> plan = plan(dd);
    Set<GroupVersion> gone = new java.util.TreeSet<>();
    openapiBuiltPlan.values().forEach(m -> gone.addAll(m.keySet()));
    plan.values().forEach(m -> gone.removeAll(m.keySet()));
    if (!gone.isEmpty()) {
      openapi = openapi.withoutPeers(gone);
    }
    return openapi;
  }

  /** Forces the next {@link #refresh} to rebuild (the local sources changed). */
  void invalidate() {
    localGeneration++;
    openapiBuiltKey = null;
  }

  private void retryOpenApi() {
    if (openapiRetryTimer < 0) {
      openapiRetryTimer = vertx.setTimer(OPENAPI_RETRY_MS, t -> {
        openapiRetryTimer = -1;
        refresh(true);
      });
    }
  }
}
