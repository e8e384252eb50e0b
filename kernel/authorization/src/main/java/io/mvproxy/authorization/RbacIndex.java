package io.mvproxy.authorization;

import io.mvproxy.api.authz.PolicyRule;
import io.mvproxy.authorization.RbacObjects.Binding;
import io.mvproxy.authorization.RbacObjects.Role;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The in-memory RBAC index the authorizer reads: Roles, ClusterRoles, RoleBindings and ClusterRoleBindings, fed by
 * a storage watch ({@link #upsert}, {@link #remove}, {@link #replace}). Readers take the current immutable
 * {@link Snapshot} (lock-free); writers are serialized and swap in a new snapshot. ClusterRoles with an
 * {@code aggregationRule} get, in the snapshot, the union of the rules of every ClusterRole their selectors match
 * (kube-controller-manager's clusterrole-aggregation controller, applied to a fixed point here because mvproxy has
 * no controller manager).
 */
public final class RbacIndex {
  /** Kind of ClusterRole objects. */
  public static final String CLUSTER_ROLE = "ClusterRole";
  /** Kind of Role objects. */
  public static final String ROLE = "Role";
  /** Kind of ClusterRoleBinding objects. */
  public static final String CLUSTER_ROLE_BINDING = "ClusterRoleBinding";
  /** Kind of RoleBinding objects. */
  public static final String ROLE_BINDING = "RoleBinding";

  /**
   * One consistent view of RBAC.
   *
   * @param clusterRoles        name to ClusterRole (rules after aggregation)
   * @param roles               namespace to name to Role
   * @param clusterRoleBindings every ClusterRoleBinding, by name
   * @param roleBindings        namespace to its RoleBindings, by name
   * @param generation          increments on every change
   */
  public record Snapshot(Map<String, Role> clusterRoles, Map<String, Map<String, Role>> roles,
                         List<Binding> clusterRoleBindings, Map<String, List<Binding>> roleBindings,
                         long generation) {
  }

  private final Map<String, Role> rawClusterRoles = new HashMap<>();
  private final Map<String, Map<String, Role>> roles = new HashMap<>();
  private final Map<String, Binding> clusterRoleBindings = new TreeMap<>();
  private final Map<String, Map<String, Binding>> roleBindings = new HashMap<>();
  private final AtomicLong generation = new AtomicLong();
  private volatile Snapshot snapshot = new Snapshot(Map.of(), Map.of(), List.of(), Map.of(), 0);

  /** @return the current view */
  public Snapshot snapshot() {
    return snapshot;
  }

  /**
   * Adds or replaces one object.
   *
   * @param object a Role, ClusterRole, RoleBinding or ClusterRoleBinding (its {@code kind} decides); other kinds
   *               are ignored
   */
  public synchronized void upsert(JsonObject object) {
    String kind = object.getString("kind", "");
    if (put(kind, object)) {
      publish(CLUSTER_ROLE.equals(kind));
    }
  }

  private boolean put(String kind, JsonObject object) {
    switch (kind) {
      case CLUSTER_ROLE -> {
        Role r = Role.fromJson(object);
        rawClusterRoles.put(r.name(), r);
      }
      case ROLE -> {
        Role r = Role.fromJson(object);
        roles.computeIfAbsent(r.namespace(), k -> new HashMap<>()).put(r.name(), r);
      }
      case CLUSTER_ROLE_BINDING -> {
        Binding b = Binding.fromJson(object);
        clusterRoleBindings.put(b.name(), b);
      }
      case ROLE_BINDING -> {
        Binding b = Binding.fromJson(object);
        roleBindings.computeIfAbsent(b.namespace(), k -> new TreeMap<>()).put(b.name(), b);
      }
      default -> {
        return false;
      }
    }
    return true;
  }

  /**
   * Removes one object (no-op when absent).
   *
   * @param kind      one of the four RBAC kinds
   * @param namespace its namespace ({@code ""} for cluster-scoped kinds)
   * @param name      its name
   */
  public synchronized void remove(String kind, String namespace, String name) {
    switch (kind) {
      case CLUSTER_ROLE -> rawClusterRoles.remove(name);
      case ROLE -> roles.getOrDefault(namespace, new HashMap<>()).remove(name);
      case CLUSTER_ROLE_BINDING -> clusterRoleBindings.remove(name);
      case ROLE_BINDING -> roleBindings.getOrDefault(namespace, new HashMap<>()).remove(name);
      default -> {
        return;
      }
    }
    publish(CLUSTER_ROLE.equals(kind));
  }

  /**
   * Replaces every object of one kind (a re-list after a watch restart).
   *
   * @param kind    one of the four RBAC kinds
   * @param objects the complete set
   */
  public synchronized void replace(String kind, Collection<JsonObject> objects) {
    switch (kind) {
      case CLUSTER_ROLE -> rawClusterRoles.clear();
      case ROLE -> roles.clear();
      case CLUSTER_ROLE_BINDING -> clusterRoleBindings.clear();
      case ROLE_BINDING -> roleBindings.clear();
      default -> {
        return;
      }
    }
    for (JsonObject o : objects) {
      put(kind, o);
    }
    publish(CLUSTER_ROLE.equals(kind));
  }

  private Map<String, Role> aggregatedCache = Map.of();

  private void publish(boolean clusterRolesChanged) {
    if (clusterRolesChanged) {
      aggregatedCache = aggregate(rawClusterRoles);
    }
    Map<String, Map<String, Role>> r = new HashMap<>();
    roles.forEach((ns, m) -> r.put(ns, Map.copyOf(m)));
    Map<String, List<Binding>> rb = new HashMap<>();
    roleBindings.forEach((ns, m) -> rb.put(ns, List.copyOf(m.values())));
    snapshot = new Snapshot(aggregatedCache, Map.copyOf(r), List.copyOf(clusterRoleBindings.values()),
        Map.copyOf(rb), generation.incrementAndGet());
  }

  /**
   * The clusterrole-aggregation controller applied until nothing changes: an aggregated role's rules become the
   * union (first occurrence kept, roles visited by name) of the rules of every other ClusterRole matching any of
   * its selectors.
   */
  static Map<String, Role> aggregate(Map<String, Role> raw) {
    Map<String, Role> current = new TreeMap<>(raw);
    for (int round = 0; round <= raw.size(); round++) {
      boolean changed = false;
      Map<String, Role> next = new TreeMap<>(current);
      for (Role role : current.values()) {
        if (!role.aggregated()) {
          continue;
        }
        List<PolicyRule> union = new ArrayList<>();
        for (Role other : current.values()) {
          if (other.name().equals(role.name()) || !matchesAny(role.selectors(), other.labels())) {
            continue;
          }
          for (PolicyRule rule : other.rules()) {
            if (!union.contains(rule)) {
              union.add(rule);
            }
          }
        }
        if (!union.equals(role.rules())) {
          next.put(role.name(), role.withRules(union));
          changed = true;
        }
      }
      current = next;
      if (!changed) {
        break;
      }
    }
    return Map.copyOf(new LinkedHashMap<>(current));
  }

  private static boolean matchesAny(List<JsonObject> selectors, Map<String, String> labels) {
    for (JsonObject s : selectors) {
      if (LabelSelectors.matches(s, labels)) {
        return true;
      }
    }
    return false;
  }
}
