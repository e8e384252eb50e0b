package io.mvproxy.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.discovery.DiscoveryGroup;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.DiscoveryVersion;
import io.mvproxy.api.discovery.Freshness;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class DiscoveryCodecTest {
  /** The example of discovery.md section 1, as this codec writes it. */
  private static final String SPEC_EXAMPLE = "{\"kind\":\"APIGroupDiscoveryList\",\"apiVersion\":"
      + "\"apidiscovery.k8s.io/v2\",\"metadata\":{},\"items\":[{\"metadata\":{\"name\":\"stable.example.com\"},"
      + "\"versions\":[{\"version\":\"v1\",\"freshness\":\"Current\",\"resources\":[{\"resource\":\"crontabs\","
      + "\"singularResource\":\"crontab\",\"scope\":\"Namespaced\",\"responseKind\":{\"group\":"
      + "\"stable.example.com\",\"version\":\"v1\",\"kind\":\"CronTab\"},\"verbs\":[\"delete\","
      + "\"deletecollection\",\"get\",\"list\",\"patch\",\"create\",\"update\",\"watch\"],\"shortNames\":[\"ct\"],"
      + "\"categories\":[\"all\"],\"subresources\":[{\"subresource\":\"status\",\"responseKind\":{\"group\":"
      + "\"stable.example.com\",\"version\":\"v1\",\"kind\":\"CronTab\"},\"verbs\":[\"get\",\"patch\","
      + "\"update\"]}]}]}]}]}";

  private static List<DiscoveryGroup> specGroups() {
    DiscoveryResource ct = Fixtures.crd("stable.example.com", "v1", "crontabs", "CronTab", true, List.of("ct"),
        true, false, "v1");
    return List.of(new DiscoveryGroup("stable.example.com",
        List.of(new DiscoveryVersion("v1", List.of(ct), Freshness.Current))));
  }

  @Test
  void writesTheSpecExampleExactly() {
    assertEquals(SPEC_EXAMPLE, DiscoveryCodec.encode(specGroups(), DiscoveryFormat.V2).toString());
    assertEquals(SPEC_EXAMPLE.replace("k8s.io/v2\"", "k8s.io/v2beta1\""),
        DiscoveryCodec.encode(specGroups(), DiscoveryFormat.V2BETA1).toString());
  }

  @Test
  void omitsEmptyListsButAlwaysWritesRequiredFields() {
    JsonObject r = DiscoveryCodec.toJson(LocalDiscovery.of(Fixtures.nodeB()).nonCore(), DiscoveryFormat.V2)
        .getJsonArray("items").getJsonObject(2).getJsonArray("versions").getJsonObject(0)
        .getJsonArray("resources").getJsonObject(0);
    assertEquals("nodes", r.getString("resource"));
    assertEquals("", r.getString("singularResource"));
    assertEquals("Cluster", r.getString("scope"));
    assertTrue(r.containsKey("responseKind"));
    assertTrue(r.containsKey("verbs"));
    assertFalse(r.containsKey("shortNames"));
    assertFalse(r.containsKey("categories"));
    assertFalse(r.containsKey("subresources"));
    assertFalse(r.containsKey("storageVersionHash"));
  }

  @Test
  void coreGroupHasNoName() {
    JsonObject doc = DiscoveryCodec.toJson(LocalDiscovery.of(Fixtures.nodeA()).core(), DiscoveryFormat.V2);
    assertEquals(new JsonObject(), doc.getJsonArray("items").getJsonObject(0).getJsonObject("metadata"));
  }

  @Test
  void roundTripsWithoutStorageVersionHash() {
    List<DiscoveryGroup> groups = LocalDiscovery.of(Fixtures.nodeA()).groups();
    Buffer bytes = DiscoveryCodec.encode(groups, DiscoveryFormat.V2);
    List<DiscoveryGroup> back = DiscoveryCodec.decode(bytes);
    assertEquals(bytes, DiscoveryCodec.encode(back, DiscoveryFormat.V2));
    assertEquals(groups.size(), back.size());
    assertEquals(null, back.get(1).versions().get(0).resources().get(0).storageVersionHash());
  }

  @Test
  void parsesLenientlyLikeClientGo() {
    String doc = "{\"kind\":\"APIGroupDiscoveryList\",\"apiVersion\":\"apidiscovery.k8s.io/v2beta1\","
        + "\"items\":[{\"metadata\":{\"name\":\"g\"},\"versions\":[{\"version\":\"v1\",\"resources\":["
        + "{\"resource\":\"nokind\",\"scope\":\"Cluster\",\"verbs\":[\"get\"]},"
        + "{\"resource\":\"ok\",\"scope\":\"Namespaced\",\"responseKind\":{\"group\":\"g\",\"version\":\"v1\","
        + "\"kind\":\"Ok\"},\"subresources\":[{\"subresource\":\"x\"}]}]},"
        + "{\"version\":\"v0\",\"freshness\":\"Stale\"}]}]}";
    List<DiscoveryGroup> gs = DiscoveryCodec.decode(Buffer.buffer(doc));
    DiscoveryVersion v1 = gs.get(0).versions().get(0);
    assertEquals(Freshness.Current, v1.freshness());
    assertEquals(1, v1.resources().size());
    assertEquals("ok", v1.resources().get(0).resource());
    assertTrue(v1.resources().get(0).namespaced());
    assertEquals(List.of(), v1.resources().get(0).subresources());
    assertEquals(List.of(), v1.resources().get(0).verbs());
    assertEquals(Freshness.Stale, gs.get(0).versions().get(1).freshness());
  }

  @Test
  void rejectsWhatIsNotADiscoveryList() {
    assertThrows(IllegalArgumentException.class, () -> DiscoveryCodec.decode(Buffer.buffer("not json")));
    assertThrows(IllegalArgumentException.class, () -> DiscoveryCodec.decode(Buffer.buffer("[]")));
    assertThrows(IllegalArgumentException.class,
        () -> DiscoveryCodec.decode(Buffer.buffer("{\"kind\":\"APIGroupList\"}")));
    assertThrows(IllegalArgumentException.class,
        () -> DiscoveryCodec.decode(Buffer.buffer("{\"kind\":\"APIGroupDiscoveryList\",\"items\":{}}")));
    assertThrows(IllegalArgumentException.class, () -> DiscoveryCodec.toJson(List.of(), DiscoveryFormat.LEGACY));
  }
}
