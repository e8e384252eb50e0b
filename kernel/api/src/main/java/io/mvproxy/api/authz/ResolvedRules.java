package io.mvproxy.api.authz;

import java.util.List;

/**
 * The rules that apply to a user in a namespace ({@code RulesFor} in {@code pkg/registry/rbac/validation/rule.go}):
 * cluster-wide bindings plus the namespace's RoleBindings.
 *
 * @param rules  every rule, in visiting order
 * @param errors resolution errors (e.g. {@code clusterrole.rbac.authorization.k8s.io "x" not found}); non-empty
 *               means the list is incomplete
 */
public record ResolvedRules(List<PolicyRule> rules, List<String> errors) {
  /** Copies the lists. */
  public ResolvedRules {
    rules = List.copyOf(rules);
    errors = List.copyOf(errors);
  }
}
