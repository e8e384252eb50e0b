package io.mvproxy.registry.impl.conversion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mvproxy.api.StatusException;
import io.mvproxy.registry.impl.model.CrdParser;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@code spec.conversion} validated as apiextensions-apiserver's {@code validateCustomResourceConversion}. */
@Tag("unit")
class CrdConversionTest {

  static JsonObject crd(JsonObject conversion) {
    JsonObject schema = new JsonObject().put("openAPIV3Schema", new JsonObject().put("type", "object"));
    JsonObject spec = new JsonObject().put("group", "x.io").put("scope", "Namespaced")
        .put("names", new JsonObject().put("plural", "gizmos").put("kind", "Gizmo"))
        .put("versions", new JsonArray()
            .add(new JsonObject().put("name", "v1").put("served", true).put("storage", true).put("schema", schema))
            .add(new JsonObject().put("name", "v2").put("served", true).put("storage", false).put("schema", schema)));
    if (conversion != null) {
      spec.put("conversion", conversion);
    }
    return new JsonObject().put("apiVersion", "apiextensions.k8s.io/v1").put("kind", "CustomResourceDefinition")
        .put("metadata", new JsonObject().put("name", "gizmos.x.io")).put("spec", spec);
  }

  static List<String> causes(JsonObject conversion) {
    StatusException e = assertThrows(StatusException.class, () -> CrdParser.parse(crd(conversion)));
    assertEquals(422, e.code());
    return e.toStatus().getJsonObject("details").getJsonArray("causes").stream()
        .map(c -> ((JsonObject) c).getString("field") + ": " + ((JsonObject) c).getString("message")).toList();
  }

  static JsonObject webhook(JsonObject clientConfig, JsonArray versions) {
    JsonObject wh = new JsonObject();
    if (clientConfig != null) {
      wh.put("clientConfig", clientConfig);
    }
    if (versions != null) {
      wh.put("conversionReviewVersions", versions);
    }
    return new JsonObject().put("strategy", "Webhook").put("webhook", wh);
  }

  @Test
  void validWebhooksAndNone() {
    CrdParser.parse(crd(null));
    CrdParser.parse(crd(new JsonObject().put("strategy", "None")));
    CrdParser.parse(crd(webhook(new JsonObject().put("url", "https://127.0.0.1:9443/convert"),
        new JsonArray().add("v1"))));
    CrdParser.parse(crd(webhook(new JsonObject().put("service", new JsonObject().put("namespace", "d")
        .put("name", "conv").put("port", 443).put("path", "/convert")), new JsonArray().add("v1beta1"))));
    CrdConversion c = CrdConversion.of(crd(webhook(new JsonObject().put("url", "https://h/c"),
        new JsonArray().add("v1"))));
    assertEquals(true, c.webhook());
    assertEquals(List.of("v1"), c.reviewVersions());
    assertEquals(false, CrdConversion.of(crd(null)).webhook());
  }

  @Test
  void webhookErrors() {
    assertEquals(List.of("spec.conversion.webhookClientConfig: Required value: required when strategy is set to "
        + "Webhook", "spec.conversion.conversionReviewVersions: Required value"),
        causes(new JsonObject().put("strategy", "Webhook")));
    // upstream's ValidateWebhookURL: the scheme as the value, and the desired form
    assertEquals(List.of("spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the "
        + "only allowed URL scheme; desired format: https://host[/path]", "spec.conversion.conversionReviewVersions: Invalid value: []string{\"v2\"}: must "
        + "include at least one of v1, v1beta1"),
        causes(webhook(new JsonObject().put("url", "http://h/c"), new JsonArray().add("v2"))));
    assertEquals(List.of("spec.conversion.webhookClientConfig: Required value: exactly one of url or service is "
        + "required"), causes(webhook(new JsonObject().put("url", "https://h/c").put("service", new JsonObject()
        .put("namespace", "d").put("name", "n")), new JsonArray().add("v1"))));
    assertEquals(List.of("spec.conversion.webhookClientConfig.caBundle: Invalid value: \"bm90IGEgY2VydA==\": data does "
        + "not contain any valid RSA or ECDSA certificates"), causes(webhook(new JsonObject().put("url", "https://h/c")
        .put("caBundle", "bm90IGEgY2VydA=="), new JsonArray().add("v1"))));
    assertEquals(List.of("spec.conversion.conversionReviewVersions[1]: Invalid value: \"v1\": duplicate version"),
        causes(webhook(new JsonObject().put("url", "https://h/c"), new JsonArray().add("v1").add("v1"))));
  }

  @Test
  void noneForbidsAWebhookAndUnknownStrategies() {
    JsonObject none = webhook(new JsonObject().put("url", "https://h/c"), new JsonArray().add("v1"))
        .put("strategy", "None");
    assertEquals(List.of("spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set "
        + "to Webhook", "spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not "
        + "set to Webhook"), causes(none));
    assertEquals(List.of("spec.conversion.strategy: Unsupported value: \"Magic\": supported values: \"None\", "
        + "\"Webhook\""), causes(new JsonObject().put("strategy", "Magic")));
  }
}
