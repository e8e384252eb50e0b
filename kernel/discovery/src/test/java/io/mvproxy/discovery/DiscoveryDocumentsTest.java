package io.mvproxy.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.discovery.DiscoveryGroup;
import io.mvproxy.api.discovery.Freshness;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.mvproxy.discovery.DiscoveryDocuments.View;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class DiscoveryDocumentsTest {
  /** What node B's nopeer documents look like after travelling as JSON. */
  static List<DiscoveryGroup> overTheWire(List<ServedGroupVersion> served) {
    LocalDiscovery ld = LocalDiscovery.of(served);
    List<DiscoveryGroup> out = new ArrayList<>(DiscoveryCodec.decode(DiscoveryCodec.encode(ld.core(),
        DiscoveryFormat.V2)));
    out.addAll(DiscoveryCodec.decode(DiscoveryCodec.encode(ld.nonCore(), DiscoveryFormat.V2)));
    return out;
  }

  static DiscoveryDocuments nodeA(Comparator<String> mapOrder) {
    SortedMap<String, List<DiscoveryGroup>> peers = new TreeMap<>(mapOrder);
    peers.put("node-b", overTheWire(Fixtures.nodeB()));
    peers.put("node-a", overTheWire(Fixtures.nodeA()));
    return new DiscoveryDocuments(Fixtures.nodeA(), peers, "node-a", "10.0.0.1:6443");
  }

  static DiscoveryDocuments nodeB(Comparator<String> mapOrder) {
    SortedMap<String, List<DiscoveryGroup>> peers = new TreeMap<>(mapOrder);
    peers.put("node-a", overTheWire(Fixtures.nodeA()));
    return new DiscoveryDocuments(Fixtures.nodeB(), peers, "node-b", "10.0.0.2:6443");
  }

  private static List<String> groupNames(Buffer aggregated) {
    return new JsonObject(aggregated).getJsonArray("items").stream()
        .map(o -> ((JsonObject) o).getJsonObject("metadata").getString("name", "")).toList();
  }

  @Test
  void peerAggregatedIsIdenticalOnEveryNode() {
    DiscoveryDocuments a = nodeA(Comparator.naturalOrder());
    DiscoveryDocuments b = nodeB(Comparator.reverseOrder());
    for (DiscoveryFormat f : List.of(DiscoveryFormat.V2, DiscoveryFormat.V2BETA1)) {
      for (boolean core : List.of(true, false)) {
        assertEquals(a.aggregated(View.PEER_AGGREGATED, f, core), b.aggregated(View.PEER_AGGREGATED, f, core));
      }
    }
    assertEquals(a.legacyApis(), b.legacyApis());
    assertNotEquals(a.aggregated(View.LOCAL, DiscoveryFormat.V2, false),
        b.aggregated(View.LOCAL, DiscoveryFormat.V2, false));
  }

  @Test
  void viewsAndFormats() {
    DiscoveryDocuments a = nodeA(Comparator.naturalOrder());
    DiscoveryDocuments.Rendered merged = a.aggregated(View.PEER_AGGREGATED, DiscoveryFormat.V2, false);
    assertEquals(List.of("stable.example.com", "widgets.example.io", "metrics.k8s.io"), groupNames(merged.body()));
    assertEquals(DiscoveryFormat.V2.contentType(), merged.contentType());
    assertEquals(Etags.of(merged.body()), merged.etag());
    DiscoveryDocuments.Rendered local = a.aggregated(View.LOCAL, DiscoveryFormat.V2BETA1, false);
    assertEquals(List.of("stable.example.com", "widgets.example.io"), groupNames(local.body()));
    assertEquals("apidiscovery.k8s.io/v2beta1", new JsonObject(local.body()).getString("apiVersion"));
    assertEquals(List.of(""), groupNames(a.aggregated(View.PEER_AGGREGATED, DiscoveryFormat.V2, true).body()));
    assertThrows(IllegalArgumentException.class, () -> a.aggregated(View.LOCAL, DiscoveryFormat.LEGACY, true));
    assertEquals("node-a", a.serverId());
    assertEquals(4, a.mergedGroups().size());
    assertEquals(3, a.localGroups().size());
  }

  @Test
  void legacyDocuments() {
    DiscoveryDocuments a = nodeA(Comparator.naturalOrder());
    assertEquals("10.0.0.1:6443", new JsonObject(a.legacyApi()).getJsonArray("serverAddressByClientCIDRs")
        .getJsonObject(0).getString("serverAddress"));
    assertEquals(3, new JsonObject(a.legacyApis()).getJsonArray("groups").size());
    JsonObject widgets = new JsonObject(a.legacyGroup("widgets.example.io").orElseThrow());
    assertEquals("widgets.example.io/v2", widgets.getJsonObject("preferredVersion").getString("groupVersion"),
        "the fleet view of a group this node serves");
    assertTrue(a.legacyGroup("metrics.k8s.io").isEmpty());
    assertEquals("v1beta1", a.fleetPreferredVersion("metrics.k8s.io").orElseThrow());
    JsonObject rl = new JsonObject(a.legacyResourceList(new GroupVersion("stable.example.com", "v1"))
        .orElseThrow());
    assertEquals(Fixtures.hash("stable.example.com/v1/CronTab"),
        rl.getJsonArray("resources").getJsonObject(1).getString("storageVersionHash"));
    assertTrue(a.legacyResourceList(new GroupVersion("", "v1")).isPresent());
    assertTrue(a.legacyResourceList(new GroupVersion("widgets.example.io", "v2")).isEmpty());
    assertTrue(a.servedByFleet(new GroupVersion("widgets.example.io", "v2")));
    assertFalse(a.servedByFleet(new GroupVersion("widgets.example.io", "v3")));
  }

  @Test
  void staleVersionsStayListedButAreUnavailable() {
    List<ServedGroupVersion> local = List.of(Fixtures.crdGv("s.example.com", "v1", Freshness.Stale,
        Fixtures.widgets("v1")));
    DiscoveryDocuments d = new DiscoveryDocuments(local, new TreeMap<>(), "n", "h:1");
    assertEquals(List.of("s.example.com"),
        groupNames(d.aggregated(View.PEER_AGGREGATED, DiscoveryFormat.V2, false).body()));
    // listed in legacy /apis as kube-aggregator lists an unavailable APIService; its version answers 503
    assertEquals(1, new JsonObject(d.legacyApis()).getJsonArray("groups").size());
    assertTrue(d.legacyGroup("s.example.com").isEmpty());
    assertTrue(d.legacyResourceList(new GroupVersion("s.example.com", "v1")).isEmpty());
    assertTrue(d.servedByFleet(new GroupVersion("s.example.com", "v1")));
    assertTrue(d.unavailableHere(new GroupVersion("s.example.com", "v1")));
    assertFalse(d.unavailableHere(new GroupVersion("s.example.com", "v2")));
  }

  @Test
  void localEntryIsRecomputedAndLocalEtagTracksLocalView() {
    SortedMap<String, List<DiscoveryGroup>> peers = new TreeMap<>();
    peers.put("node-a", List.of());
    DiscoveryDocuments d = new DiscoveryDocuments(Fixtures.nodeA(), peers, "node-a", "h:1");
    assertEquals(d.aggregated(View.LOCAL, DiscoveryFormat.V2, false).body(),
        d.aggregated(View.PEER_AGGREGATED, DiscoveryFormat.V2, false).body());
    assertEquals(d.localEtag(), nodeA(Comparator.naturalOrder()).localEtag());
    assertNotEquals(d.localEtag(), nodeB(Comparator.naturalOrder()).localEtag());
    DiscoveryDocuments empty = DiscoveryDocuments.empty("x", "h:1");
    assertEquals("{\"kind\":\"APIGroupDiscoveryList\",\"apiVersion\":\"apidiscovery.k8s.io/v2\",\"metadata\":{},"
        + "\"items\":[]}", empty.aggregated(View.PEER_AGGREGATED, DiscoveryFormat.V2, false).body().toString());
  }

  @Test
  void updatedRecomputesOnlyOnChange() {
    SortedMap<String, List<DiscoveryGroup>> peers = new TreeMap<>(Comparator.reverseOrder());
    peers.put("node-b", overTheWire(Fixtures.nodeB()));
    DiscoveryDocuments a = new DiscoveryDocuments(Fixtures.nodeA(), peers, "node-a", "h:1");
    SortedMap<String, List<DiscoveryGroup>> same = new TreeMap<>(peers);
    same.put("node-a", List.of());
    assertSame(a, a.updated(new ArrayList<>(Fixtures.nodeA()), same, "node-a", "h:1"));
    assertNotSame(a, a.updated(Fixtures.nodeA(), peers, "node-a", "h:2"));
    SortedMap<String, List<DiscoveryGroup>> fewer = new TreeMap<>();
    DiscoveryDocuments alone = a.updated(Fixtures.nodeA(), fewer, "node-a", "h:1");
    assertNotSame(a, alone);
    assertEquals(alone.aggregated(View.LOCAL, DiscoveryFormat.V2, false),
        alone.aggregated(View.PEER_AGGREGATED, DiscoveryFormat.V2, false));
    assertNotSame(a, a.updated(Fixtures.nodeB(), peers, "node-a", "h:1"));
  }
}
