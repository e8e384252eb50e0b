package io.mvproxy.builtin;

import io.mvproxy.registry.impl.admission.AdmissionPolicies;
import io.mvproxy.registry.impl.rest.CrdRequest;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.mvproxy.registry.impl.schema.FieldError;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The REST strategy of {@code admissionregistration.k8s.io/v1} validatingadmissionpolicies and
 * validatingadmissionpolicybindings ({@code pkg/registry/admissionregistration/validatingadmissionpolicy/strategy.go},
 * {@code validatingadmissionpolicybinding/strategy.go}): v1 defaults filled ({@link AdmissionPolicies}), then
 * validated (422 Invalid with causes, nothing stored); a policy's {@code status} is left to its subresource. Table
 * cells as kube's {@code printValidatingAdmissionPolicy} ({@code VALIDATIONS}: the number of validations,
 * {@code PARAMKIND}: {@code <apiVersion>/<kind>} or {@code <unset>}) and {@code printValidatingAdmissionPolicyBinding}
 * ({@code POLICYNAME}, {@code PARAMREF}: {@code <namespace>/<name>}, {@code * /<name>} without a namespace, or
 * {@code <unset>}) in {@code pkg/printers/internalversion/printers.go}.
 */
final class AdmissionPolicyStrategy implements ObjectStrategy {
  private final boolean binding;

  /** @param binding true for the bindings, false for the policies */
  AdmissionPolicyStrategy(boolean binding) {
    this.binding = binding;
  }

  /** @return true: {@code ValidateValidatingAdmissionPolicyUpdate} (and the binding's) validate the whole object */
  @Override
  public boolean validatesMetaOnUpdate() {
    return true;
  }

  @Override
  public JsonObject prepareCreate(CrdRequest req, JsonObject obj) {
    return check(req, obj);
  }

  @Override
  public JsonObject prepareUpdate(CrdRequest req, JsonObject old, JsonObject next) {
    return "status".equals(req.info().subresource()) ? next : check(req, next);
  }

  @Override
  public Object tableCell(String column, JsonObject obj, Object cell) {
    JsonObject spec = obj.getValue("spec") instanceof JsonObject o ? o : new JsonObject();
    switch (column) {
      case "Validations":
        return (long) (spec.getValue("validations") instanceof io.vertx.core.json.JsonArray a ? a.size() : 0);
      case "ParamKind":
        if (spec.getValue("paramKind") instanceof JsonObject pk) {
          return pk.getString("apiVersion", "") + "/" + pk.getString("kind", "");
        }
        return "<unset>";
      case "ParamRef":
        if (spec.getValue("paramRef") instanceof JsonObject pr && pr.getValue("name") instanceof String n
            && !n.isEmpty()) {
          String ns = pr.getValue("namespace") instanceof String s ? s : "";
          return (ns.isEmpty() ? "*" : ns) + "/" + n;
        }
        return "<unset>";
      default:
        return cell;
    }
  }

  /** The field rules of a defaulted copy ({@link ObjectStrategy#violations}). */
  @Override
  public io.vertx.core.json.JsonArray violations(CrdRequest req, JsonObject obj, JsonObject oldView) {
    JsonObject o = binding ? AdmissionPolicies.setBindingDefaults(obj.copy())
        : AdmissionPolicies.setPolicyDefaults(obj.copy());
    return FieldError.causes(binding ? AdmissionPolicies.validateBinding(o) : AdmissionPolicies.validatePolicy(o));
  }

  private JsonObject check(CrdRequest req, JsonObject obj) {
    JsonObject o = binding ? AdmissionPolicies.setBindingDefaults(obj) : AdmissionPolicies.setPolicyDefaults(obj);
    List<FieldError> errs = binding ? AdmissionPolicies.validateBinding(o) : AdmissionPolicies.validatePolicy(o);
    req.failIfInvalid(o, errs);
    return o;
  }
}
