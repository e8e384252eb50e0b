package io.mvproxy.node.fleet;

import io.mvproxy.api.Addresses;
import io.mvproxy.api.ApiSource;
import io.mvproxy.discovery.DiscoveryDocuments;
import io.mvproxy.node.membership.MembershipSnapshot;
import io.mvproxy.node.membership.PeerInfo;
import io.mvproxy.node.metrics.NodeMetrics;
import io.mvproxy.node.routing.Awaited;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.logging.Logger;

/**
 * Discovery aggregation: the single writer of the node's {@link FleetView}. Learns each live peer's local API set
 * (fetching its nopeer discovery when it joins, when it announces a new ETag on
 * {@link Addresses#DISCOVERY_CHANGED}, and every {@link #REVALIDATE_MS}), keeps last-known-good data on a failed
 * fetch (marked Stale, retried with backoff), remembers what departed peers served ({@link DepartedPeers}:
 * Stale in discovery, 503 in routing) and recomputes the merged documents and routing snapshot only when something changed. It also tracks
 * what the node still waits for before a 404 may be given (README "Routing rules", {@link FleetWaits}): the first
 * membership snapshot, {@code --cluster-members} not yet joined, Hazelcast members without a record, peers not yet
 * fetched; each wait bounded by {@code --member-wait-seconds}. It also keeps the OpenAPI documents of the view current: rebuilt off the
 * event loop when the fleet's group-versions or the resources only peers serve change, with the peers' local
 * documents for those resources merged in ({@link PeerOpenApi}), revalidated every {@link #REVALIDATE_MS}.
 */
public final class DiscoveryVerticle extends VerticleBase {
  /** Periodic revalidation of every peer, ms (upstream never revalidates; peer-proxy.md section 3). */
  static final long REVALIDATE_MS = 30_000;
  private static final Logger LOG = Logger.getLogger(DiscoveryVerticle.class.getName());

  private final String serverId;
  private final String serverAddress;
  private final java.util.function.Supplier<List<ApiSource>> sources;
  private final java.util.function.Supplier<List<ApiSource>> serving;
  private final PeerCatchUp catchUp = new PeerCatchUp();
  private final boolean peersEnabled;
  private final PeerDiscoveryClient client;
  private final FleetViewRef view;
  private final NodeMetrics metrics;
  private final Map<String, PeerState> peers = new TreeMap<>();
  private final DepartedPeers departed;
  private final FleetWaits waits;
  private final Map<String, Long> memberSeenAt = new HashMap<>();
  private List<MembershipSnapshot.Member> members = List.of();
  private long startedAt;
  private long expiryTimer = -1;
  private List<Awaited> lastAwaiting = List.of();
  private boolean membershipKnown;
  /**
   * Peers whose record was withdrawn while their cluster member stays connected (a graceful shutdown draining its
   * requests): server ID to member ID. Requests already sent to them are left to finish.
   */
  private final Map<String, String> leaving = new HashMap<>();
  private final FleetOpenApi openApi;
  private String lastEtag;

  /**
   * @param serverId      this node's server ID
   * @param serverAddress {@code host:port} for legacy {@code serverAddressByClientCIDRs}
   * @param sources       the current local API sources published in discovery (re-read on
   *                      {@link Addresses#LOCAL_APIS_CHANGED})
   * @param serving       the local API sources routed to: {@code sources} plus withdrawn ones still draining
   * @param client        peer discovery client, or null when peers are disabled (local only)
   * @param openApiClient peer OpenAPI client, or null when peers are disabled
   * @param view          the reference to publish views to
   * @param metrics       sync error counters
   * @param configuredMembers  {@code --cluster-members} as resolved {@code ip:port} (may include this node)
   * @param selfClusterAddress this node's own Hazelcast {@code ip:port}
   * @param memberWait         {@code --member-wait-seconds}: the longest one awaited member holds 404 back
   */
  public DiscoveryVerticle(String serverId, String serverAddress, java.util.function.Supplier<List<ApiSource>> sources,
                           java.util.function.Supplier<List<ApiSource>> serving, PeerDiscoveryClient client, PeerOpenApiClient openApiClient, FleetViewRef view,
                           NodeMetrics metrics, List<String> configuredMembers, String selfClusterAddress,
                           java.time.Duration memberWait) {
    this.openApi = new FleetOpenApi(openApiClient == null ? null : new PeerOpenApi(openApiClient), view, sources,
        () -> peers.values().stream().filter(p -> p.loaded).toList(), LOG);
    this.waits = new FleetWaits(configuredMembers, selfClusterAddress, memberWait.toMillis());
    this.departed = new DepartedPeers(serverId);
    this.serverId = serverId;
    this.serverAddress = serverAddress;
    this.sources = sources;
    this.serving = serving;
    this.peersEnabled = client != null;
    this.client = client;
    this.view = view;
    this.metrics = metrics;
  }

