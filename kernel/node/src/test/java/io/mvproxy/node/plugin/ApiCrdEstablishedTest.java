package io.mvproxy.node.plugin;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.Gvr;
import io.mvproxy.node.routing.Awaited;
import io.mvproxy.node.routing.Capabilities;
import io.mvproxy.node.routing.PeerTarget;
import io.mvproxy.node.routing.RoutingSnapshot;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The Established rule of API-created CRDs: every live node serves every served version, the fleet fully known. */
@Tag("unit")
class ApiCrdEstablishedTest {
  static final Gvr V1 = new Gvr("example.com", "v1", "foos");
  static final Gvr V2 = new Gvr("example.com", "v2", "foos");
  static final JsonObject CRD = new JsonObject("""
      {"metadata":{"name":"foos.example.com"},"spec":{"group":"example.com","names":{"plural":"foos"},
       "versions":[{"name":"v1","served":true},{"name":"v2","served":true},{"name":"v0","served":false}]}}""");
  static final ApiSource SOURCE = new ApiSource() {
    @Override
    public String name() {
      return "crd/foos.example.com";
    }

    @Override
    public List<io.mvproxy.api.discovery.ServedGroupVersion> groupVersions() {
      return List.of();
    }

    @Override
    public void handle(io.vertx.ext.web.RoutingContext ctx, io.mvproxy.api.RequestInfo info,
                       io.mvproxy.api.UserInfo user) {
    }
  };

  static RoutingSnapshot snapshot(boolean localBoth, Map<String, RoutingSnapshot.PeerEntry> peers, boolean ready,
                                  List<Awaited> awaiting) {
    Map<Gvr, ApiSource> local = localBoth ? Map.of(V1, SOURCE, V2, SOURCE) : Map.of(V1, SOURCE);
    Map<Gvr, Set<String>> caps = localBoth ? Map.of(V1, Set.of(), V2, Set.of()) : Map.of(V1, Set.of());
    return new RoutingSnapshot(local, new Capabilities(caps), peers, Map.of(), ready, Map.of(), awaiting);
  }

  static RoutingSnapshot.PeerEntry peer(String id, boolean loaded, Gvr... gvrs) {
    Map<Gvr, Set<String>> caps = new java.util.HashMap<>();
    for (Gvr g : gvrs) {
      caps.put(g, Set.of());
    }
    return new RoutingSnapshot.PeerEntry(new PeerTarget(id, "127.0.0.1", 1), new Capabilities(caps), loaded);
  }

  @Test
  void establishedOnlyOnceEveryLiveNodeServesEveryServedVersion() {
    assertTrue(CrdEstablishing.servedByFleet(CRD, snapshot(true, Map.of(), true, List.of())), "a lone node");
    assertTrue(CrdEstablishing.servedByFleet(CRD, snapshot(true, Map.of("b", peer("b", true, V1, V2),
        "c", peer("c", true, V1, V2)), true, List.of())));
    assertFalse(CrdEstablishing.servedByFleet(CRD, snapshot(false, Map.of(), true, List.of())),
        "this node lacks v2");
    assertFalse(CrdEstablishing.servedByFleet(CRD, snapshot(true, Map.of("b", peer("b", true, V1, V2),
        "c", peer("c", true, V1)), true, List.of())), "peer c does not publish v2 yet");
    assertFalse(CrdEstablishing.servedByFleet(CRD, snapshot(true, Map.of("b", peer("b", false, V1, V2)), true,
        List.of())), "peer b's discovery not fetched");
    assertFalse(CrdEstablishing.servedByFleet(CRD, snapshot(true, Map.of(), false, List.of())), "not ready");
    assertFalse(CrdEstablishing.servedByFleet(CRD, snapshot(true, Map.of(), true,
        List.of(new Awaited(Awaited.Kind.MEMBER_JOIN, "127.0.0.1:5702")))), "a member awaited");
  }
}
