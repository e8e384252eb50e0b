package io.mvproxy.builtin;

import io.mvproxy.registry.impl.admission.WebhookConfigurations;
import io.mvproxy.registry.impl.rest.CrdRequest;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.mvproxy.registry.impl.schema.FieldError;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The REST strategy of {@code admissionregistration.k8s.io/v1} validatingwebhookconfigurations and
 * mutatingwebhookconfigurations ({@code pkg/registry/admissionregistration/validatingwebhookconfiguration/strategy.go},
 * {@code mutatingwebhookconfiguration/strategy.go}): v1 defaults filled on create and update
 * ({@link WebhookConfigurations#setDefaults}), then validated ({@link WebhookConfigurations#validate}; 422 Invalid
 * with causes, nothing stored); the {@code Webhooks} Table cell counts the webhooks (kube's printer).
 */
final class WebhookConfigStrategy implements ObjectStrategy {
  private final boolean mutating;

  /** @param mutating true for mutatingwebhookconfigurations */
  WebhookConfigStrategy(boolean mutating) {
    this.mutating = mutating;
  }

  /**
   * The typed decoder's reading of each webhook's {@code clientConfig.caBundle} ({@code []byte}, omitempty): base64
   * ({@link GoBase64}) in canonical form, an empty one left out.
   *
   * @throws io.mvproxy.api.StatusException 400 {@code ValidatingWebhookConfiguration in version "v1" cannot be handled
   *     as a ValidatingWebhookConfiguration: illegal base64 data at input byte N}
   */
  @Override
  public JsonObject decodeBody(CrdRequest req, JsonObject obj) {
    if (obj.getValue("webhooks") instanceof JsonArray hooks) {
      for (Object h : hooks) {
        if (h instanceof JsonObject hook && hook.getValue("clientConfig") instanceof JsonObject cc) {
          GoBase64.readOmitEmptyBytes(req, cc, "caBundle");
        }
      }
    }
    return obj;
  }

  /** @return true: {@code ValidateValidatingWebhookConfigurationUpdate} validates the whole object again */
  @Override
  public boolean validatesMetaOnUpdate() {
    return true;
  }

  @Override
  public JsonObject prepareCreate(CrdRequest req, JsonObject obj) {
    return check(req, WebhookConfigurations.setDefaults(obj, mutating));
  }

  @Override
  public JsonObject prepareUpdate(CrdRequest req, JsonObject old, JsonObject next) {
    return check(req, WebhookConfigurations.setDefaults(next, mutating));
  }

  /** The field rules of a defaulted copy ({@link ObjectStrategy#violations}). */
  @Override
  public JsonArray violations(CrdRequest req, JsonObject obj, JsonObject oldView) {
    return FieldError.causes(WebhookConfigurations.validate(WebhookConfigurations.setDefaults(obj.copy(), mutating),
        mutating));
  }

  private JsonObject check(CrdRequest req, JsonObject obj) {
    List<FieldError> errs = WebhookConfigurations.validate(obj, mutating);
    req.failIfInvalid(obj, errs);
    return obj;
  }

  @Override
  public Object tableCell(String column, JsonObject obj, Object cell) {
    return "Webhooks".equals(column) ? (Object) (long) obj.getJsonArray("webhooks", new JsonArray()).size() : cell;
  }
}
