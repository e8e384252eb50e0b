package io.mvproxy.authorization;

import io.mvproxy.api.authz.PolicyRule;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The parsed RBAC objects ({@code rbac.authorization.k8s.io/v1}) the index holds. */
public final class RbacObjects {
  /** API group of the RBAC kinds. */
  public static final String GROUP = "rbac.authorization.k8s.io";

  private RbacObjects() {
  }

  /**
   * A subject of a binding.
   *
   * @param kind      {@code User}, {@code Group} or {@code ServiceAccount}
   * @param name      the name
   * @param namespace service-account namespace, {@code ""} otherwise (defaults to the binding's)
   */
  public record Subject(String kind, String name, String namespace) {
    /** @param j a subject object @return the subject */
    public static Subject fromJson(JsonObject j) {
      return new Subject(j.getString("kind", ""), j.getString("name", ""), j.getString("namespace", ""));
    }

    /**
     * {@code describeSubject} of rule.go: {@code User "alice"}, {@code ServiceAccount "sa/ns"}.
     *
     * @param bindingNamespace the binding's namespace (service accounts without one)
     * @return the description
     */
    public String describe(String bindingNamespace) {
      if ("ServiceAccount".equals(kind)) {
        return kind + " \"" + name + "/" + (namespace.isEmpty() ? bindingNamespace : namespace) + "\"";
      }
      return kind + " \"" + name + "\"";
    }
  }

  /**
   * A role reference.
   *
   * @param apiGroup {@code rbac.authorization.k8s.io}
   * @param kind     {@code Role} or {@code ClusterRole}
   * @param name     the role's name
   */
  public record RoleRef(String apiGroup, String kind, String name) {
    /** @param j a roleRef object (null = empty) @return the reference */
    public static RoleRef fromJson(JsonObject j) {
      j = j == null ? new JsonObject() : j;
      return new RoleRef(j.getString("apiGroup", ""), j.getString("kind", ""), j.getString("name", ""));
    }
  }

  /**
   * A RoleBinding ({@code namespace} non-empty) or ClusterRoleBinding.
   *
   * @param name      the name
   * @param namespace the namespace, {@code ""} for a ClusterRoleBinding
   * @param roleRef   the role
   * @param subjects  who
   */
  public record Binding(String name, String namespace, RoleRef roleRef, List<Subject> subjects) {
    /** Copies the subjects. */
    public Binding {
      subjects = List.copyOf(subjects);
    }

    /** @param j a binding object @return the binding */
    public static Binding fromJson(JsonObject j) {
      JsonObject md = meta(j);
      List<Subject> subjects = new ArrayList<>();
      JsonArray a = j.getJsonArray("subjects");
      if (a != null) {
        for (Object o : a) {
          if (o instanceof JsonObject s) {
            subjects.add(Subject.fromJson(s));
          }
        }
      }
      return new Binding(md.getString("name", ""), md.getString("namespace", ""),
          RoleRef.fromJson(j.getJsonObject("roleRef")), subjects);
    }
  }

  /**
   * A Role ({@code namespace} non-empty) or ClusterRole.
   *
   * @param name        the name
   * @param namespace   the namespace, {@code ""} for a ClusterRole
   * @param labels      metadata labels (for aggregation)
   * @param rules       its rules as stored
   * @param selectors   {@code aggregationRule.clusterRoleSelectors} (label selectors), empty when not aggregated
   * @param aggregated  true when the object has an {@code aggregationRule}
   */
  public record Role(String name, String namespace, Map<String, String> labels, List<PolicyRule> rules,
                     List<JsonObject> selectors, boolean aggregated) {
    /** Copies the collections. */
    public Role {
      labels = Map.copyOf(labels);
      rules = List.copyOf(rules);
      selectors = List.copyOf(selectors);
    }

    /** @param j a role object @return the role */
    public static Role fromJson(JsonObject j) {
      JsonObject md = meta(j);
      java.util.Map<String, String> labels = new java.util.HashMap<>();
      JsonObject l = md.getJsonObject("labels");
      if (l != null) {
        l.forEach(e -> labels.put(e.getKey(), String.valueOf(e.getValue())));
      }
      JsonObject agg = j.getJsonObject("aggregationRule");
      List<JsonObject> selectors = new ArrayList<>();
      if (agg != null && agg.getJsonArray("clusterRoleSelectors") != null) {
        for (Object o : agg.getJsonArray("clusterRoleSelectors")) {
          if (o instanceof JsonObject s) {
            selectors.add(s);
          }
        }
      }
      return new Role(md.getString("name", ""), md.getString("namespace", ""), labels,
          PolicyRule.listFromJson(j.getJsonArray("rules")), selectors, agg != null);
    }

    /** @param rules replacement rules @return this role with {@code rules} */
    public Role withRules(List<PolicyRule> rules) {
      return new Role(name, namespace, labels, rules, selectors, aggregated);
    }
  }

  private static JsonObject meta(JsonObject j) {
    JsonObject md = j.getJsonObject("metadata");
    return md == null ? new JsonObject() : md;
  }
}
