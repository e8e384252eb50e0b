package io.mvproxy.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.discovery.DiscoveryGroup;
import io.mvproxy.api.discovery.DiscoveryVersion;
import io.mvproxy.api.discovery.Freshness;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class LegacyDiscoveryTest {
  @Test
  void apiVersions() {
    JsonObject doc = LegacyDiscovery.apiVersions(LocalDiscovery.of(Fixtures.nodeA()).core(), "10.0.0.1:6443");
    assertEquals(new JsonObject("{\"kind\":\"APIVersions\",\"versions\":[\"v1\"],\"serverAddressByClientCIDRs\":"
        + "[{\"clientCIDR\":\"0.0.0.0/0\",\"serverAddress\":\"10.0.0.1:6443\"}]}"), doc);
    assertEquals(new JsonArray(), LegacyDiscovery.apiVersions(List.of(), "h:1").getJsonArray("versions"));
  }

  @Test
  void groupListKeepsStaleAndPrefersFirstCurrent() {
    List<DiscoveryGroup> groups = List.of(
        new DiscoveryGroup("a.example.com", List.of(new DiscoveryVersion("v2", List.of(), Freshness.Stale),
            new DiscoveryVersion("v1", List.of(), Freshness.Current),
            new DiscoveryVersion("v1beta1", List.of(), Freshness.Current))),
        new DiscoveryGroup("gone.example.com", List.of(new DiscoveryVersion("v1", List.of(), Freshness.Stale))));
    JsonObject doc = LegacyDiscovery.apiGroupList(groups);
    assertEquals(new JsonObject("{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[{\"name\":"
        + "\"a.example.com\",\"versions\":[{\"groupVersion\":\"a.example.com/v2\",\"version\":\"v2\"},"
        + "{\"groupVersion\":\"a.example.com/v1\",\"version\":\"v1\"},"
        + "{\"groupVersion\":\"a.example.com/v1beta1\",\"version\":\"v1beta1\"}],\"preferredVersion\":"
        + "{\"groupVersion\":\"a.example.com/v1\",\"version\":\"v1\"}},"
        + "{\"name\":\"gone.example.com\",\"versions\":[{\"groupVersion\":\"gone.example.com/v1\",\"version\":"
        + "\"v1\"}],\"preferredVersion\":{\"groupVersion\":\"gone.example.com/v1\",\"version\":\"v1\"}}]}"), doc);
    JsonObject g = LegacyDiscovery.apiGroup(groups.get(0));
    assertEquals("APIGroup", g.getString("kind"));
    assertEquals("v1", g.getString("apiVersion"));
    assertEquals("a.example.com/v1", g.getJsonObject("preferredVersion").getString("groupVersion"));
    assertEquals("gone.example.com/v1",
        LegacyDiscovery.apiGroup(groups.get(1)).getJsonObject("preferredVersion").getString("groupVersion"));
    assertNull(LegacyDiscovery.apiGroup(new DiscoveryGroup("empty.example.com", List.of())));
  }

  @Test
  void resourceListWithSubresourceEntries() {
    DiscoveryVersion v1 = LocalDiscovery.of(Fixtures.nodeA()).groups().stream()
        .filter(g -> g.name().equals("stable.example.com")).findFirst().orElseThrow().versions().get(0);
    JsonObject doc = LegacyDiscovery.apiResourceList(new GroupVersion("stable.example.com", "v1"), v1);
    String hashCf = Fixtures.hash("stable.example.com/v1/ClusterFoo");
    String hashCt = Fixtures.hash("stable.example.com/v1/CronTab");
    String verbs = "[\"delete\",\"deletecollection\",\"get\",\"list\",\"patch\",\"create\",\"update\",\"watch\"]";
    assertEquals(new JsonObject("{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":"
        + "\"stable.example.com/v1\",\"resources\":["
        + "{\"name\":\"clusterfoos\",\"singularName\":\"clusterfoo\",\"namespaced\":false,\"kind\":\"ClusterFoo\","
        + "\"verbs\":" + verbs + ",\"shortNames\":[\"cf\"],\"storageVersionHash\":\"" + hashCf + "\"},"
        + "{\"name\":\"crontabs\",\"singularName\":\"crontab\",\"namespaced\":true,\"kind\":\"CronTab\","
        + "\"verbs\":" + verbs + ",\"shortNames\":[\"ct\"],\"categories\":[\"all\"],\"storageVersionHash\":\""
        + hashCt + "\"},"
        + "{\"name\":\"crontabs/status\",\"singularName\":\"\",\"namespaced\":true,\"kind\":\"CronTab\","
        + "\"verbs\":[\"get\",\"patch\",\"update\"]},"
        + "{\"name\":\"crontabs/scale\",\"singularName\":\"\",\"namespaced\":true,\"group\":\"autoscaling\","
        + "\"version\":\"v1\",\"kind\":\"Scale\",\"verbs\":[\"get\",\"patch\",\"update\"]}]}"), doc);
    assertEquals("v1", LegacyDiscovery.apiResourceList(new GroupVersion("", "v1"),
        LocalDiscovery.of(Fixtures.nodeA()).core().get(0).versions().get(0)).getString("groupVersion"));
  }
}
