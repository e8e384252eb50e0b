package io.mvproxy.registry.impl.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mvproxy.registry.impl.schema.FieldError;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** v1 defaults and validation of webhook configurations, with kube-apiserver's field paths and texts. */
@Tag("unit")
class WebhookConfigurationsTest {
  static JsonObject config(JsonObject hook) {
    return new JsonObject().put("metadata", new JsonObject().put("name", "c"))
        .put("webhooks", new JsonArray().add(hook));
  }

  static JsonObject valid() {
    return new JsonObject().put("name", "deny.example.com")
        .put("clientConfig", new JsonObject().put("url", "https://127.0.0.1:8443/validate"))
        .put("rules", new JsonArray().add(new JsonObject().put("operations", new JsonArray().add("CREATE"))
            .put("apiGroups", new JsonArray().add("demo.io")).put("apiVersions", new JsonArray().add("v1"))
            .put("resources", new JsonArray().add("widgets"))))
        .put("sideEffects", "None").put("admissionReviewVersions", new JsonArray().add("v1"));
  }

  static List<String> errors(JsonObject hook, boolean mutating) {
    JsonObject c = WebhookConfigurations.setDefaults(config(hook), mutating);
    return WebhookConfigurations.validate(c, mutating).stream().map(FieldError::error).toList();
  }

  @Test
  void defaults() {
    JsonObject c = WebhookConfigurations.setDefaults(config(valid().put("clientConfig", new JsonObject()
        .put("service", new JsonObject().put("namespace", "ns").put("name", "svc")))), true);
    JsonObject h = c.getJsonArray("webhooks").getJsonObject(0);
    assertEquals("Fail", h.getString("failurePolicy"));
    assertEquals("Equivalent", h.getString("matchPolicy"));
    assertEquals(new JsonObject(), h.getJsonObject("namespaceSelector"));
    assertEquals(new JsonObject(), h.getJsonObject("objectSelector"));
    assertEquals(10, h.getInteger("timeoutSeconds"));
    assertEquals("Never", h.getString("reinvocationPolicy"));
    assertEquals("*", h.getJsonArray("rules").getJsonObject(0).getString("scope"));
    assertEquals(443, h.getJsonObject("clientConfig").getJsonObject("service").getInteger("port"));
    assertEquals(List.of(), WebhookConfigurations.validate(c, true));
    JsonObject v = WebhookConfigurations.setDefaults(config(valid()), false);
    assertEquals(null, v.getJsonArray("webhooks").getJsonObject(0).getValue("reinvocationPolicy"));
  }

