package io.mvproxy.builtin;

import io.mvproxy.api.Gvr;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.authz.AccessControl;
import io.mvproxy.registry.impl.rest.CrdRequest;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The escalation checks of RBAC writes ({@code pkg/registry/rbac/*}/policybased/storage.go) and the immutable
 * {@code roleRef} of bindings ({@code pkg/apis/rbac/validation/validation.go}).
 */
public final class Rbac implements ObjectStrategy {
  private static final String GROUP = "rbac.authorization.k8s.io";
  private final AccessControl access;
  private final boolean binding;

  /**
   * @param access  the node's authorization
   * @param binding true for (Cluster)RoleBindings, false for (Cluster)Roles
   */
  public Rbac(AccessControl access, boolean binding) {
    this.access = access;
    this.binding = binding;
  }

  /**
   * RBAC names are path segments ({@code ValidateRBACName}: {@code path.IsValidPathSegmentName}), e.g.
   * {@code system:foo}.
   */
  @Override
  public java.util.List<String> nameProblems(String name) {
    return io.mvproxy.registry.impl.rest.ObjectMetaValidator.pathSegmentName(name);
  }

  /**
   * A {@code generateName} of an RBAC object: the name rule itself ({@code ValidateRBACName} ignores its
   * {@code prefix} flag: {@code path.IsValidPathSegmentName}, so {@code .} and {@code ..} are refused too).
   */
  @Override
  public java.util.List<String> prefixProblems(String prefix) {
    return io.mvproxy.registry.impl.rest.ObjectMetaValidator.pathSegmentName(prefix);
  }

  /** @return true: {@code ValidateRoleUpdate} and the other RBAC updates validate the whole object again */
  @Override
  public boolean validatesMetaOnUpdate() {
    return true;
  }

  @Override
  public Future<Void> admitCreate(CrdRequest req, JsonObject obj) {
    try {
      check(req, obj, null);
      return Future.succeededFuture();
    } catch (StatusException e) {
      return Future.failedFuture(e);
    }
  }

  /**
   * Sets the defaults of a binding as the typed decoder does ({@code rbac/v1/defaults.go}): {@code roleRef.apiGroup}
   * {@code rbac.authorization.k8s.io} when empty ({@code SetDefaults_RoleBinding}, {@code ..._ClusterRoleBinding}),
   * and a subject's empty {@code apiGroup} {@code rbac.authorization.k8s.io} for a {@code User} or {@code Group}
   * ({@code SetDefaults_Subject}; a {@code ServiceAccount}'s stays empty).
   */
  static JsonObject setDefaults(JsonObject obj) {
    if (obj.getValue("roleRef") instanceof JsonObject ref
        && (ref.getValue("apiGroup") == null || "".equals(ref.getValue("apiGroup")))) {
      ref.put("apiGroup", GROUP);
    }
    if (obj.getValue("subjects") instanceof JsonArray subjects) {
      for (Object s : subjects) {
        if (s instanceof JsonObject subject
            && (subject.getValue("apiGroup") == null || "".equals(subject.getValue("apiGroup")))
            && ("User".equals(subject.getValue("kind")) || "Group".equals(subject.getValue("kind")))) {
          subject.put("apiGroup", GROUP);
        }
      }
    }
    return obj;
  }

  @Override
  public JsonObject prepareCreate(CrdRequest req, JsonObject obj) {
    return binding ? setDefaults(obj) : obj;
  }

  @Override
  public JsonObject prepareUpdate(CrdRequest req, JsonObject old, JsonObject next) {
    if (binding) {
      setDefaults(next);
    }
    if (binding && !old.getJsonObject("roleRef", new JsonObject()).equals(next.getJsonObject("roleRef"))) {
      Gvr gvr = req.gvr();
      String name = next.getJsonObject("metadata").getString("name", "");
      throw StatusException.invalid(gvr, req.crd().kind(), name, new JsonArray().add(new JsonObject()
          .put("reason", "FieldValueInvalid").put("field", "roleRef")
          .put("message", "Invalid value: " + next.getValue("roleRef") + ": cannot change roleRef")));
    }
    check(req, next, old);
    return next;
  }

  private void check(CrdRequest req, JsonObject obj, JsonObject old) {
    String ns = req.crd().namespaced() ? req.namespace() : "";
    String name = obj.getJsonObject("metadata", new JsonObject()).getString("name", "");
    if (binding) {
      access.checkBindingWrite(req.user(), ns, name, obj.getJsonObject("roleRef", new JsonObject()));
    } else {
      access.checkRoleWrite(req.user(), ns, name, obj, old);
    }
  }
}
