package io.mvproxy.aggregated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.ApiSourceFactory;
import io.mvproxy.api.StatusException;
import io.mvproxy.testkit.SharedTestData;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.ServiceLoader;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** APIService validation as {@code kube-aggregator/pkg/apis/apiregistration/validation/validation.go}. */
@Tag("unit")
class ApiServiceValidationTest {

  @Test
  void everySharedManifestIsValid() throws Exception {
    Path dir = SharedTestData.file("apiservices");
    List<Path> files = new ArrayList<>();
    try (Stream<Path> s = Files.list(dir)) {
      s.filter(p -> p.toString().endsWith(".yaml")).sorted().forEach(files::add);
    }
    assertFalse(files.isEmpty(), "no manifests in " + dir);
    for (Path f : files) {
      for (JsonObject m : Manifests.read(f)) {
        ApiServiceSpec spec = ApiServiceValidation.parse(m);
        JsonObject s = m.getJsonObject("spec");
        assertEquals(m.getJsonObject("metadata").getString("name"), spec.version() + "." + spec.group(), f.toString());
        assertEquals(s.getInteger("groupPriorityMinimum"), spec.groupPriorityMinimum());
        assertEquals(s.getInteger("versionPriority"), spec.versionPriority());
        assertEquals(s.getJsonObject("service").getInteger("port", 443), spec.servicePort());
        assertTrue(spec.insecureSkipTlsVerify());
        assertNull(spec.caBundlePem());
      }
    }
  }

  @Test
  void wardleDefaults() {
    ApiServiceSpec spec = ApiServiceValidation.parse(Manifests.wardle());
    assertEquals("wardle/api:443", spec.serviceKey());
    assertEquals("wardle.example.com/v1alpha1", spec.groupVersion().apiVersion());
    assertEquals(1000, spec.groupPriorityMinimum());
    assertEquals(15, spec.versionPriority());
  }