  @Test
  void validationTexts() {
    assertEquals(List.of(), errors(valid(), false));
    assertEquals(List.of("webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun"),
        errors(valid().put("sideEffects", null), false));
    assertEquals(List.of("webhooks[0].sideEffects: Unsupported value: \"Unknown\": supported values: \"None\", "
        + "\"NoneOnDryRun\""), errors(valid().put("sideEffects", "Unknown"), false));
    assertEquals(List.of("webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1"),
        errors(valid().put("admissionReviewVersions", new JsonArray()), false));
    assertEquals(List.of("webhooks[0].admissionReviewVersions: Invalid value: []string{\"v2\"}: must include at "
        + "least one of v1, v1beta1"), errors(valid().put("admissionReviewVersions", new JsonArray().add("v2")),
        false));
    assertEquals(List.of("webhooks[0].name: Invalid value: \"deny\": should be a domain with at least three "
        + "segments separated by dots"), errors(valid().put("name", "deny"), false));
    assertEquals(List.of("webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and "
        + "30 seconds"), errors(valid().put("timeoutSeconds", 31), false));
    assertEquals(List.of("webhooks[0].failurePolicy: Unsupported value: \"Maybe\": supported values: \"Fail\", "
        + "\"Ignore\""), errors(valid().put("failurePolicy", "Maybe"), false));
    assertEquals(List.of("webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL "
        + "scheme; desired format: https://host[/path]"), errors(valid().put("clientConfig", new JsonObject()
        .put("url", "http://127.0.0.1/")), false));
    // every problem of the URL is reported, as ValidateWebhookURL does
    assertEquals(List.of("webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL "
        + "scheme; desired format: https://host[/path]", "webhooks[0].clientConfig.url: Invalid value: \"u:p\": user "
        + "information is not permitted in the URL", "webhooks[0].clientConfig.url: Invalid value: \"f\": fragments "
        + "are not permitted in the URL", "webhooks[0].clientConfig.url: Invalid value: \"y=1\": query parameters "
        + "are not permitted in the URL"), errors(valid().put("clientConfig", new JsonObject()
        .put("url", "http://u:p@127.0.0.1:9/x?y=1#f")), false));
    assertEquals(List.of("webhooks[0].clientConfig.url: Invalid value: \"\": host must be provided; desired format: "
        + "https://host[/path]"), errors(valid().put("clientConfig", new JsonObject().put("url", "https:///x")),
        false));
    assertEquals(List.of("webhooks[0].clientConfig.service.path: Invalid value: \"/a//B\": segment[1] may not be "
        + "empty", "webhooks[0].clientConfig.service.path: Invalid value: \"/a//B\": segment[2]: a lowercase RFC "
        + "1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with "
        + "an alphanumeric character (e.g. 'example.com', regex used for validation is "
        + "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"),
        errors(valid().put("clientConfig", new JsonObject().put("service", new JsonObject().put("namespace", "n")
            .put("name", "s").put("path", "/a//B"))), false));
    assertEquals(List.of("webhooks[0].clientConfig: Required value: exactly one of url or service is required"),
        errors(valid().put("clientConfig", new JsonObject()), false));
    assertEquals(List.of("webhooks[0].reinvocationPolicy: Unsupported value: \"Always\": supported values: "
        + "\"IfNeeded\", \"Never\""), errors(valid().put("reinvocationPolicy", "Always"), true));
    assertEquals(List.of("webhooks[0].rules[0].operations[0]: Unsupported value: \"PATCH\": supported values: "
        + "\"*\", \"CONNECT\", \"CREATE\", \"DELETE\", \"UPDATE\""), errors(valid().put("rules", new JsonArray()
        .add(valid().getJsonArray("rules").getJsonObject(0).copy().put("operations", new JsonArray().add("PATCH")))),
        false));
    // validateAdmissionReviewVersions: each a DNS-1035 label
    assertEquals(List.of("webhooks[0].admissionReviewVersions[1]: Invalid value: \"1v\": a DNS-1035 label must "
        + "consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an "
        + "alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
        + "'[a-z]([-a-z0-9]*[a-z0-9])?')"), errors(valid().put("admissionReviewVersions", new JsonArray().add("v1")
        .add("1v")), false));
    // validateResources as upstream has it: only the last resource without a subresource counts beside '*'
    java.util.function.Function<List<String>, List<String>> resources = rs -> errors(valid().put("rules",
        new JsonArray().add(valid().getJsonArray("rules").getJsonObject(0).copy()
            .put("resources", new JsonArray(new java.util.ArrayList<Object>(rs))))), false);
    assertEquals(List.of(), resources.apply(List.of("*", "*/scale")));
    assertEquals(List.of(), resources.apply(List.of("pods", "*")));
    assertEquals(List.of("webhooks[0].rules[0].resources: Invalid value: []string{\"*\", \"pods\"}: if '*' is "
        + "present, must not specify other resources without subresources"), resources.apply(List.of("*", "pods")));
    assertEquals(List.of("webhooks[0].rules[0].resources[1]: Invalid value: \"pods/log\": if 'pods/*' is present, "
        + "must not specify pods/log", "webhooks[0].rules[0].resources: Invalid value: []string{\"pods/*\", "
        + "\"pods/log\", \"*/*\"}: if '*/*' is present, must not specify other resources"),
        resources.apply(List.of("pods/*", "pods/log", "*/*")));
    assertEquals(List.of(), resources.apply(List.of("pods/log", "pods/*")));
    JsonObject cond = valid().put("matchConditions", new JsonArray().add(new JsonObject().put("name", "c1")
        .put("expression", "object.metadata.name ==")));
    assertEquals(1, errors(cond, false).size());
    assertEquals(true, errors(cond, false).get(0).startsWith("webhooks[0].matchConditions[0].expression: Invalid "
        + "value: \"object.metadata.name ==\": compilation failed: "));
  }

  @Test
  void duplicateNames() {
    JsonObject c = new JsonObject().put("webhooks", new JsonArray().add(valid()).add(valid()));
    assertEquals(List.of("webhooks[1].name: Duplicate value: \"deny.example.com\""),
        WebhookConfigurations.validate(WebhookConfigurations.setDefaults(c, false), false).stream()
            .map(FieldError::error).toList());
  }
}
