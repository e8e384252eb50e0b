package io.mvproxy.builtin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mvproxy.registry.impl.rest.StrategicMergePatch;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Strategic merge patch of webhook configurations merges {@code webhooks} (and their {@code matchConditions}) by
 * {@code name}, as the struct tags of {@code k8s.io/api/admissionregistration/v1} say: {@code kubectl patch
 * validatingwebhookconfiguration x -p '{"webhooks":[{"name":"a.example.com","timeoutSeconds":5}]}'} changes that
 * field of that webhook only (before, the list was replaced and the webhook lost its other fields: 422).
 */
@Tag("unit")
class WebhookConfigPatchTest {
  static JsonObject config() {
    return new JsonObject("""
        {"metadata":{"name":"x"},"webhooks":[
          {"name":"a.example.com","timeoutSeconds":10,"sideEffects":"None","clientConfig":{"url":"https://a"},
           "matchConditions":[{"name":"c1","expression":"true"},{"name":"c2","expression":"true"}]},
          {"name":"b.example.com","timeoutSeconds":10,"sideEffects":"None","clientConfig":{"url":"https://b"}}]}""");
  }

  @Test
  void webhooksAndMatchConditionsMergeByName() {
    for (String plural : new String[] {"validatingwebhookconfigurations", "mutatingwebhookconfigurations"}) {
      JsonObject out = StrategicMergePatch.apply(config(), new JsonObject("""
          {"webhooks":[{"name":"a.example.com","timeoutSeconds":5,
            "matchConditions":[{"name":"c2","expression":"false"}]}]}"""),
          new KindSemantics(plural).strategicMergePatch());
      JsonObject expected = config();
      JsonObject a = expected.getJsonArray("webhooks").getJsonObject(0).put("timeoutSeconds", 5);
      a.getJsonArray("matchConditions").getJsonObject(1).put("expression", "false");
      assertEquals(expected, out, plural);
    }
  }
}
