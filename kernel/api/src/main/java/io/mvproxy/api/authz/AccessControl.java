package io.mvproxy.api.authz;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The node's authorization, offered to API sources for access reviews and RBAC escalation checks. Every method
 * answers from the node's in-memory RBAC index and never blocks.
 */
public interface AccessControl extends Authorizer {
  /**
   * Runs the node's authorizer chain ({@code --authorization-mode}, with {@code system:masters} first).
   *
   * @param attributes what is asked
   * @return ALLOW, DENY, or NO_OPINION (= denied) with the reason
   */
  @Override
  Decision authorize(Attributes attributes);

  /**
   * The rules the user holds in a namespace (SelfSubjectRulesReview).
   *
   * @param user      the user
   * @param namespace the namespace, {@code ""} for cluster-wide grants only
   * @return the rules and resolution errors
   */
  ResolvedRules rulesFor(UserInfo user, String namespace);

  /**
   * Escalation check for writing a Role ({@code namespace} non-empty) or ClusterRole
   * ({@code pkg/registry/rbac/role/policybased/storage.go}): passes for {@code system:masters}, for verb
   * {@code escalate} on the role, or when the user already holds every rule written (a ClusterRole with an
   * aggregationRule needs full authority).
   *
   * @param user      the writer
   * @param namespace the Role's namespace, {@code ""} for a ClusterRole
   * @param name      the role's name
   * @param newRole   the role being written
   * @param oldRole   the stored role (updates), or null
   * @throws StatusException 403 Forbidden with kube-apiserver's text when the write would escalate
   */
  void checkRoleWrite(UserInfo user, String namespace, String name, JsonObject newRole, JsonObject oldRole);

  /**
   * Escalation check for writing a RoleBinding ({@code namespace} non-empty) or ClusterRoleBinding
   * ({@code pkg/registry/rbac/rolebinding/policybased/storage.go}): passes for {@code system:masters}, for verb
   * {@code bind} on the referenced role, or when the user holds every rule of the referenced role.
   *
   * @param user      the writer
   * @param namespace the binding's namespace, {@code ""} for a ClusterRoleBinding
   * @param name      the binding's name
   * @param roleRef   the binding's {@code roleRef}
   * @throws StatusException 403 Forbidden with kube-apiserver's text, or 404 when the referenced role is missing
   */
  void checkBindingWrite(UserInfo user, String namespace, String name, JsonObject roleRef);

  /** @return the modes in order, e.g. {@code [RBAC]} */
  List<String> modes();
}
