package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.Gvr;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.discovery.DiscoveryGroup;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.DiscoveryVersion;
import io.mvproxy.api.discovery.Freshness;
import io.mvproxy.api.discovery.ResponseKind;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.mvproxy.discovery.DiscoveryDocuments;
import io.mvproxy.node.membership.PeerInfo;
import io.mvproxy.node.routing.Awaited;
import io.vertx.ext.web.RoutingContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link FleetAssembly}, table-driven: from what the discovery verticle knows (local sources, live peers, departed
 * peers, what it awaits) to the merged documents and the routing snapshot. Each row names the inputs and checks
 * what routes where, what discovery lists (and how fresh), and readiness.
 */
@Tag("unit")
class FleetAssemblyTest {
  static final Gvr WIDGETS_V1 = new Gvr("demo.mvproxy.io", "v1", "widgets");
  static final Gvr GADGETS = new Gvr("demo.mvproxy.io", "v1", "gadgets");
  static final Gvr THINGS = new Gvr("things.mvproxy.io", "v1", "thingamajigs");

  /** A local source serving the given resources (never asked to handle anything here). */
  record Source(String name, List<Gvr> gvrs) implements ApiSource {
    @Override
    public List<ServedGroupVersion> groupVersions() {
      Map<GroupVersion, List<DiscoveryResource>> by = new LinkedHashMap<>();
      gvrs.forEach(g -> by.computeIfAbsent(g.groupVersion(), k -> new java.util.ArrayList<>()).add(resource(g)));
      return by.entrySet().stream().map(e -> new ServedGroupVersion(e.getKey(), 1000, 100, e.getValue(),
          Freshness.Current)).toList();
    }

    @Override
    public void handle(RoutingContext ctx, RequestInfo info, UserInfo user) {
      throw new UnsupportedOperationException("not called by the assembly");
    }
  }

  static DiscoveryResource resource(Gvr g) {
    return new DiscoveryResource(g.resource(), g.resource(), new ResponseKind(g.group(), g.version(), "Kind"), true,
        List.of("get", "list"), List.of(), List.of(), List.of(), null);
  }

  static List<DiscoveryGroup> groups(Gvr... gvrs) {
    Map<String, List<DiscoveryVersion>> by = new LinkedHashMap<>();
    for (Gvr g : gvrs) {
      by.computeIfAbsent(g.group(), k -> new java.util.ArrayList<>()).add(new DiscoveryVersion(g.version(),
          List.of(resource(g)), Freshness.Current));
    }
    return by.entrySet().stream().map(e -> new DiscoveryGroup(e.getKey(), e.getValue())).toList();
  }

  static FleetAssembly.Peer peer(String id, boolean loaded, boolean stale, Gvr... gvrs) {
    return new FleetAssembly.Peer(new PeerInfo(id, "127.0.0.1", 6444, "uuid-" + id, "etag", "v", List.of()),
        loaded ? groups(gvrs) : List.of(), loaded, stale);
  }

