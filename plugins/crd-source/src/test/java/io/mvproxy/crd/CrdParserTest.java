package io.mvproxy.crd;

import io.mvproxy.registry.impl.CrdApiSource;
import io.mvproxy.registry.impl.CrdDiscovery;
import io.mvproxy.registry.impl.CrdManifests;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.mvproxy.registry.impl.model.CrdDefinition;
import io.mvproxy.registry.impl.model.CrdParser;
import io.mvproxy.testkit.SharedTestData;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** CRD validation, defaults and discovery entries (discovery.md section 7). */
@Tag("unit")
class CrdParserTest {

  static JsonObject widgets() throws Exception {
    return CrdRestTest.widgetManifests().get(0);
  }

  @Test
  void defaultsAndDiscovery() throws Exception {
    CrdDefinition d = CrdParser.parse(widgets());
    assertEquals("widget", d.singular());
    assertEquals("WidgetList", d.listKind());
    assertEquals("example.com/widgets", d.storageKey());
    assertEquals("example.com/v1", d.storageApiVersion());
    List<ServedGroupVersion> gvs = CrdDiscovery.groupVersions(d);
    assertEquals(2, gvs.size());
    assertEquals(1000, gvs.get(0).groupPriorityMinimum());
    assertEquals(100, gvs.get(0).versionPriority());
    DiscoveryResource r = gvs.get(0).resources().get(0);
    assertEquals(List.of("delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"),
        r.verbs());
    assertEquals(List.of("wd"), r.shortNames());
    assertEquals(List.of("all"), r.categories());
    assertEquals("Namespaced", r.scope());
    assertEquals("autoscaling", r.subresources().get(1).responseKind().group());
    assertEquals(List.of("get", "patch", "update"), r.subresources().get(0).verbs());
    assertEquals(1, gvs.get(1).resources().get(0).subresources().size(), "v2 has status only");
    assertEquals(r.storageVersionHash(), gvs.get(1).resources().get(0).storageVersionHash());
    assertEquals(12, r.storageVersionHash().length());
  }

  /** customresource_handler.go: a deprecated version's warning, its own or defaultDeprecationWarning's. */
  @Test
  void deprecatedVersionsCarryTheirWarning() throws Exception {
    JsonObject m = widgets();
    io.vertx.core.json.JsonArray versions = m.getJsonObject("spec").getJsonArray("versions");
    versions.getJsonObject(0).put("deprecated", true);
    CrdDefinition d = CrdParser.parse(m);
    assertEquals("example.com/v1 Widget is deprecated; use example.com/v2 Widget",
        d.served("v1").orElseThrow().deprecationWarning());
    assertEquals(null, d.served("v2").orElseThrow().deprecationWarning());
    versions.getJsonObject(1).put("deprecated", true).put("deprecationWarning", "v2 goes away in 2027");
    d = CrdParser.parse(m);
    assertEquals("example.com/v1 Widget is deprecated", d.served("v1").orElseThrow().deprecationWarning(),
        "no served version that is not deprecated is preferred over it");
    assertEquals("v2 goes away in 2027", d.served("v2").orElseThrow().deprecationWarning());
    // validateDeprecationWarning
    for (String[] row : new String[][] {
        {"false", "x", "Invalid value: \"x\": can only be set for deprecated versions"},
        {"true", "y".repeat(257), "Invalid value: \"" + "y".repeat(257) + "\": must be <= 256 characters long"},
        {"true", "", "Invalid value: \"\": must not be an empty string"},
        {"true", "tab\there", "Invalid value: \"tab\\there\": must only contain printable UTF-8 characters; "
            + "non-printable character found at index 3"},
        {"true", "zé\u200bwidth", "Invalid value: \"zé\\u200bwidth\": must only contain printable UTF-8 characters; "
            + "non-printable character found at index 3"}}) {
      JsonObject bad = widgets();
      bad.getJsonObject("spec").getJsonArray("versions").getJsonObject(1).put("deprecated", Boolean.valueOf(row[0]))
          .put("deprecationWarning", row[1]);
      io.mvproxy.api.StatusException e = org.junit.jupiter.api.Assertions.assertThrows(
          io.mvproxy.api.StatusException.class, () -> CrdParser.parse(bad), row[1]);
      JsonObject cause = e.toStatus().getJsonObject("details").getJsonArray("causes").getJsonObject(0);
      assertEquals("spec.versions[1].deprecationWarning", cause.getString("field"));
      assertEquals(row[2], cause.getString("message"));
    }
  }

