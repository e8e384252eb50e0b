package io.mvproxy.authorization;

import io.mvproxy.api.UserInfo;
import io.mvproxy.api.authz.Attributes;
import io.mvproxy.api.authz.Authorizer;
import io.mvproxy.api.authz.Decision;
import io.mvproxy.api.authz.PolicyRule;
import io.mvproxy.api.authz.ResolvedRules;
import io.mvproxy.authorization.RbacObjects.Binding;
import io.mvproxy.authorization.RbacObjects.Role;
import io.mvproxy.authorization.RbacObjects.RoleRef;
import io.mvproxy.authorization.RbacObjects.Subject;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The RBAC authorizer ({@code plugin/pkg/auth/authorizer/rbac/rbac.go}) and rule resolver
 * ({@code pkg/registry/rbac/validation/rule.go}) over an {@link RbacIndex}: visits every ClusterRoleBinding, then
 * the RoleBindings of the request's namespace, and allows at the first matching rule (reason
 * {@code RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "edit" to User "alice"}); otherwise NO_OPINION, with
 * role-lookup errors as the reason ({@code RBAC: clusterrole.rbac.authorization.k8s.io "x" not found}).
 */
public final class RbacAuthorizer implements Authorizer {
  /** Prefix of service-account user names ({@code system:serviceaccount:<ns>:<name>}). */
  public static final String SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:";

  private final RbacIndex index;

  /** @param index the RBAC objects */
  public RbacAuthorizer(RbacIndex index) {
    this.index = index;
  }

  /** Called per rule; return false to stop visiting. */
  @FunctionalInterface
  interface Visitor {
    boolean visit(String source, PolicyRule rule, String error);
  }

  @Override
  public Decision authorize(Attributes a) {
    String[] allowedBy = {null};
    List<String> errors = new ArrayList<>();
    visitRulesFor(index.snapshot(), a.user(), a.namespace(), (source, rule, error) -> {
      if (rule != null && RuleMatcher.allows(a, rule)) {
        allowedBy[0] = source;
        return false;
      }
      if (error != null) {
        errors.add(error);
      }
      return true;
    });
    if (allowedBy[0] != null) {
      return Decision.allow("RBAC: allowed by " + allowedBy[0]);
    }
    return Decision.noOpinion(errors.isEmpty() ? "" : "RBAC: " + aggregate(errors));
  }

  /**
   * Every rule the user holds in a namespace ({@code RulesFor}).
   *
   * @param user      the user
   * @param namespace the namespace, {@code ""} for cluster-wide bindings only
   * @return the rules and lookup errors
   */
  public ResolvedRules rulesFor(UserInfo user, String namespace) {
    List<PolicyRule> rules = new ArrayList<>();
    List<String> errors = new ArrayList<>();
    visitRulesFor(index.snapshot(), user, namespace, (source, rule, error) -> {
      if (rule != null) {
        rules.add(rule);
      }
      if (error != null) {
        errors.add(error);
      }
      return true;
    });
    return new ResolvedRules(rules, errors);
  }

  /**
   * The rules a role reference grants ({@code GetRoleReferenceRules}).
   *
   * @param ref              the reference
   * @param bindingNamespace the binding's namespace (Roles are looked up there)
   * @return the rules
   * @throws IllegalArgumentException with kube-apiserver's text when the role is missing or the kind unknown
   */
  public List<PolicyRule> roleReferenceRules(RoleRef ref, String bindingNamespace) {
    String[] error = {null};
    List<PolicyRule> rules = roleRules(index.snapshot(), ref, bindingNamespace, error);
    if (rules == null) {
      throw new IllegalArgumentException(error[0]);
    }
    return rules;
  }

  static void visitRulesFor(RbacIndex.Snapshot s, UserInfo user, String namespace, Visitor visitor) {
    for (Binding b : s.clusterRoleBindings()) {
      Subject subject = appliesTo(user, b.subjects(), "");
      if (subject == null) {
        continue;
      }
      String[] error = {null};
      List<PolicyRule> rules = roleRules(s, b.roleRef(), "", error);
      if (rules == null) {
        if (!visitor.visit(null, null, error[0])) {
          return;
        }
        continue;
      }
      String source = "ClusterRoleBinding \"" + b.name() + "\" of " + b.roleRef().kind() + " \""
          + b.roleRef().name() + "\" to " + subject.describe("");
      for (PolicyRule r : rules) {
        if (!visitor.visit(source, r, null)) {
          return;
        }
      }
    }
    if (namespace.isEmpty()) {
      return;
    }
    for (Binding b : s.roleBindings().getOrDefault(namespace, List.of())) {
      Subject subject = appliesTo(user, b.subjects(), namespace);
      if (subject == null) {
        continue;
      }
      String[] error = {null};
      List<PolicyRule> rules = roleRules(s, b.roleRef(), namespace, error);
      if (rules == null) {
        if (!visitor.visit(null, null, error[0])) {
          return;
        }
        continue;
      }
      String source = "RoleBinding \"" + b.name() + "/" + b.namespace() + "\" of " + b.roleRef().kind() + " \""
          + b.roleRef().name() + "\" to " + subject.describe(b.namespace());
      for (PolicyRule r : rules) {
        if (!visitor.visit(source, r, null)) {
          return;
        }
      }
    }
  }

  private static List<PolicyRule> roleRules(RbacIndex.Snapshot s, RoleRef ref, String namespace, String[] error) {
    switch (ref.kind()) {
      case "ClusterRole" -> {
        Role r = s.clusterRoles().get(ref.name());
        if (r == null) {
          error[0] = "clusterrole.rbac.authorization.k8s.io \"" + ref.name() + "\" not found";
          return null;
        }
        return r.rules();
      }
      case "Role" -> {
        Role r = s.roles().getOrDefault(namespace, Map.of()).get(ref.name());
        if (r == null) {
          error[0] = "role.rbac.authorization.k8s.io \"" + ref.name() + "\" not found";
          return null;
        }
        return r.rules();
      }
      default -> {
        error[0] = "unsupported role reference kind: \"" + ref.kind() + "\"";
        return null;
      }
    }
  }

  /** {@code appliesTo}: the first subject that names the user, or null. */
  static Subject appliesTo(UserInfo user, List<Subject> subjects, String namespace) {
    for (Subject s : subjects) {
      if (appliesToUser(user, s, namespace)) {
        return s;
      }
    }
    return null;
  }

  static boolean appliesToUser(UserInfo user, Subject s, String namespace) {
    switch (s.kind()) {
      case "User":
        return user.name().equals(s.name());
      case "Group":
        return user.groups().contains(s.name());
      case "ServiceAccount":
        String ns = s.namespace().isEmpty() ? namespace : s.namespace();
        return !ns.isEmpty() && user.name().equals(SERVICE_ACCOUNT_PREFIX + ns + ":" + s.name());
      default:
        return false;
    }
  }

  /** {@code utilerrors.NewAggregate(...).Error()}: one message as is, several de-duplicated in brackets. */
  static String aggregate(List<String> errors) {
    Set<String> seen = new LinkedHashSet<>(errors);
    return seen.size() == 1 ? seen.iterator().next() : "[" + String.join(", ", seen) + "]";
  }
}