  @Override
  public Future<?> start() {
    openApi.bind(vertx);
    vertx.eventBus().<MembershipSnapshot>localConsumer(Addresses.MEMBERSHIP_CHANGED, m -> onMembership(m.body()));
    vertx.eventBus().<JsonObject>consumer(Addresses.DISCOVERY_CHANGED,
        m -> onAnnounce(io.mvproxy.node.bus.Announcements.DiscoveryChanged.fromJson(m.body())));
    vertx.eventBus().localConsumer(Addresses.LOCAL_APIS_CHANGED, m -> {
      openApi.invalidate();
      rebuild();
    });
    vertx.eventBus().localConsumer(Addresses.LOCAL_PEERS_CAUGHT_UP, m -> {
      rebuild();
      catchUp.await(m, peers.keySet());
    });
    vertx.eventBus().<JsonObject>consumer(Addresses.discoveryApplied(serverId), m -> {
      var applied = io.mvproxy.node.bus.Announcements.DiscoveryApplied.fromJson(m.body());
      catchUp.applied(applied.serverId(), applied.etag(), peers.keySet());
    });
    vertx.setPeriodic(REVALIDATE_MS, t -> {
      peers.values().forEach(this::fetch);
      departed.loadShared(this::liveLoaded, this::rebuild);
      openApi.refresh(true);
    });
    if (peersEnabled) {
      departed.bind(vertx, this::liveLoaded, this::rebuild);
    }
    membershipKnown = !peersEnabled;
    startedAt = System.currentTimeMillis();
    rebuild();
    return Future.succeededFuture();
  }

  private void onMembership(MembershipSnapshot snap) {
    if (!peersEnabled) {
      return;
    }
    if (!membershipKnown) {
      departed.selfBack(); // this node is back: what it served before is no longer "departed"
    }
    membershipKnown = true;
    members = snap.members();
    long now = System.currentTimeMillis();
    Set<String> ids = new HashSet<>();
    for (MembershipSnapshot.Member m : members) {
      ids.add(m.nodeId());
      memberSeenAt.putIfAbsent(m.nodeId(), now);
    }
    memberSeenAt.keySet().retainAll(ids);
    leaving.values().retainAll(ids);
    Map<String, PeerInfo> live = new HashMap<>();
    snap.peers().forEach(p -> live.put(p.serverId(), p));
    for (String gone : new ArrayList<>(peers.keySet())) {
      if (!live.containsKey(gone)) {
        PeerState s = peers.remove(gone);
        if (ids.contains(s.info.nodeId())) {
          leaving.put(gone, s.info.nodeId());
        }
        if (s.loaded) {
          departed.left(gone, s.groups, true);
        }
        LOG.info("peer " + gone + " left the fleet");
      }
    }
    for (PeerInfo p : live.values()) {
      leaving.remove(p.serverId());
      PeerState s = peers.get(p.serverId());
      if (s == null) {
        s = new PeerState(p);
        peers.put(p.serverId(), s);
        LOG.info("peer " + p.serverId() + " joined at " + p.host() + ":" + p.port());
        fetch(s);
      } else {
        boolean moved = !s.info.host().equals(p.host()) || s.info.port() != p.port();
        boolean rejoined = !Objects.equals(s.info.nodeId(), p.nodeId());
        s.info = p;
        if (rejoined && s.loaded) {
          // came back from a split or suspicion: its API set may have changed; keep the old one as departed (503)
          // until it is fetched again
          LOG.info("peer " + p.serverId() + " rejoined as member " + p.nodeId() + ": re-learning its APIs");
          departed.left(p.serverId(), s.groups, false);
          s.loaded = false;
          s.since = System.currentTimeMillis();
        }
        if (moved || rejoined || !Objects.equals(p.etag(), s.fetchedEtag)) {
          fetch(s);
        }
      }
    }
    rebuild();
    catchUp.livePeers(peers.keySet());
  }

  private void onAnnounce(io.mvproxy.node.bus.Announcements.DiscoveryChanged a) {
    PeerState s = peers.get(a.serverId());
    if (s != null && !Objects.equals(a.etag(), s.fetchedEtag)) {
      Convergence.stage("announce-received", a.serverId(), a.etag());
      s.info = new PeerInfo(s.info.serverId(), s.info.host(), s.info.port(), s.info.nodeId(),
          a.etag(), s.info.version(), s.info.plugins());
      fetch(s);
    }
  }

