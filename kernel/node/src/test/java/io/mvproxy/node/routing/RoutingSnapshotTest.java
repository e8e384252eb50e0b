package io.mvproxy.node.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.Gvr;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Table-driven test of {@link RoutingSnapshot#decide}: every row is a fleet state, a request and the decision. */
@Tag("unit")
class RoutingSnapshotTest {
  static final Gvr WIDGETS_V1 = new Gvr("demo.mvproxy.io", "v1", "widgets");
  static final Gvr WIDGETS_V2 = new Gvr("demo.mvproxy.io", "v2", "widgets");
  static final Gvr THINGS = new Gvr("things.mvproxy.io", "v1", "thingamajigs");
  static final Source LOCAL_WIDGETS = new Source("crd/widgets");
  static final Source WARDLE = new Source("apiservice/v1alpha1.wardle.example.com");
  static final PeerTarget B = new PeerTarget("node-b", "127.0.0.1", 6444);

  /** A local API source: only its identity matters to the decision. */
  record Source(String name) implements ApiSource {
    @Override
    public List<ServedGroupVersion> groupVersions() {
      return List.of();
    }

    @Override
    public void handle(RoutingContext ctx, RequestInfo info, UserInfo user) {
      throw new UnsupportedOperationException("not called by decide");
    }
  }

  /** Builds snapshots row by row. */
  static final class Fleet {
    Map<Gvr, ApiSource> local = Map.of(WIDGETS_V1, LOCAL_WIDGETS);
    Capabilities localCaps = new Capabilities(Map.of(WIDGETS_V1, Set.of()));
    Map<String, RoutingSnapshot.PeerEntry> peers = Map.of();
    Map<String, Capabilities> departed = Map.of();
    boolean ready = true;
    Map<GroupVersion, ApiSource> whole = Map.of();
    List<Awaited> awaiting = List.of();

    Fleet peerB(Map<Gvr, Set<String>> caps) {
      peers = Map.of("node-b", new RoutingSnapshot.PeerEntry(B, new Capabilities(caps), true));
      return this;
    }

    Fleet unloadedPeerB() {
      peers = Map.of("node-b", new RoutingSnapshot.PeerEntry(B, Capabilities.NONE, false));
      return awaiting(new Awaited(Awaited.Kind.PEER_DISCOVERY, "node-b")).notReady();
    }

    Fleet departedC(Gvr gvr, String... subresources) {
      departed = Map.of("node-c", new Capabilities(Map.of(gvr, Set.of(subresources))));
      return this;
    }

    Fleet notReady() {
      ready = false;
      return this;
    }

    Fleet awaiting(Awaited... a) {
      awaiting = List.of(a);
      return this;
    }

    Fleet wholeWardle() {
      whole = Map.of(new GroupVersion("wardle.example.com", "v1alpha1"), WARDLE);
      return this;
    }

    RoutingSnapshot build() {
      return new RoutingSnapshot(local, localCaps, peers, departed, ready, whole, awaiting);
    }
  }

  static RequestInfo get(String path) {
    return RequestInfo.parse("GET", path, null);
  }

  static Arguments row(String name, Fleet fleet, String path, boolean proxied, boolean peersOn, Decision want,
                       String messagePart) {
    return Arguments.of(name, fleet.build(), get(path), proxied, peersOn, want, messagePart);
  }

  static Stream<Arguments> rows() {
    Decision local = new Decision.Local(LOCAL_WIDGETS);
    Decision toB = new Decision.Proxy(List.of(B));
    Decision notFound = new Decision.NotFound();
    Decision departed = new Decision.Unavailable(Decision.Unavailable.Cause.DEPARTED, null);
    Decision unknown = new Decision.Unavailable(Decision.Unavailable.Cause.FLEET_UNKNOWN, null);
    Decision notHere = new Decision.Unavailable(Decision.Unavailable.Cause.NOT_SERVED_HERE, null);
    String v1 = "/apis/demo.mvproxy.io/v1/namespaces/default/widgets";
    String v2 = "/apis/demo.mvproxy.io/v2/namespaces/default/widgets";
    String things = "/apis/things.mvproxy.io/v1/thingamajigs";
    String nope = "/apis/nope.example.com/v1/things";
    return Stream.of(
        row("served locally", new Fleet(), v1, false, true, local, null),
        row("served locally even while the fleet is unknown", new Fleet().notReady()
            .awaiting(new Awaited(Awaited.Kind.MEMBERSHIP, "")), v1, false, true, local, null),
        row("a subresource only a peer serves is proxied", new Fleet().peerB(Map.of(WIDGETS_V1, Set.of("status"))),
            v1 + "/w1/status", false, true, toB, null),
        row("a subresource nobody serves: local answer", new Fleet(), v1 + "/w1/status", false, true, local, null),
        row("a subresource nobody known serves while a peer is unloaded: 503", new Fleet().unloadedPeerB(),
            v1 + "/w1/status", false, true, unknown, "the discovery of peer node-b"),
        row("a subresource only a departed peer served: 503", new Fleet()
            .departedC(WIDGETS_V1, "scale"), v1 + "/w1/scale", false, true, departed, "widgets.demo.mvproxy.io/scale"),
        row("a resource only a peer serves is proxied", new Fleet().peerB(Map.of(WIDGETS_V2, Set.of())), v2, false,
            true, toB, null),
        row("already proxied, lacking it: 503 not served here (never 404), never proxied again",
            new Fleet().peerB(Map.of(WIDGETS_V2, Set.of())), v2, true, true, notHere, "does not serve"),
        row("already proxied with peers off here, lacking it: 503 not served here", new Fleet(), v2, true, false,
            notHere, "widgets.demo.mvproxy.io in demo.mvproxy.io/v2"),
        row("already proxied, an aggregated group-version withdrawn here: 503 not served here", new Fleet(),
            "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", true, true, notHere,
            "flunders.wardle.example.com in wardle.example.com/v1alpha1"),
        row("already proxied, lacking the subresource: local", new Fleet()
            .peerB(Map.of(WIDGETS_V1, Set.of("status"))), v1 + "/w1/status", true, true, local, null),
        row("peers off: local only, 404", new Fleet().peerB(Map.of(WIDGETS_V2, Set.of())), v2, false, false,
            notFound, null),
        row("only a departed peer served it: 503", new Fleet().departedC(THINGS), things, false, true, departed,
            "its servers are unreachable"),
        row("departed wins over waiting", new Fleet().departedC(THINGS).notReady()
            .awaiting(new Awaited(Awaited.Kind.MEMBER_RECORD, "127.0.0.1:5703")), things, false, true, departed, null),
        row("not ready: 503", new Fleet().notReady(), nope, false, true, unknown, "not fully known"),
        row("a whole group-version served locally (aggregated API)", new Fleet().wholeWardle(),
            "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", false, true,
            new Decision.Local(WARDLE), null),
        row("nothing serves it and the fleet is known: 404", new Fleet().peerB(Map.of(WIDGETS_V2, Set.of())), nope,
            false, true, notFound, null),
        row("start-up: no membership yet", new Fleet().notReady().awaiting(new Awaited(Awaited.Kind.MEMBERSHIP, "")),
            v2, false, true, unknown, "the cluster membership"),
        row("start-up: a configured member has not joined yet (node started first or alone)", new Fleet()
            .awaiting(new Awaited(Awaited.Kind.MEMBER_JOIN, "127.0.0.1:5702")), v2, false, true, unknown,
            "cluster member 127.0.0.1:5702 (--cluster-members) to join"),
        row("start-up: a member joined but has not published its API set", new Fleet().notReady()
            .awaiting(new Awaited(Awaited.Kind.MEMBER_RECORD, "127.0.0.1:5703")), v2, false, true, unknown,
            "cluster member 127.0.0.1:5703 to publish its API set"),
        row("start-up: a published peer not fetched yet", new Fleet().unloadedPeerB(), v2, false, true, unknown,
            "the discovery of peer node-b"),
        row("start-up: a capable peer is known while another is awaited: proxied", new Fleet()
            .peerB(Map.of(WIDGETS_V2, Set.of())).awaiting(new Awaited(Awaited.Kind.MEMBER_JOIN, "127.0.0.1:5703")),
            v2, false, true, toB, null),
        row("late member: the wait bound passed (nothing awaited): 404", new Fleet(), v2, false, true, notFound,
            null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void decides(String name, RoutingSnapshot snapshot, RequestInfo info, boolean proxied, boolean peersOn,
               Decision want, String messagePart) {
    Decision got = snapshot.decide(info, proxied, peersOn);
    if (want instanceof Decision.Unavailable w) {
      Decision.Unavailable u = assertInstance(got, name);
      assertEquals(w.cause(), u.cause(), name + ": " + u.message());
      if (messagePart != null) {
        assertTrue(u.message().contains(messagePart), name + ": " + u.message());
      }
    } else {
      assertEquals(want, got, name);
    }
  }

  static Stream<Arguments> groupVersionRows() {
    GroupVersion v2 = new GroupVersion("demo.mvproxy.io", "v2");
    GroupVersion things = new GroupVersion("things.mvproxy.io", "v1");
    Decision notFound = new Decision.NotFound();
    return Stream.of(
        Arguments.of("a peer serves the group-version: proxied", new Fleet().peerB(Map.of(WIDGETS_V2, Set.of()))
            .build(), v2, false, new Decision.Proxy(List.of(B))),
        Arguments.of("already proxied, lacking it: 503 not served here", new Fleet().peerB(Map.of(WIDGETS_V2,
            Set.of())).build(), v2, true, new Decision.Unavailable(Decision.Unavailable.Cause.NOT_SERVED_HERE, null)),
        Arguments.of("only a departed peer served it: 503", new Fleet().departedC(THINGS).build(), things, false,
            new Decision.Unavailable(Decision.Unavailable.Cause.DEPARTED, null)),
        Arguments.of("fleet not known yet: 503", new Fleet().awaiting(new Awaited(Awaited.Kind.MEMBER_JOIN,
            "127.0.0.1:5702")).build(), v2, false, new Decision.Unavailable(Decision.Unavailable.Cause.FLEET_UNKNOWN,
            null)),
        Arguments.of("nobody serves it, fleet known: 404", new Fleet().build(), v2, false, notFound));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("groupVersionRows")
  void decidesGroupVersions(String name, RoutingSnapshot snapshot, GroupVersion gv, boolean proxied, Decision want) {
    Decision got = snapshot.decideGroupVersion(gv, proxied, true);
    if (want instanceof Decision.Unavailable w) {
      assertEquals(w.cause(), assertInstance(got, name).cause(), name);
    } else {
      assertEquals(want, got, name);
    }
  }

  private static Decision.Unavailable assertInstance(Decision d, String name) {
    assertTrue(d instanceof Decision.Unavailable, name + ": got " + d);
    return (Decision.Unavailable) d;
  }
}
