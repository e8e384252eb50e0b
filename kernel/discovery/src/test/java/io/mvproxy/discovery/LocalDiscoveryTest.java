package io.mvproxy.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.discovery.DiscoveryGroup;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.DiscoveryVersion;
import io.mvproxy.api.discovery.Freshness;
import io.mvproxy.api.discovery.ServedGroupVersion;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class LocalDiscoveryTest {
  private static List<String> names(List<DiscoveryGroup> gs) {
    return gs.stream().map(DiscoveryGroup::name).toList();
  }

  @Test
  void groupsByPriorityThenName() {
    List<ServedGroupVersion> in = new ArrayList<>(Fixtures.nodeB());
    in.add(Fixtures.crdGv("a.example.com", "v1", Freshness.Current, Fixtures.widgets("v1")));
    Collections.reverse(in);
    LocalDiscovery ld = LocalDiscovery.of(in);
    assertEquals(List.of("", "a.example.com", "stable.example.com", "widgets.example.io", "metrics.k8s.io"),
        names(ld.groups()));
    assertEquals(List.of(""), names(ld.core()));
    assertEquals(List.of("a.example.com", "stable.example.com", "widgets.example.io", "metrics.k8s.io"),
        names(ld.nonCore()));
  }

  @Test
  void groupPriorityIsTheLargestOfItsVersions() {
    List<ServedGroupVersion> in = List.of(
        new ServedGroupVersion(new GroupVersion("z.example.com", "v1"), 50, 10, List.of(), Freshness.Current),
        new ServedGroupVersion(new GroupVersion("z.example.com", "v2"), 2000, 10, List.of(), Freshness.Current),
        Fixtures.crdGv("a.example.com", "v1", Freshness.Current));
    assertEquals(List.of("z.example.com", "a.example.com"), names(LocalDiscovery.of(in).groups()));
  }

  @Test
  void versionsByPriorityThenKubeOrder() {
    List<ServedGroupVersion> in = new ArrayList<>();
    for (String v : List.of("foo1", "v1alpha1", "v1", "v2beta1", "v2")) {
      in.add(Fixtures.crdGv("g.example.com", v, Freshness.Current));
    }
    in.add(new ServedGroupVersion(new GroupVersion("g.example.com", "v0alpha9"), 1000, 500, List.of(),
        Freshness.Current));
    DiscoveryGroup g = LocalDiscovery.of(in).groups().get(0);
    assertEquals(List.of("v0alpha9", "v2", "v1", "v2beta1", "v1alpha1", "foo1"),
        g.versions().stream().map(DiscoveryVersion::version).toList());
  }

  @Test
  void resourcesSortedAndUnitedAcrossSources() {
    DiscoveryResource other = Fixtures.crd("stable.example.com", "v1", "crontabs", "Other", true, List.of(),
        false, false, "v1");
    List<ServedGroupVersion> in = List.of(
        Fixtures.crdGv("stable.example.com", "v1", Freshness.Stale, Fixtures.crontabs("v1")),
        Fixtures.crdGv("stable.example.com", "v1", Freshness.Current, Fixtures.clusterfoos("v1"), other));
    DiscoveryVersion v = LocalDiscovery.of(in).groups().get(0).versions().get(0);
    assertEquals(List.of("clusterfoos", "crontabs"), v.resources().stream().map(DiscoveryResource::resource)
        .toList());
    assertEquals("CronTab", v.resources().get(1).responseKind().kind(), "first source wins a name");
    assertEquals(Freshness.Current, v.freshness(), "Current when any source is");
  }

  @Test
  void staleOnlyStaysStaleAndEmptyInputIsEmpty() {
    List<ServedGroupVersion> in = List.of(Fixtures.crdGv("s.example.com", "v1", Freshness.Stale,
        Fixtures.widgets("v1")));
    assertEquals(Freshness.Stale, LocalDiscovery.of(in).groups().get(0).versions().get(0).freshness());
    assertEquals(List.of(), LocalDiscovery.of(List.of()).groups());
    assertEquals(List.of(), LocalDiscovery.of(List.of()).core());
  }
}
