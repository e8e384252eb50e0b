package io.mvproxy.builtin;

import io.mvproxy.api.StatusException;
import io.mvproxy.registry.admission.AdmissionPolicies;
import io.mvproxy.registry.rest.CrdRequest;
import io.mvproxy.registry.rest.ObjectStrategy;
import io.mvproxy.registry.schema.FieldError;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The REST strategy of {@code admissionregistration.k8s.io/v1} validatingadmissionpolicies and
 * validatingadmissionpolicybindings ({@code pkg/registry/admissionregistration/validatingadmissionpolicy/strategy.go},
 * {@code validatingadmissionpolicybinding/strategy.go}): v1 defaults filled ({@link AdmissionPolicies}), then
 * validated (422 Invalid with causes, nothing stored); a policy's {@code status} is left to its subresource.
 */
final class AdmissionPolicyStrategy implements ObjectStrategy {
  private final boolean binding;

  /** @param binding true for the bindings, false for the policies */
  AdmissionPolicyStrategy(boolean binding) {
    this.binding = binding;
  }

  @Override
  public JsonObject prepareCreate(CrdRequest req, JsonObject obj) {
    return check(req, obj);
  }

  @Override
  public JsonObject prepareUpdate(CrdRequest req, JsonObject old, JsonObject next) {
    return "status".equals(req.info().subresource()) ? next : check(req, next);
  }

  private JsonObject check(CrdRequest req, JsonObject obj) {
    JsonObject o = binding ? AdmissionPolicies.setBindingDefaults(obj) : AdmissionPolicies.setPolicyDefaults(obj);
    List<FieldError> errs = binding ? AdmissionPolicies.validateBinding(o) : AdmissionPolicies.validatePolicy(o);
    if (!errs.isEmpty()) {
      String name = o.getJsonObject("metadata", new JsonObject()).getString("name", "");
      throw StatusException.invalid(req.gvr(), req.crd().kind(), name, FieldError.causes(errs));
    }
    return o;
  }
}