  private void fetch(PeerState s) {
    if (s.fetching) {
      s.refetch = true;
      return;
    }
    s.fetching = true;
    String etag = s.info.etag();
    client.fetch(s.info, s.fetched).onComplete(ar -> {
      s.fetching = false;
      String applied = null;
      if (peers.get(s.info.serverId()) != s) {
        return;
      }
      if (ar.succeeded()) {
        s.fetched = ar.result();
        s.groups = ar.result().groups();
        s.fetchedEtag = etag;
        s.loaded = true;
        s.stale = false;
        s.failures = 0;
        departed.back(s.info.serverId());
        applied = etag;
        Convergence.stage("fetched", s.info.serverId(), etag);
      } else {
        s.failures++;
        s.stale = s.loaded;
        metrics.discoverySyncError("fetch_discovery");
        long backoff = Math.min(30_000L, 250L << Math.min(s.failures, 7));
        LOG.warning("discovery of peer " + s.info.serverId() + " failed (" + s.failures + "): "
            + ar.cause().getMessage() + "; retry in " + backoff + " ms");
        vertx.setTimer(backoff, t -> {
          if (peers.get(s.info.serverId()) == s) {
            fetch(s);
          }
        });
      }
      if (s.refetch) {
        s.refetch = false;
        fetch(s);
      }
      rebuild();
      if (applied != null) {
        Convergence.stage("merged", s.info.serverId(), applied);
        // the new view is published: tell the peer, so it may stop serving what it withdrew (make before break)
        vertx.eventBus().send(Addresses.discoveryApplied(s.info.serverId()),
            new io.mvproxy.node.bus.Announcements.DiscoveryApplied(serverId, applied).toJson());
      }
    });
  }

  private void rebuild() {
    long now = System.currentTimeMillis();
    departed.expire(now);
    List<Awaited> awaiting = awaiting(now);
    Map<String, FleetAssembly.Peer> known = new HashMap<>();
    peers.forEach((id, p) -> known.put(id, new FleetAssembly.Peer(p.info, p.groups, p.loaded, p.stale)));
    DiscoveryDocuments current = view.get().discovery();
    FleetAssembly.Assembled a = FleetAssembly.assemble(serverId, serverAddress, current, sources.get(),
        serving.get(), known, departed.groups(), awaiting);
    DiscoveryDocuments dd = a.discovery();
    if (dd != current) {
      metrics.discoveryMerged();
    }
    if (!awaiting.equals(lastAwaiting)) {
      LOG.info(awaiting.isEmpty() ? "the fleet's API set is known: unknown resources now get 404"
          : "404 answers held back (503) while waiting for "
          + String.join(", ", awaiting.stream().map(Awaited::describe).toList()));
      lastAwaiting = awaiting;
    }
    Set<String> stillLeaving = new HashSet<>(leaving.keySet());
    stillLeaving.removeAll(a.members().keySet());
    view.set(new FleetView(a.routing(), dd, openApi.trimmed(dd), a.members(), stillLeaving));
    openApi.refresh(false);
    if (!dd.localEtag().equals(lastEtag)) {
      lastEtag = dd.localEtag();
      catchUp.localEtag(lastEtag);
      vertx.eventBus().send(Addresses.LOCAL_ETAG_CHANGED, lastEtag);
    }
  }

  /** @return whether {@code id} is a live peer whose discovery is loaded */
  private boolean liveLoaded(String id) {
    PeerState live = peers.get(id);
    return live != null && live.loaded;
  }

  /**
   * What this node still waits for before it may answer 404 ({@link FleetWaits}); schedules a rebuild at the
   * earliest expiry so the answer changes even when nothing else happens.
   */
  private List<Awaited> awaiting(long now) {
    FleetWaits.Waits w = waits.at(now, membershipKnown, peersEnabled, startedAt, members, memberSeenAt,
        peers.values().stream().map(p -> new FleetWaits.Peer(p.info.serverId(), p.info.nodeId(), p.loaded, p.since))
            .toList());
    if (!membershipKnown) {
      return w.awaiting();
    }
    if (expiryTimer >= 0) {
      vertx.cancelTimer(expiryTimer);
      expiryTimer = -1;
    }
    if (w.nextExpiry() != Long.MAX_VALUE) {
      expiryTimer = vertx.setTimer(Math.max(1, w.nextExpiry() - now + 1), t -> {
        expiryTimer = -1;
        rebuild();
      });
    }
    return w.awaiting();
  }

  /** @return server IDs of live peers whose data is loaded (for health checks and logs) */
  Set<String> loadedPeers() {
    Set<String> out = new HashSet<>();
    peers.values().stream().filter(p -> p.loaded).forEach(p -> out.add(p.info.serverId()));
    return out;
  }
}
