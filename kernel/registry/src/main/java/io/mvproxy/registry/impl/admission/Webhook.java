package io.mvproxy.registry.impl.admission;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * One webhook of a stored, defaulted configuration ({@code admissionregistration.k8s.io/v1} ValidatingWebhook or
 * MutatingWebhook).
 *
 * @param configName         the configuration's {@code metadata.name}
 * @param name               the webhook's name
 * @param mutating           true for a MutatingWebhook
 * @param rules              its {@code rules} (RuleWithOperations objects, scope defaulted)
 * @param failurePolicy      {@code Fail} or {@code Ignore}
 * @param matchPolicy        {@code Equivalent} or {@code Exact}
 * @param namespaceSelector  the namespace selector ({@code {}}: every namespace)
 * @param objectSelector     the object selector ({@code {}}: every object)
 * @param timeoutSeconds     the call's deadline in seconds (1..30)
 * @param reinvocationPolicy {@code Never} or {@code IfNeeded} (mutating only)
 * @param clientConfig       the clientConfig ({@code url} or {@code service}, {@code caBundle} base64 PEM)
 * @param conditions         the compiled {@code matchConditions}
 */
public record Webhook(String configName, String name, boolean mutating, List<JsonObject> rules, String failurePolicy,
                      String matchPolicy, JsonObject namespaceSelector, JsonObject objectSelector, int timeoutSeconds,
                      String reinvocationPolicy, JsonObject clientConfig, MatchConditions conditions) {

  /**
   * @param config   a stored configuration (defaulted and validated when written)
   * @param mutating true for a MutatingWebhookConfiguration
   * @return its webhooks in order
   * @throws IllegalArgumentException when a matchCondition does not compile
   */
  public static List<Webhook> of(JsonObject config, boolean mutating) {
    JsonObject c = WebhookConfigurations.setDefaults(config.copy(), mutating);
    String configName = c.getJsonObject("metadata", new JsonObject()).getString("name", "");
    List<Webhook> out = new ArrayList<>();
    if (c.getValue("webhooks") instanceof JsonArray hooks) {
      for (Object o : hooks) {
        if (!(o instanceof JsonObject h)) {
          continue;
        }
        List<JsonObject> rules = new ArrayList<>();
        if (h.getValue("rules") instanceof JsonArray rs) {
          rs.forEach(r -> {
            if (r instanceof JsonObject ro) {
              rules.add(ro);
            }
          });
        }
        out.add(new Webhook(configName, h.getString("name", ""), mutating, List.copyOf(rules),
            h.getString("failurePolicy"), h.getString("matchPolicy"), h.getJsonObject("namespaceSelector"),
            h.getJsonObject("objectSelector"), h.getInteger("timeoutSeconds", 10),
            h.getString("reinvocationPolicy", "Never"), h.getJsonObject("clientConfig", new JsonObject()),
            MatchConditions.compile(h.getValue("matchConditions"))));
      }
    }
    return out;
  }

  /** @return true for {@code failurePolicy: Ignore} */
  public boolean ignoreFailures() {
    return "Ignore".equals(failurePolicy);
  }
}
