package io.mvproxy.registry.impl.admission;

import io.mvproxy.api.admission.Admission;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which webhooks a request goes to, as kube-apiserver's {@code admission/plugin/webhook/predicates}:
 * {@code rules.Matcher} (operations, apiGroups, apiVersions, resources with {@code res/sub}, {@code *},
 * {@code * /status}, {@code res/*}, scope), {@code matchPolicy: Equivalent} (another served version of the same
 * resource), {@code namespace.Matcher} (cluster-scoped objects other than namespaces always match; a namespace is
 * matched by its own labels) and {@code object.Matcher} (the new or the old object's labels).
 */
public final class WebhookMatching {
  private WebhookMatching() {
  }

  /**
   * @param rule        a RuleWithOperations (scope defaulted or absent)
   * @param operation   CREATE, UPDATE, DELETE or CONNECT
   * @param group       the resource's group
   * @param version     the version to test
   * @param resource    the resource (plural)
   * @param subresource the subresource ({@code ""} for none)
   * @param namespaced  true for a namespaced resource
   * @return true when the rule covers the request
   */
  public static boolean ruleMatches(JsonObject rule, String operation, String group, String version, String resource,
                                    String subresource, boolean namespaced) {
    String scope = rule.getString("scope", "*");
    if ("Namespaced".equals(scope) && !namespaced || "Cluster".equals(scope) && namespaced) {
      return false;
    }
    return listMatches(rule.getValue("operations"), operation) && listMatches(rule.getValue("apiGroups"), group)
        && listMatches(rule.getValue("apiVersions"), version) && resourceMatches(rule.getValue("resources"),
        resource, subresource);
  }

  private static boolean listMatches(Object list, String value) {
    if (!(list instanceof JsonArray a)) {
      return false;
    }
    for (Object o : a) {
      if ("*".equals(o) || value.equals(o)) {
        return true;
      }
    }
    return false;
  }

  private static boolean resourceMatches(Object list, String resource, String subresource) {
    if (!(list instanceof JsonArray a)) {
      return false;
    }
    for (Object o : a) {
      String r = o instanceof String s ? s : "";
      int slash = r.indexOf('/');
      String res = slash < 0 ? r : r.substring(0, slash);
      String sub = slash < 0 ? "" : r.substring(slash + 1);
      if (("*".equals(res) || res.equals(resource)) && ("*".equals(sub) || sub.equals(subresource))) {
        return true;
      }
    }
    return false;
  }

  /**
   * @param hook the webhook
   * @param a    the request
   * @return the version the webhook is to be called with: the request's when a rule covers it, else (matchPolicy
   *     Equivalent) the first equivalent version a rule covers; null when the webhook does not apply
   */
  public static String matchingVersion(Webhook hook, Admission.Attributes a) {
    if (rulesMatch(hook, a, a.version())) {
      return a.version();
    }
    if (!"Exact".equals(hook.matchPolicy())) {
      for (String v : a.equivalentVersions()) {
        if (rulesMatch(hook, a, v)) {
          return v;
        }
      }
    }
    return null;
  }

  private static boolean rulesMatch(Webhook hook, Admission.Attributes a, String version) {
    for (JsonObject r : hook.rules()) {
      if (ruleMatches(r, a.operation(), a.group(), version, a.resource(), a.subresource(), a.namespaced())) {
        return true;
      }
    }
    return false;
  }

  /**
   * @param a the request
   * @return true when the namespace selector must be checked against a namespace's labels (a namespaced object);
   *     false for cluster-scoped objects (always match) and namespaces (matched by their own labels)
   */
  public static boolean needsNamespaceLabels(Admission.Attributes a) {
    return a.namespaced() && !a.namespace().isEmpty();
  }

  /**
   * @param hook            the webhook
   * @param a               the request
   * @param namespaceLabels the labels of the request's namespace (used only when {@link #needsNamespaceLabels})
   * @return true when the namespace selector admits the request
   */
  public static boolean namespaceMatches(Webhook hook, Admission.Attributes a, Map<String, String> namespaceLabels) {
    JsonObject sel = hook.namespaceSelector();
    if (sel == null || sel.isEmpty()) {
      return true;
    }
    if (a.group().isEmpty() && "namespaces".equals(a.resource())) {
      JsonObject ns = a.object() != null ? a.object() : a.oldObject();
      return selectorMatches(sel, labels(ns));
    }
    if (!needsNamespaceLabels(a)) {
      return true;
    }
    return selectorMatches(sel, namespaceLabels);
  }

  /**
   * @param hook the webhook
   * @param a    the request
   * @return true when the object selector matches the new or the old object's labels
   */
  public static boolean objectMatches(Webhook hook, Admission.Attributes a) {
    JsonObject sel = hook.objectSelector();
    if (sel == null || sel.isEmpty()) {
      return true;
    }
    return a.object() != null && selectorMatches(sel, labels(a.object()))
        || a.oldObject() != null && selectorMatches(sel, labels(a.oldObject()));
  }

  /** @return the {@code metadata.labels} of {@code o} as strings (empty when none) */
  public static Map<String, String> labels(JsonObject o) {
    Map<String, String> out = new HashMap<>();
    if (o != null && o.getValue("metadata") instanceof JsonObject md && md.getValue("labels") instanceof JsonObject l) {
      l.forEach(e -> out.put(e.getKey(), String.valueOf(e.getValue())));
    }
    return out;
  }

  /**
   * {@code metav1.LabelSelectorAsSelector} then {@code Matches}: every {@code matchLabels} pair and every
   * {@code matchExpressions} requirement ({@code In}, {@code NotIn}, {@code Exists}, {@code DoesNotExist}) holds.
   *
   * @param selector a validated LabelSelector ({@code {}} matches everything)
   * @param labels   the labels
   * @return true when it matches
   */
  public static boolean selectorMatches(JsonObject selector, Map<String, String> labels) {
    if (selector.getValue("matchLabels") instanceof JsonObject ml) {
      for (String k : ml.fieldNames()) {
        if (!String.valueOf(ml.getValue(k)).equals(labels.get(k))) {
          return false;
        }
      }
    }
    if (selector.getValue("matchExpressions") instanceof JsonArray exprs) {
      for (Object o : exprs) {
        if (!(o instanceof JsonObject e)) {
          return false;
        }
        String v = labels.get(e.getString("key", ""));
        List<?> values = e.getJsonArray("values", new JsonArray()).getList();
        boolean ok = switch (e.getString("operator", "")) {
          case "In" -> v != null && values.contains(v);
          case "NotIn" -> v == null || !values.contains(v);
          case "Exists" -> v != null;
          case "DoesNotExist" -> v == null;
          default -> false;
        };
        if (!ok) {
          return false;
        }
      }
    }
    return true;
  }
}
