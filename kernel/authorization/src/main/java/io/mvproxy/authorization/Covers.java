package io.mvproxy.authorization;

import io.mvproxy.api.authz.PolicyRule;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Whether held rules cover requested ones ({@code Covers} in
 * {@code staging/src/k8s.io/component-helpers/auth/rbac/validation/policy_comparator.go}): each requested rule is
 * broken down into single verb / group / resource (/ name) units, or verb / URL units, and each unit must be covered
 * by one held rule.
 */
public final class Covers {
  private Covers() {
  }

  /**
   * @param owner     rules the user holds
   * @param requested rules being granted
   * @return the requested units not covered, merged per group/resource/names/URLs (verbs joined), empty when
   *     everything is covered
   */
  public static List<PolicyRule> missing(List<PolicyRule> owner, List<PolicyRule> requested) {
    List<PolicyRule> missing = new ArrayList<>();
    for (PolicyRule r : requested) {
      for (PolicyRule unit : breakdown(r)) {
        boolean covered = false;
        for (PolicyRule o : owner) {
          if (ruleCovers(o, unit)) {
            covered = true;
            break;
          }
        }
        if (!covered && !missing.contains(unit)) {
          missing.add(unit);
        }
      }
    }
    return compact(missing);
  }

  /** {@code BreakdownRule}. */
  static List<PolicyRule> breakdown(PolicyRule rule) {
    List<PolicyRule> out = new ArrayList<>();
    for (String group : rule.apiGroups()) {
      for (String resource : rule.resources()) {
        for (String verb : rule.verbs()) {
          if (!rule.resourceNames().isEmpty()) {
            for (String name : rule.resourceNames()) {
              out.add(new PolicyRule(List.of(verb), List.of(group), List.of(resource), List.of(name), List.of()));
            }
          } else {
            out.add(new PolicyRule(List.of(verb), List.of(group), List.of(resource), List.of(), List.of()));
          }
        }
      }
    }
    for (String url : rule.nonResourceURLs()) {
      for (String verb : rule.verbs()) {
        out.add(new PolicyRule(List.of(verb), List.of(), List.of(), List.of(), List.of(url)));
      }
    }
    return out;
  }

  /** {@code ruleCovers}. */
  static boolean ruleCovers(PolicyRule owner, PolicyRule sub) {
    boolean verbs = owner.verbs().contains("*") || owner.verbs().containsAll(sub.verbs());
    boolean groups = owner.apiGroups().contains("*") || owner.apiGroups().containsAll(sub.apiGroups());
    boolean resources = resourceCoversAll(owner.resources(), sub.resources());
    boolean urls = nonResourceUrlsCoverAll(owner.nonResourceURLs(), sub.nonResourceURLs());
    boolean names = sub.resourceNames().isEmpty() ? owner.resourceNames().isEmpty()
        : owner.resourceNames().isEmpty() || owner.resourceNames().containsAll(sub.resourceNames());
    return verbs && groups && resources && names && urls;
  }

  private static boolean resourceCoversAll(List<String> owner, List<String> sub) {
    if (owner.contains("*")) {
      return true;
    }
    for (String s : sub) {
      if (owner.contains(s)) {
        continue;
      }
      int slash = s.indexOf('/');
      if (slash >= 0 && owner.contains("*" + s.substring(slash))) {
        continue;
      }
      return false;
    }
    return true;
  }

  private static boolean nonResourceUrlsCoverAll(List<String> owner, List<String> sub) {
    for (String s : sub) {
      boolean covered = false;
      for (String o : owner) {
        if (o.equals("*") || o.equals(s) || (o.endsWith("*") && s.startsWith(RuleMatcher.stripStars(o)))) {
          covered = true;
          break;
        }
      }
      if (!covered) {
        return false;
      }
    }
    return true;
  }

  /** {@code CompactRules}: units differing only in verb become one rule. */
  static List<PolicyRule> compact(List<PolicyRule> units) {
    Map<List<List<String>>, List<String>> verbs = new LinkedHashMap<>();
    for (PolicyRule u : units) {
      List<List<String>> key = List.of(u.apiGroups(), u.resources(), u.resourceNames(), u.nonResourceURLs());
      List<String> v = verbs.computeIfAbsent(key, k -> new ArrayList<>());
      for (String verb : u.verbs()) {
        if (!v.contains(verb)) {
          v.add(verb);
        }
      }
    }
    List<PolicyRule> out = new ArrayList<>();
    verbs.forEach((k, v) -> out.add(new PolicyRule(v, k.get(0), k.get(1), k.get(2), k.get(3))));
    return out;
  }
}
