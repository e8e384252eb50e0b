package io.mvproxy.api.authz;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * An RBAC rule ({@code rbac/v1 PolicyRule}): verbs on API groups and resources (optionally limited to names), or on
 * non-resource URLs.
 *
 * @param verbs           verbs, {@code *} for all
 * @param apiGroups       API groups, {@code ""} for core, {@code *} for all
 * @param resources       resources, {@code resource/subresource}, {@code * /sub} or {@code *}
 * @param resourceNames   names, empty for any
 * @param nonResourceURLs URL paths, a trailing {@code *} matches a prefix
 */
public record PolicyRule(List<String> verbs, List<String> apiGroups, List<String> resources,
                         List<String> resourceNames, List<String> nonResourceURLs) {
  /** Copies the lists (null = empty). */
  public PolicyRule {
    verbs = copy(verbs);
    apiGroups = copy(apiGroups);
    resources = copy(resources);
    resourceNames = copy(resourceNames);
    nonResourceURLs = copy(nonResourceURLs);
  }

  /**
   * @param json a {@code PolicyRule} object
   * @return the rule; missing lists are empty
   */
  public static PolicyRule fromJson(JsonObject json) {
    return new PolicyRule(strings(json.getJsonArray("verbs")), strings(json.getJsonArray("apiGroups")),
        strings(json.getJsonArray("resources")), strings(json.getJsonArray("resourceNames")),
        strings(json.getJsonArray("nonResourceURLs")));
  }

  /**
   * @param rules a JSON array of rules, or null
   * @return the rules (empty for null)
   */
  public static List<PolicyRule> listFromJson(JsonArray rules) {
    List<PolicyRule> out = new ArrayList<>();
    if (rules != null) {
      for (Object o : rules) {
        if (o instanceof JsonObject j) {
          out.add(fromJson(j));
        }
      }
    }
    return out;
  }

  /** @return the rule as JSON, empty lists omitted (as Go's omitempty) except {@code verbs} */
  public JsonObject toJson() {
    JsonObject j = new JsonObject().put("verbs", new JsonArray(new ArrayList<>(verbs)));
    if (!apiGroups.isEmpty()) {
      j.put("apiGroups", new JsonArray(new ArrayList<>(apiGroups)));
    }
    if (!resources.isEmpty()) {
      j.put("resources", new JsonArray(new ArrayList<>(resources)));
    }
    if (!resourceNames.isEmpty()) {
      j.put("resourceNames", new JsonArray(new ArrayList<>(resourceNames)));
    }
    if (!nonResourceURLs.isEmpty()) {
      j.put("nonResourceURLs", new JsonArray(new ArrayList<>(nonResourceURLs)));
    }
    return j;
  }

  /**
   * The compact form of escalation messages ({@code rbac/v1/helpers.go CompactString}), e.g.
   * {@code {APIGroups:["demo.example.com"], Resources:["widgets"], Verbs:["delete"]}}.
   *
   * @return the text
   */
  public String compactString() {
    List<String> parts = new ArrayList<>();
    if (!apiGroups.isEmpty()) {
      parts.add("APIGroups:" + quoted(apiGroups));
    }
    if (!resources.isEmpty()) {
      parts.add("Resources:" + quoted(resources));
    }
    if (!nonResourceURLs.isEmpty()) {
      parts.add("NonResourceURLs:" + quoted(nonResourceURLs));
    }
    if (!resourceNames.isEmpty()) {
      parts.add("ResourceNames:" + quoted(resourceNames));
    }
    if (!verbs.isEmpty()) {
      parts.add("Verbs:" + quoted(verbs));
    }
    return "{" + String.join(", ", parts) + "}";
  }

  /**
   * Go's {@code %q} of a string slice: {@code ["a" "b"]}.
   *
   * @param values the strings
   * @return the text
   */
  public static String quoted(List<String> values) {
    return values.stream().map(v -> "\"" + v.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
        .collect(Collectors.joining(" ", "[", "]"));
  }

  private static List<String> strings(JsonArray a) {
    List<String> out = new ArrayList<>();
    if (a != null) {
      for (Object o : a) {
        out.add(String.valueOf(o));
      }
    }
    return out;
  }

  private static List<String> copy(List<String> l) {
    return l == null ? List.of() : List.copyOf(l);
  }
}
