package io.mvproxy.node.routing;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.Gvr;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.ServedGroupVersion;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The immutable routing state a request is decided on, in memory (no per-request lookups; peer-proxy.md
 * section 3). Rebuilt by the discovery verticle on every local, peer or membership change and swapped atomically.
 *
 * @param local      GVR to the local source serving it
 * @param localCaps  local capabilities (for subresource-aware routing)
 * @param peers      live peers' capabilities and targets, by server ID
 * @param departed   capabilities of peers that left or whose data could not be refreshed, by server ID
 * @param ready      false until the membership is known and every member seen in the cluster has published its
 *                   record and had its discovery fetched (or waited for longer than the bound): {@code /readyz}
 * @param localWhole group-versions a local source answers for as a whole (aggregated APIs)
 * @param awaiting   what this node still waits for (within {@code --member-wait-seconds}) before a 404 may be given;
 *                   empty once the whole fleet's API set is known
 */
public record RoutingSnapshot(Map<Gvr, ApiSource> local, Capabilities localCaps,
                              Map<String, PeerEntry> peers, Map<String, Capabilities> departed, boolean ready,
                              Map<GroupVersion, ApiSource> localWhole, List<Awaited> awaiting) {

  /**
   * A live peer.
   *
   * @param target where to reach it
   * @param caps   what it serves (empty until fetched)
   * @param loaded true once its discovery has been fetched
   */
  public record PeerEntry(PeerTarget target, Capabilities caps, boolean loaded) {
  }

  /** Copies the maps. */
  public RoutingSnapshot {
    local = Map.copyOf(local);
    peers = Map.copyOf(peers);
    departed = Map.copyOf(departed);
    localWhole = Map.copyOf(localWhole);
    awaiting = List.copyOf(awaiting);
  }

  /** A node with nothing loaded yet: everything is 503 until the first real snapshot. */
  public static final RoutingSnapshot EMPTY = new RoutingSnapshot(Map.of(), Capabilities.NONE, Map.of(), Map.of(), false,
      Map.of(), List.of(new Awaited(Awaited.Kind.MEMBERSHIP, "")));

  /**
   * @param sources the local API sources
   * @return GVR to source, and the local capabilities
   */
  public static Map<Gvr, ApiSource> index(List<ApiSource> sources) {
    Map<Gvr, ApiSource> map = new HashMap<>();
    for (ApiSource s : sources) {
      for (ServedGroupVersion gv : s.groupVersions()) {
        for (DiscoveryResource r : gv.resources()) {
          map.putIfAbsent(new Gvr(gv.groupVersion().group(), gv.groupVersion().version(), r.resource()), s);
        }
      }
    }
    return map;
  }

  /**
   * @param sources the local API sources
   * @return group-version to the source that answers for all of it ({@link ApiSource#servesWholeGroupVersion()})
   */
  public static Map<GroupVersion, ApiSource> wholeGroupVersions(List<ApiSource> sources) {
    Map<GroupVersion, ApiSource> map = new HashMap<>();
    for (ApiSource s : sources) {
      if (s.servesWholeGroupVersion()) {
        s.groupVersions().forEach(gv -> map.putIfAbsent(gv.groupVersion(), s));
      }
    }
    return map;
  }

  /**
   * Decides where a resource request goes (peer-proxy.md sections 1 and 3, README "Routing rules"), in order:
   * a local source serving the resource (and subresource); a local whole-group-version source; with the loop
   * guard, local or 503 {@link Decision.Unavailable.Cause#NOT_SERVED_HERE} (the proxying node's view trailed a
   * plugin change here: it retries another peer; upstream answers 404); with peers off, local or 404; live peers serving it (shuffled); a local source lacking only the
   * subresource, unless a departed peer served it or the fleet is not fully known; 503 when only departed peers
   * served it; 503 while anything is {@link #awaiting()}; else 404.
   *
   * @param info         the parsed request (a resource request)
   * @param peerProxied  true when an authenticated peer hop marked it: always served locally
   * @param peersEnabled false when the gate is off or no {@code --peer-ca-file}: local only
   * @return the decision
   */
  public Decision decide(RequestInfo info, boolean peerProxied, boolean peersEnabled) {
    Gvr gvr = info.gvr();
    String sub = info.subresource();
    ApiSource mine = local.get(gvr);
    if (mine != null && (sub.isEmpty() || localCaps.serves(gvr, sub) || peerProxied || !peersEnabled)) {
      return new Decision.Local(mine);
    }
    ApiSource whole = localWhole.get(info.groupVersion());
    if (whole != null) {
      return new Decision.Local(whole);
    }
    if (peerProxied) {
      return mine != null ? new Decision.Local(mine) : notServedHere(gvr.groupResource() + (sub.isEmpty() ? ""
          : "/" + sub) + " in " + gvr.groupVersion());
    }
    if (!peersEnabled) {
      return mine != null ? new Decision.Local(mine) : new Decision.NotFound();
    }
    List<PeerTarget> targets = new ArrayList<>();
    for (PeerEntry p : peers.values()) {
      if (p.caps().serves(gvr, sub)) {
        targets.add(p.target());
      }
    }
    if (!targets.isEmpty()) {
      Collections.shuffle(targets, ThreadLocalRandom.current());
      return new Decision.Proxy(targets);
    }
    for (Capabilities c : departed.values()) {
      if (c.serves(gvr, sub)) {
        return new Decision.Unavailable(Decision.Unavailable.Cause.DEPARTED, "no live server of the fleet serves "
            + gvr.groupResource() + (sub.isEmpty() ? "" : "/" + sub) + " in " + gvr.groupVersion()
            + " right now; its servers are unreachable");
      }
    }
    if (ready && awaiting.isEmpty()) {
      return mine != null ? new Decision.Local(mine) : new Decision.NotFound();
    }
    List<String> what = new ArrayList<>();
    for (Awaited a : awaiting) {
      what.add(a.describe());
    }
    if (what.isEmpty()) {
      what.add("the discovery of every peer");
    }
    return new Decision.Unavailable(Decision.Unavailable.Cause.FLEET_UNKNOWN,
        "the fleet's API set is not fully known yet (waiting for " + String.join(", ", what) + "); no known server"
            + " serves " + gvr.groupResource() + (sub.isEmpty() ? "" : "/" + sub) + " in " + gvr.groupVersion());
  }

  /**
   * Decides where a non-resource request for a whole group-version this node lacks goes (legacy discovery
   * {@code /apis/<g>/<v>}, OpenAPI {@code /openapi/v3/apis/<g>/<v>}), with the same rule as {@link #decide}: live
   * peers serving it; 503 when only departed peers served it or the fleet is not fully known; else 404.
   *
   * @param gv           the group-version
   * @param peerProxied  true on an authenticated peer hop: never proxied again (503
   *                     {@link Decision.Unavailable.Cause#NOT_SERVED_HERE})
   * @param peersEnabled false when peers are off (404)
   * @return {@link Decision.Proxy}, {@link Decision.Unavailable} or {@link Decision.NotFound}
   */
  public Decision decideGroupVersion(GroupVersion gv, boolean peerProxied, boolean peersEnabled) {
    if (peerProxied) {
      return notServedHere(gv.toString());
    }
    if (!peersEnabled) {
      return new Decision.NotFound();
    }
    List<PeerTarget> targets = peersFor(gv);
    if (!targets.isEmpty()) {
      return new Decision.Proxy(targets);
    }
    for (Capabilities c : departed.values()) {
      if (c.serves(gv)) {
        return new Decision.Unavailable(Decision.Unavailable.Cause.DEPARTED, "no live server of the fleet serves "
            + gv + " right now; its servers are unreachable");
      }
    }
    if (ready && awaiting.isEmpty()) {
      return new Decision.NotFound();
    }
    List<String> what = new ArrayList<>();
    awaiting.forEach(a -> what.add(a.describe()));
    return new Decision.Unavailable(Decision.Unavailable.Cause.FLEET_UNKNOWN,
        "the fleet's API set is not fully known yet (waiting for " + (what.isEmpty() ? "the discovery of every peer"
            : String.join(", ", what)) + "); no known server serves " + gv);
  }

  private static Decision notServedHere(String what) {
    return new Decision.Unavailable(Decision.Unavailable.Cause.NOT_SERVED_HERE, "this server does not serve " + what
        + " (any more); the proxying server's view of the fleet trailed a change here");
  }

  /**
   * Peers able to answer for a group-version (legacy discovery and OpenAPI documents this node lacks).
   *
   * @param gv the group-version
   * @return live peers serving it, shuffled
   */
  public List<PeerTarget> peersFor(GroupVersion gv) {
    List<PeerTarget> out = new ArrayList<>();
    peers.values().stream().filter(p -> p.caps().serves(gv)).forEach(p -> out.add(p.target()));
    Collections.shuffle(out, ThreadLocalRandom.current());
    return out;
  }

  /** @return server IDs of the live peers */
  public Set<String> peerIds() {
    return peers.keySet();
  }
}