  @Test
  void caBundleIsDecoded() {
    String pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    JsonObject m = Manifests.wardle();
    m.getJsonObject("spec").remove("insecureSkipTLSVerify");
    m.getJsonObject("spec").put("caBundle", Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.US_ASCII)));
    assertEquals(pem, ApiServiceValidation.parse(m).caBundlePem());
  }

  static Stream<Arguments> invalid() {
    return Stream.of(
        variant("name not version.group", m -> m.getJsonObject("metadata").put("name", "v1.wardle.example.com"),
            "metadata.name", "must be `spec.version+\".\"+spec.group`: \"v1alpha1.wardle.example.com\""),
        variant("name missing", m -> m.getJsonObject("metadata").remove("name"), "metadata.name",
            "Required value: name or generateName is required"),
        variant("empty group", m -> {
          m.getJsonObject("spec").put("group", "");
          m.getJsonObject("metadata").put("name", "v1alpha1.");
        }, "spec.group", "only v1 may have an empty group"),
        variant("group not DNS-1123", m -> {
          m.getJsonObject("spec").put("group", "Wardle_Example");
          m.getJsonObject("metadata").put("name", "v1alpha1.Wardle_Example");
        }, "spec.group", "RFC 1123 subdomain"),
        variant("version not DNS-1035 label", m -> {
          m.getJsonObject("spec").put("version", "1alpha1");
          m.getJsonObject("metadata").put("name", "1alpha1.wardle.example.com");
        }, "spec.version", "DNS-1035 label"),
        variant("groupPriorityMinimum 0", m -> m.getJsonObject("spec").put("groupPriorityMinimum", 0),
            "spec.groupPriorityMinimum", "Invalid value: 0: must be positive and less than 20000"),
        variant("groupPriorityMinimum 20001", m -> m.getJsonObject("spec").put("groupPriorityMinimum", 20001),
            "spec.groupPriorityMinimum", "must be positive and less than 20000"),
        variant("versionPriority missing", m -> m.getJsonObject("spec").remove("versionPriority"),
            "spec.versionPriority", "Invalid value: 0: must be positive and less than 1000"),
        variant("versionPriority 1001", m -> m.getJsonObject("spec").put("versionPriority", 1001),
            "spec.versionPriority", "must be positive and less than 1000"),
        variant("caBundle with insecureSkipTLSVerify", m -> m.getJsonObject("spec").put("caBundle",
                Base64.getEncoder().encodeToString("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
                    .getBytes(StandardCharsets.US_ASCII))),
            "spec.insecureSkipTLSVerify", "may not be true if caBundle is present"),
        variant("caBundle not base64", m -> {
          m.getJsonObject("spec").remove("insecureSkipTLSVerify");
          m.getJsonObject("spec").put("caBundle", "***");
        }, "spec.caBundle", "must be base64"),
        variant("port 0", m -> m.getJsonObject("spec").getJsonObject("service").put("port", 0),
            "spec.service.port", "must be between 1 and 65535, inclusive"),
        variant("port 65536", m -> m.getJsonObject("spec").getJsonObject("service").put("port", 65536),
            "spec.service.port", "port is not valid"),
        variant("service namespace missing", m -> m.getJsonObject("spec").getJsonObject("service").remove("namespace"),
            "spec.service.namespace", "Required value"),
        variant("service name missing", m -> m.getJsonObject("spec").getJsonObject("service").remove("name"),
            "spec.service.name", "Required value"),
        variant("no service (local)", m -> m.getJsonObject("spec").remove("service"), "spec.service",
            "a service is required"),
        variant("priority not an integer", m -> m.getJsonObject("spec").put("versionPriority", "high"),
            "spec.versionPriority", "must be an integer"));
  }

  private static Arguments variant(String what, Consumer<JsonObject> change, String field, String message) {
    return Arguments.of(what, change, field, message);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalid")
  void invalidVariantsAre422WithCauses(String what, Consumer<JsonObject> change, String field, String message) {
    JsonObject m = Manifests.wardle();
    change.accept(m);
    StatusException e = assertThrows(StatusException.class, () -> ApiServiceValidation.parse(m));
    assertEquals(422, e.code());
    JsonObject status = e.toStatus();
    assertEquals("Invalid", status.getString("reason"));
    assertEquals("APIService", status.getJsonObject("details").getString("kind"));
    assertEquals("apiregistration.k8s.io", status.getJsonObject("details").getString("group"));
    assertTrue(status.getString("message").startsWith("APIService.apiregistration.k8s.io \""), status.getString("message"));
    JsonArray causes = status.getJsonObject("details").getJsonArray("causes");
    boolean found = false;
    for (int i = 0; i < causes.size(); i++) {
      JsonObject c = causes.getJsonObject(i);
      if (field.equals(c.getString("field")) && c.getString("message").contains(message)) {
        found = true;
        assertTrue(c.getString("reason").startsWith("FieldValue"), c.encode());
      }
    }
    assertTrue(found, what + ": no cause " + field + " ~ " + message + " in " + causes.encodePrettily());
  }

  static Stream<Arguments> local() {
    String ca = Base64.getEncoder().encodeToString("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
        .getBytes(StandardCharsets.US_ASCII));
    return Stream.of(
        Arguments.of("local", (Consumer<JsonObject>) m -> m.getJsonObject("spec").remove("insecureSkipTLSVerify"),
            null, null),
        Arguments.of("local with caBundle", (Consumer<JsonObject>) m -> {
          m.getJsonObject("spec").remove("insecureSkipTLSVerify");
          m.getJsonObject("spec").put("caBundle", ca);
        }, "spec.caBundle",
            "local APIServices may not have a caBundle"),
        Arguments.of("local with insecureSkipTLSVerify", (Consumer<JsonObject>) m -> { }, "spec.insecureSkipTLSVerify",
            "local APIServices may not have insecureSkipTLSVerify"),
        Arguments.of("local, priorities still checked", (Consumer<JsonObject>) m -> {
          m.getJsonObject("spec").remove("insecureSkipTLSVerify");
          m.getJsonObject("spec").put("groupPriorityMinimum", 20001);
        }, "spec.groupPriorityMinimum",
            "must be positive and less than 20000"));
  }

  /** APIServices written through the API may be local (no service), as upstream; plugin manifests may not. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("local")
  void localApiServicesThroughTheApi(String what, Consumer<JsonObject> change, String field, String message) {
    JsonObject m = Manifests.wardle();
    m.getJsonObject("spec").remove("service");
    change.accept(m);
    if (field == null) {
      ApiServiceSpec spec = ApiServiceValidation.parse(m, true);
      assertTrue(spec.local(), what);
      assertEquals(0, spec.servicePort());
      assertEquals(422, assertThrows(StatusException.class, () -> ApiServiceValidation.parse(m)).code(),
          "plugin manifests need a service");
      return;
    }
    StatusException e = assertThrows(StatusException.class, () -> ApiServiceValidation.parse(m, true));
    JsonArray causes = e.toStatus().getJsonObject("details").getJsonArray("causes");
    assertTrue(causes.stream().map(c -> (JsonObject) c).anyMatch(c -> field.equals(c.getString("field"))
        && c.getString("message").contains(message)), what + ": " + causes.encodePrettily());
  }

  @Test
  void factoryIsRegisteredAndSupportsApiService() {
    boolean found = false;
    for (ApiSourceFactory f : ServiceLoader.load(ApiSourceFactory.class)) {
      if (f instanceof ApiServiceSourceFactory) {
        found = true;
        assertTrue(f.supports("apiregistration.k8s.io/v1", "APIService"));
        assertFalse(f.supports("apiregistration.k8s.io/v1beta1", "APIService"));
        assertFalse(f.supports("apiextensions.k8s.io/v1", "CustomResourceDefinition"));
      }
    }
    assertTrue(found, "ApiServiceSourceFactory not registered with ServiceLoader");
  }

  @Test
  void factoryRejectsInvalidManifest() {
    JsonObject m = Manifests.wardle();
    m.getJsonObject("spec").put("versionPriority", 0);
    StatusException e = assertThrows(StatusException.class,
        () -> new ApiServiceSourceFactory().create(m, null));
    assertEquals(422, e.code());
  }
}
