package io.mvproxy.builtin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.StatusException;
import io.mvproxy.registry.impl.rest.CrdRequest;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The APIService strategy on its own (kube-aggregator {@code registry/apiservice/strategy.go}, the printer of
 * {@code etcd.go}) and the merge of plugin APIServices; ApiServiceApiFleetTest covers it through kubectl.
 */
@Tag("unit")
class ApiServiceStrategyTest {
  static final String KEY = "apiservices.apiregistration.k8s.io";
  static final String PATH = "/apis/apiregistration.k8s.io/v1/apiservices";
  final ApiServiceStrategy s = new ApiServiceStrategy();

  static JsonObject wardle() {
    return new JsonObject("""
        {"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService",
         "metadata":{"name":"v1alpha1.wardle.example.com","uid":"u1"},
         "spec":{"group":"wardle.example.com","version":"v1alpha1","groupPriorityMinimum":1000,
          "versionPriority":15,"insecureSkipTLSVerify":true,"service":{"namespace":"wardle","name":"api"}}}""");
  }

  CrdRequest req(String method, String path) {
    return StrategiesTest.request(KEY, method, path, s);
  }

  static Stream<Arguments> creates() {
    return Stream.of(
        Arguments.of("valid: port defaulted to 443", (Consumer<JsonObject>) m -> { }, null),
        Arguments.of("local (no service)", (Consumer<JsonObject>) m -> m.getJsonObject("spec").remove("service"),
            "spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not"),
        Arguments.of("name not <version>.<group>", (Consumer<JsonObject>) m -> m.getJsonObject("metadata")
            .put("name", "v1.wardle.example.com"), "metadata.name: Invalid value: \"v1.wardle.example.com\""),
        Arguments.of("groupPriorityMinimum 20001", (Consumer<JsonObject>) m -> m.getJsonObject("spec")
            .put("groupPriorityMinimum", 20001), "spec.groupPriorityMinimum: Invalid value: 20001"),
        Arguments.of("versionPriority 0", (Consumer<JsonObject>) m -> m.getJsonObject("spec")
            .put("versionPriority", 0), "spec.versionPriority: Invalid value: 0"),
        Arguments.of("port 65536", (Consumer<JsonObject>) m -> m.getJsonObject("spec").getJsonObject("service")
            .put("port", 65536), "spec.service.port: Invalid value: 65536"),
        Arguments.of("served-by annotation", (Consumer<JsonObject>) m -> m.getJsonObject("metadata")
            .put("annotations", new JsonObject().put(ApiServiceObjects.SERVED_BY, "{}")), "Forbidden"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("creates")
  void createIsValidatedAsValidateApiService(String what, Consumer<JsonObject> change, String error) {
    JsonObject in = wardle().put("status", new JsonObject().put("conditions", List.of()));
    change.accept(in);
    if (error == null) {
      JsonObject out = s.prepareCreate(req("POST", PATH), in);
      assertEquals(new JsonObject(), out.getJsonObject("status"), "status reset");
      assertEquals(443, out.getJsonObject("spec").getJsonObject("service").getInteger("port"));
      return;
    }
    StatusException e = assertThrows(StatusException.class, () -> s.prepareCreate(req("POST", PATH), in), what);
    assertEquals(422, e.code());
    assertTrue(e.getMessage().contains(error), e.getMessage());
  }

  @Test
  void localWithoutTlsFieldsIsValid() {
    JsonObject in = wardle();
    in.getJsonObject("spec").remove("service");
    in.getJsonObject("spec").remove("insecureSkipTLSVerify");
    assertNull(s.prepareCreate(req("POST", PATH), in).getJsonObject("spec").getValue("service"));
    assertEquals("Local", s.tableCell("Service", in, null));
  }

  @Test
  void pluginApiServicesAreReadOnly() {
    JsonObject stored = ApiServiceObjects.merge(null, "node-a", wardle(), "2026-01-01T00:00:00Z");
    assertTrue(ApiServiceObjects.isPlugin(stored));
    assertEquals(Map.of("node-a", List.of("v1alpha1")), CrdObjects.servedBy(stored));
    CrdRequest put = req("PUT", PATH + "/v1alpha1.wardle.example.com");
    StatusException e = assertThrows(StatusException.class, () -> s.prepareUpdate(put, stored, stored.copy()));
    assertEquals(409, e.code());
    assertTrue(e.getMessage().contains("provided by plugins of the nodes node-a"), e.getMessage());
    assertEquals(409, assertThrows(StatusException.class, () -> s.onDelete(req("DELETE",
        PATH + "/v1alpha1.wardle.example.com"), stored)).code());
    JsonObject both = ApiServiceObjects.merge(stored, "node-b", wardle(), "2026-01-01T00:00:00Z");
    assertEquals(List.of("node-a", "node-b"), List.copyOf(CrdObjects.servedBy(both).keySet()));
    assertEquals(stored.getJsonObject("metadata").getString("uid"), both.getJsonObject("metadata").getString("uid"));
    JsonObject left = ApiServiceObjects.withdraw(both, "node-a");
    assertEquals(List.of("node-b"), List.copyOf(CrdObjects.servedBy(left).keySet()));
    assertNull(ApiServiceObjects.withdraw(left, "node-b"), "no node provides it: deleted");
  }

  @Test
  void printerColumnsAsKubeAggregator() {
    JsonObject o = wardle();
    assertEquals("wardle/api", s.tableCell("Service", o, null));
    assertEquals("Unknown", s.tableCell("Available", o, null));
    o.put("status", new JsonObject("{\"conditions\":[{\"type\":\"Available\",\"status\":\"False\","
        + "\"reason\":\"FailedDiscoveryCheck\"}]}"));
    assertEquals("False (FailedDiscoveryCheck)", s.tableCell("Available", o, null));
    o.put("status", new JsonObject("{\"conditions\":[{\"type\":\"Available\",\"status\":\"True\","
        + "\"reason\":\"Passed\"}]}"));
    assertEquals("True", s.tableCell("Available", o, null));
  }
}
