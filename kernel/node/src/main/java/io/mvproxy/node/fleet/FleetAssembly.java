package io.mvproxy.node.fleet;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.discovery.DiscoveryGroup;
import io.mvproxy.api.discovery.DiscoveryVersion;
import io.mvproxy.api.discovery.Freshness;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.mvproxy.discovery.DiscoveryDocuments;
import io.mvproxy.node.membership.PeerInfo;
import io.mvproxy.node.routing.Awaited;
import io.mvproxy.node.routing.Capabilities;
import io.mvproxy.node.routing.PeerTarget;
import io.mvproxy.node.routing.RoutingSnapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How the discovery verticle turns what it knows into the node's view, as one pure function (no clock, no I/O):
 * the merged discovery documents and the routing snapshot a request is decided on. In order: every live peer is a
 * routing entry (its capabilities once its discovery is loaded, none before) and, once loaded, contributes its
 * groups to the merged documents (marked {@code Stale} when its last refresh failed); a departed peer that is not
 * back and loaded contributes its last groups as {@code Stale} and routes to 503 ({@link RoutingSnapshot#departed()});
 * this node's published sources make its local documents, while routing also covers withdrawn sources still draining
 * (make before break); the node is ready when it waits for nothing but configured members to join.
 */
public final class FleetAssembly {
  private FleetAssembly() {
  }

  /**
   * What the verticle knows of one live peer.
   *
   * @param info   its record
   * @param groups its last fetched groups (empty until loaded)
   * @param loaded true once its discovery was fetched
   * @param stale  true when the last refresh failed (the groups are the last known good)
   */
  public record Peer(PeerInfo info, List<DiscoveryGroup> groups, boolean loaded, boolean stale) {
    /** Copies the list. */
    public Peer {
      groups = List.copyOf(groups);
    }
  }

  /**
   * The node's view, without the OpenAPI documents.
   *
   * @param routing   the routing snapshot
   * @param discovery the discovery documents (the given ones when nothing changed)
   * @param members   live peers by server ID
   */
  public record Assembled(RoutingSnapshot routing, DiscoveryDocuments discovery, Map<String, PeerInfo> members) {
  }

  /**
   * @param serverId      this node's server ID
   * @param serverAddress this node's {@code host:port} (legacy discovery)
   * @param current       the current documents ({@link DiscoveryDocuments#updated} returns them when unchanged)
   * @param published     this node's sources published in discovery
   * @param routed        this node's sources routed to: {@code published} plus withdrawn ones still draining
   * @param peers         live peers, by server ID
   * @param departed      groups of peers that departed within the retention window, by server ID
   * @param awaiting      what the node still waits for before a 404 may be given
   * @return the view
   */
  public static Assembled assemble(String serverId, String serverAddress, DiscoveryDocuments current,
                                   List<ApiSource> published, List<ApiSource> routed, Map<String, Peer> peers,
                                   Map<String, List<DiscoveryGroup>> departed, List<Awaited> awaiting) {
    TreeMap<String, List<DiscoveryGroup>> docs = new TreeMap<>();
    Map<String, RoutingSnapshot.PeerEntry> entries = new HashMap<>();
    Map<String, PeerInfo> members = new TreeMap<>();
    for (Peer p : peers.values()) {
      String id = p.info().serverId();
      if (p.loaded()) {
        docs.put(id, p.stale() ? stale(p.groups()) : p.groups());
      }
      entries.put(id, new RoutingSnapshot.PeerEntry(new PeerTarget(id, p.info().host(), p.info().port()),
          p.loaded() ? Capabilities.of(p.groups()) : Capabilities.NONE, p.loaded()));
      members.put(id, p.info());
    }
    Map<String, Capabilities> gone = new HashMap<>();
    departed.forEach((id, groups) -> {
      Peer back = peers.get(id);
      if (back == null || !back.loaded()) {
        docs.put(id, stale(groups));
        gone.put(id, Capabilities.of(groups));
      }
    });
    boolean ready = awaiting.stream().allMatch(a -> a.kind() == Awaited.Kind.MEMBER_JOIN);
    List<ServedGroupVersion> served = new ArrayList<>();
    published.forEach(s -> served.addAll(s.groupVersions()));
    DiscoveryDocuments dd = current.updated(served, docs, serverId, serverAddress);
    RoutingSnapshot rs = new RoutingSnapshot(RoutingSnapshot.index(routed), localCaps(dd, routed), entries, gone,
        ready, RoutingSnapshot.wholeGroupVersions(routed), awaiting);
    return new Assembled(rs, dd, members);
  }

  /**
   * @return what this node routes to itself: its published discovery plus what withdrawn sources still draining
   *         serve (make before break)
   */
  static Capabilities localCaps(DiscoveryDocuments dd, List<ApiSource> routed) {
    List<DiscoveryGroup> groups = new ArrayList<>(dd.localGroups());
    for (ApiSource s : routed) {
      for (ServedGroupVersion gv : s.groupVersions()) {
        groups.add(new DiscoveryGroup(gv.groupVersion().group(), List.of(new DiscoveryVersion(
            gv.groupVersion().version(), gv.resources(), Freshness.Current))));
      }
    }
    return Capabilities.of(groups);
  }

  /** @return the groups with every version marked {@code Stale} */
  static List<DiscoveryGroup> stale(List<DiscoveryGroup> groups) {
    List<DiscoveryGroup> out = new ArrayList<>();
    for (DiscoveryGroup g : groups) {
      List<DiscoveryVersion> vs = new ArrayList<>();
      for (DiscoveryVersion v : g.versions()) {
        vs.add(new DiscoveryVersion(v.version(), v.resources(), Freshness.Stale));
      }
      out.add(new DiscoveryGroup(g.name(), vs));
    }
    return out;
  }
}
