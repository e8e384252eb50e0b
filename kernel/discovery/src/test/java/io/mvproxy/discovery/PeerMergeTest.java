package io.mvproxy.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.mvproxy.api.discovery.DiscoveryGroup;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.DiscoverySubresource;
import io.mvproxy.api.discovery.DiscoveryVersion;
import io.mvproxy.api.discovery.Freshness;
import io.mvproxy.api.discovery.ResponseKind;
import java.util.Comparator;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class PeerMergeTest {
  private static DiscoveryGroup group(String name, DiscoveryVersion... vs) {
    return new DiscoveryGroup(name, List.of(vs));
  }

  private static DiscoveryVersion version(String v, Freshness f, DiscoveryResource... rs) {
    return new DiscoveryVersion(v, List.of(rs), f);
  }

  private static SortedMap<String, List<DiscoveryGroup>> fleet(Comparator<String> order) {
    SortedMap<String, List<DiscoveryGroup>> m = new TreeMap<>(order);
    m.put("node-a", LocalDiscovery.of(Fixtures.nodeA()).groups());
    m.put("node-b", LocalDiscovery.of(Fixtures.nodeB()).groups());
    return m;
  }

  @Test
  void unitesGroupsVersionsAndResources() {
    List<DiscoveryGroup> merged = PeerMerge.merge(fleet(Comparator.naturalOrder()));
    assertEquals(List.of("", "stable.example.com", "widgets.example.io", "metrics.k8s.io"),
        merged.stream().map(DiscoveryGroup::name).toList());
    DiscoveryGroup widgets = merged.get(2);
    assertEquals(List.of("v2", "v1"), widgets.versions().stream().map(DiscoveryVersion::version).toList());
    DiscoveryGroup stable = merged.get(1);
    assertEquals(List.of("v1", "v1beta1"), stable.versions().stream().map(DiscoveryVersion::version).toList());
    assertEquals(List.of("clusterfoos", "crontabs"), stable.versions().get(0).resources().stream()
        .map(DiscoveryResource::resource).toList());
  }

  @Test
  void deterministicWhateverTheMapOrder() {
    assertEquals(PeerMerge.merge(fleet(Comparator.naturalOrder())),
        PeerMerge.merge(fleet(Comparator.reverseOrder())));
  }

  @Test
  void lowestIdDecidesMetadataVerbsUnionSubresourcesLaterWins() {
    ResponseKind k1 = new ResponseKind("g", "v1", "Foo");
    ResponseKind k2 = new ResponseKind("g", "v1", "Bar");
    DiscoveryResource a = new DiscoveryResource("foos", "foo", k1, true, List.of("get", "list", "watch"),
        List.of("f"), List.of(), List.of(new DiscoverySubresource("status", k1, List.of("get"))), null);
    DiscoveryResource b = new DiscoveryResource("foos", "other", k2, false, List.of("create", "get"), List.of(),
        List.of("all"), List.of(new DiscoverySubresource("status", k2, List.of("get", "patch")),
        new DiscoverySubresource("eviction", k2, List.of("create"))), "abc");
    SortedMap<String, List<DiscoveryGroup>> m = new TreeMap<>();
    m.put("z", List.of(group("g", version("v1", Freshness.Current, b))));
    m.put("a", List.of(group("g", version("v1", Freshness.Stale, a))));
    DiscoveryVersion v = PeerMerge.merge(m).get(0).versions().get(0);
    DiscoveryResource r = v.resources().get(0);
    assertEquals("foo", r.singularResource());
    assertEquals(k1, r.responseKind());
    assertEquals(true, r.namespaced());
    assertEquals(List.of("f"), r.shortNames());
    assertEquals(List.of(), r.categories());
    assertEquals(List.of("create", "get", "list", "watch"), r.verbs());
    assertEquals(List.of("eviction", "status"), r.subresources().stream().map(DiscoverySubresource::subresource)
        .toList());
    assertEquals(List.of("get", "patch"), r.subresources().get(1).verbs(), "later server wins a clash");
    assertEquals(Freshness.Current, v.freshness(), "Current if any server lists it Current");
  }

  @Test
  void identicalDescriptionsKeepTheirVerbOrderAndStaleEverywhereStaysStale() {
    DiscoveryResource c = Fixtures.crontabs("v1");
    SortedMap<String, List<DiscoveryGroup>> m = new TreeMap<>();
    m.put("a", List.of(group("stable.example.com", version("v1", Freshness.Stale, c))));
    m.put("b", List.of(group("stable.example.com", version("v1", Freshness.Stale, c))));
    DiscoveryVersion v = PeerMerge.merge(m).get(0).versions().get(0);
    assertEquals(Fixtures.CRD_VERBS, v.resources().get(0).verbs());
    assertEquals(Freshness.Stale, v.freshness());
    assertSame(c, PeerMerge.mergeResource(List.of(c)));
  }

  @Test
  void groupOrderFollowsOrderPreservingMerge() {
    SortedMap<String, List<DiscoveryGroup>> m = new TreeMap<>();
    m.put("s1", List.of(group("b"), group("d")));
    m.put("s2", List.of(group("c"), group("d")));
    m.put("s3", List.of(group("a")));
    assertEquals(List.of("a", "b", "c", "d"), PeerMerge.merge(m).stream().map(DiscoveryGroup::name).toList());
    assertEquals(List.of(), PeerMerge.merge(new TreeMap<>()));
  }
}
