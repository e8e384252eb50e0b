package io.mvproxy.authorization;

import io.mvproxy.api.authz.Attributes;
import io.mvproxy.api.authz.PolicyRule;

/**
 * Whether one RBAC rule allows a request ({@code RuleAllows} in {@code plugin/pkg/auth/authorizer/rbac/rbac.go}
 * and {@code pkg/apis/rbac/v1/evaluation_helpers.go}).
 */
public final class RuleMatcher {
  private RuleMatcher() {
  }

  /**
   * @param a    the request
   * @param rule the rule
   * @return true when every part of the rule matches: verbs, API groups, resources ({@code resource},
   *     {@code resource/sub}, {@code * /sub}, {@code *}) and resource names for resource requests; verbs and
   *     non-resource URLs (exact, {@code *}, or a trailing {@code *} prefix) for paths
   */
  public static boolean allows(Attributes a, PolicyRule rule) {
    if (a.resourceRequest()) {
      String combined = a.subresource().isEmpty() ? a.resource() : a.resource() + "/" + a.subresource();
      return verbMatches(rule, a.verb()) && apiGroupMatches(rule, a.apiGroup())
          && resourceMatches(rule, combined, a.subresource()) && resourceNameMatches(rule, a.name());
    }
    return verbMatches(rule, a.verb()) && nonResourceUrlMatches(rule, a.path());
  }

  static boolean verbMatches(PolicyRule rule, String verb) {
    return rule.verbs().contains("*") || rule.verbs().contains(verb);
  }

  static boolean apiGroupMatches(PolicyRule rule, String group) {
    return rule.apiGroups().contains("*") || rule.apiGroups().contains(group);
  }

  static boolean resourceMatches(PolicyRule rule, String combined, String subresource) {
    for (String r : rule.resources()) {
      if (r.equals("*") || r.equals(combined)) {
        return true;
      }
      if (!subresource.isEmpty() && r.length() == subresource.length() + 2 && r.startsWith("*/")
          && r.endsWith(subresource)) {
        return true;
      }
    }
    return false;
  }

  static boolean resourceNameMatches(PolicyRule rule, String name) {
    return rule.resourceNames().isEmpty() || rule.resourceNames().contains(name);
  }

  static boolean nonResourceUrlMatches(PolicyRule rule, String path) {
    for (String u : rule.nonResourceURLs()) {
      if (u.equals("*") || u.equals(path)) {
        return true;
      }
      if (u.endsWith("*") && path.startsWith(stripStars(u))) {
        return true;
      }
    }
    return false;
  }

  static String stripStars(String s) {
    int e = s.length();
    while (e > 0 && s.charAt(e - 1) == '*') {
      e--;
    }
    return s.substring(0, e);
  }
}