  @Test
  void storageVersionHashMatchesKubernetes() {
    // values kube-apiserver shows in legacy discovery (CRDs are stored as v1beta1, pods as v1)
    assertEquals("jfWCUB31mvA=",
        CrdDiscovery.storageVersionHash("apiextensions.k8s.io", "v1beta1", "CustomResourceDefinition"));
    assertEquals("xPOwRZ+Yhw8=", CrdDiscovery.storageVersionHash("", "v1", "Pod"));
  }

  @Test
  void hugePrometheusCrdParses() {
    JsonObject m = CrdManifests.read(SharedTestData.file("crds/prometheus-operator-alertmanagers.yaml")).get(0);
    CrdDefinition d = CrdParser.parse(m);
    assertEquals("alertmanagers.monitoring.coreos.com", d.name());
    assertTrue(d.storageVersion().schema().getJsonObject("properties").containsKey("spec"));
    assertTrue(d.storageVersion().columns().size() >= 3);
  }

  @Test
  void invalidManifestsAre422WithCauses() throws Exception {
    expectInvalid(m -> m.getJsonObject("metadata").put("name", "wrong.example.com"), "metadata.name");
    expectInvalid(m -> m.getJsonObject("spec").remove("group"), "spec.group");
    expectInvalid(m -> m.getJsonObject("spec").getJsonObject("names").put("plural", "Widgets"), "spec.names.plural");
    expectInvalid(m -> m.getJsonObject("spec").getJsonObject("names").remove("kind"), "spec.names.kind");
    expectInvalid(m -> m.getJsonObject("spec").put("scope", "Global"), "spec.scope");
    expectInvalid(m -> m.getJsonObject("spec").put("versions", new JsonArray()), "spec.versions");
    expectInvalid(m -> m.getJsonObject("spec").getJsonArray("versions").getJsonObject(1).put("storage", true),
        "spec.versions");
    expectInvalid(m -> m.getJsonObject("spec").getJsonArray("versions").getJsonObject(1).put("name", "V_2"),
        "spec.versions[1].name");
    expectInvalid(m -> m.getJsonObject("spec").getJsonArray("versions").getJsonObject(1).remove("served"),
        "spec.versions[1].served");
  }

  private void expectInvalid(Consumer<JsonObject> breakIt, String field) throws Exception {
    JsonObject m = widgets();
    breakIt.accept(m);
    StatusException e = assertThrows(StatusException.class, () -> new CrdApiSourceFactory().create(m, null));
    assertEquals(422, e.code());
    JsonArray causes = e.toStatus().getJsonObject("details").getJsonArray("causes");
    assertTrue(causes.stream().anyMatch(c -> field.equals(((JsonObject) c).getString("field"))),
        field + " in " + causes.encode());
  }

  @Test
  void factorySupportsOnlyV1Crds() {
    CrdApiSourceFactory f = new CrdApiSourceFactory();
    assertTrue(f.supports("apiextensions.k8s.io/v1", "CustomResourceDefinition"));
    assertTrue(!f.supports("apiextensions.k8s.io/v1beta1", "CustomResourceDefinition"));
    assertTrue(!f.supports("apiregistration.k8s.io/v1", "APIService"));
    assertTrue(java.util.ServiceLoader.load(io.mvproxy.api.ApiSourceFactory.class).stream()
        .anyMatch(p -> p.type() == CrdApiSourceFactory.class));
  }

  @Test
  void openApiFragmentsPerServedVersion() throws Exception {
    CrdApiSource s = new CrdApiSourceFactory().build(widgets(), new io.mvproxy.api.ApiSourceContext() {
      @Override
      public io.vertx.core.Vertx vertx() {
        return null;
      }

      @Override
      public io.mvproxy.api.storage.Storage storage() {
        return null;
      }


      @Override
      public String serverId() {
        return "x";
      }
    });
    JsonObject v3 = s.openApiV3(new io.mvproxy.api.GroupVersion("example.com", "v2"));
    assertTrue(v3.getJsonObject("components").getJsonObject("schemas").containsKey("com.example.v2.Widget"),
        v3.getJsonObject("components").getJsonObject("schemas").fieldNames().toString());
    assertTrue(s.openApiV2(new io.mvproxy.api.GroupVersion("example.com", "v1")).containsKey("definitions"));
    assertEquals(null, s.openApiV3(new io.mvproxy.api.GroupVersion("example.com", "v9")));
  }
}