  /**
   * One row.
   *
   * @param name       the case
   * @param published  local sources in discovery
   * @param draining   local sources withdrawn but still draining
   * @param peers      live peers
   * @param departed   departed peers' groups
   * @param awaiting   what the node waits for
   * @param local      GVRs routed locally
   * @param byPeer     per live peer, GVRs it is routed to for
   * @param gone       GVRs answered 503 as only departed peers served them
   * @param stale      group-versions discovery lists as Stale
   * @param listed     every group-version merged discovery lists
   * @param ready      readiness
   */
  record Row(String name, List<ApiSource> published, List<ApiSource> draining, List<FleetAssembly.Peer> peers,
             Map<String, List<DiscoveryGroup>> departed, List<Awaited> awaiting, List<Gvr> local,
             Map<String, List<Gvr>> byPeer, List<Gvr> gone, List<String> stale, List<String> listed, boolean ready) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Arguments> rows() {
    Source widgets = new Source("crd/widgets", List.of(WIDGETS_V1));
    Source gadgets = new Source("crd/gadgets", List.of(GADGETS));
    return Stream.of(
        new Row("alone: local sources are routed here and listed", List.of(widgets), List.of(), List.of(), Map.of(),
            List.of(), List.of(WIDGETS_V1), Map.of(), List.of(), List.of(), List.of("demo.mvproxy.io/v1"), true),
        new Row("a loaded peer: routed to it and merged", List.of(widgets), List.of(),
            List.of(peer("node-b", true, false, THINGS)), Map.of(), List.of(), List.of(WIDGETS_V1),
            Map.of("node-b", List.of(THINGS)), List.of(), List.of(),
            List.of("demo.mvproxy.io/v1", "things.mvproxy.io/v1"), true),
        new Row("a peer not fetched yet: no capabilities, nothing merged", List.of(), List.of(),
            List.of(peer("node-b", false, false)), Map.of(), List.of(new Awaited(Awaited.Kind.PEER_DISCOVERY,
                "node-b")), List.of(), Map.of("node-b", List.of()), List.of(), List.of(), List.of(), false),
        new Row("a peer whose refresh failed: still routed, listed Stale", List.of(), List.of(),
            List.of(peer("node-b", true, true, THINGS)), Map.of(), List.of(), List.of(),
            Map.of("node-b", List.of(THINGS)), List.of(), List.of("things.mvproxy.io/v1"),
            List.of("things.mvproxy.io/v1"), true),
        new Row("a departed peer: 503 for what only it served, listed Stale", List.of(widgets), List.of(),
            List.of(), Map.of("node-c", groups(THINGS)), List.of(), List.of(WIDGETS_V1), Map.of(), List.of(THINGS),
            List.of("things.mvproxy.io/v1"), List.of("demo.mvproxy.io/v1", "things.mvproxy.io/v1"), true),
        new Row("a departed peer back and loaded: live again, not departed", List.of(), List.of(),
            List.of(peer("node-c", true, false, THINGS)), Map.of("node-c", groups(THINGS)), List.of(), List.of(),
            Map.of("node-c", List.of(THINGS)), List.of(), List.of(), List.of("things.mvproxy.io/v1"), true),
        new Row("a departed peer back but not fetched yet: still departed", List.of(), List.of(),
            List.of(peer("node-c", false, false)), Map.of("node-c", groups(THINGS)), List.of(), List.of(),
            Map.of("node-c", List.of()), List.of(THINGS), List.of("things.mvproxy.io/v1"),
            List.of("things.mvproxy.io/v1"), true),
        new Row("a withdrawn source still draining: routed here, not listed (make before break)", List.of(widgets),
            List.of(gadgets), List.of(), Map.of(), List.of(), List.of(WIDGETS_V1, GADGETS), Map.of(), List.of(),
            List.of(), List.of("demo.mvproxy.io/v1"), true),
        new Row("waiting only for a configured member to join: ready (404 still held back)", List.of(), List.of(),
            List.of(), Map.of(), List.of(new Awaited(Awaited.Kind.MEMBER_JOIN, "127.0.0.1:5702")), List.of(),
            Map.of(), List.of(), List.of(), List.of(), true),
        new Row("a member without a record: not ready", List.of(), List.of(), List.of(), Map.of(),
            List.of(new Awaited(Awaited.Kind.MEMBER_RECORD, "127.0.0.1:5703")), List.of(), Map.of(), List.of(),
            List.of(), List.of(), false)
    ).map(Arguments::of);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void assembles(Row r) {
    Map<String, FleetAssembly.Peer> peers = new LinkedHashMap<>();
    r.peers().forEach(p -> peers.put(p.info().serverId(), p));
    List<ApiSource> routed = new java.util.ArrayList<>(r.published());
    routed.addAll(r.draining());
    FleetAssembly.Assembled a = FleetAssembly.assemble("node-a", "127.0.0.1:6443",
        DiscoveryDocuments.empty("node-a", "127.0.0.1:6443"), r.published(), routed, peers, r.departed(),
        r.awaiting());
    assertEquals(new java.util.HashSet<>(r.local()), a.routing().local().keySet(), "local routes");
    r.local().forEach(g -> assertEquals(true, a.routing().localCaps().serves(g, ""), "local caps " + g));
    assertEquals(r.byPeer().keySet(), a.routing().peers().keySet(), "live peers");
    r.byPeer().forEach((id, gvrs) -> {
      for (Gvr g : List.of(WIDGETS_V1, GADGETS, THINGS)) {
        assertEquals(gvrs.contains(g), a.routing().peers().get(id).caps().serves(g, ""), id + " serves " + g);
      }
    });
    for (Gvr g : List.of(WIDGETS_V1, GADGETS, THINGS)) {
      boolean departed = a.routing().departed().values().stream().anyMatch(c -> c.serves(g, ""));
      assertEquals(r.gone().contains(g), departed, "departed serves " + g);
    }
    List<String> listed = new java.util.ArrayList<>();
    List<String> stale = new java.util.ArrayList<>();
    for (DiscoveryGroup g : a.discovery().mergedGroups()) {
      for (DiscoveryVersion v : g.versions()) {
        listed.add(g.name() + "/" + v.version());
        if (v.freshness() == Freshness.Stale) {
          stale.add(g.name() + "/" + v.version());
        }
      }
    }
    assertEquals(new TreeSet<>(r.listed()), new TreeSet<>(listed), "merged discovery");
    assertEquals(new TreeSet<>(r.stale()), new TreeSet<>(stale), "Stale in discovery");
    assertEquals(r.ready(), a.routing().ready(), "ready");
    assertEquals(r.byPeer().keySet(), a.members().keySet(), "members");
  }
}
