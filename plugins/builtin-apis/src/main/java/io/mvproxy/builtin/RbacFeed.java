package io.mvproxy.builtin;

import io.mvproxy.api.authz.PolicyRule;
import io.mvproxy.authorization.BootstrapPolicy;
import io.mvproxy.authorization.RbacIndex;
import io.mvproxy.authorization.RbacObjects;
import io.mvproxy.registry.impl.CrdApiSource;
import io.mvproxy.api.storage.WatchEvent;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;

/**
 * Keeps the node's {@link RbacIndex} current from the stored RBAC objects (every change on any node reaches every
 * node's index through the store's events, in well under a second), writes the default policy at start-up
 * ({@code rbac/bootstrap-roles} post-start hook: create missing, reconcile, honour {@code autoupdate: "false"}),
 * and writes aggregated ClusterRoles' rules back (kube-controller-manager's clusterrole-aggregation controller).
 */
public final class RbacFeed {
  private final RbacIndex index;

  /** @param index the node's RBAC index */
  public RbacFeed(RbacIndex index) {
    this.index = index;
  }

  /**
   * @param roles               roles source
   * @param clusterRoles        clusterroles source
   * @param roleBindings        rolebindings source
   * @param clusterRoleBindings clusterrolebindings source
   * @param vertx               runs the retries of a failed reconcile (storage not ready while the fleet forms)
   * @return completes when the default policy is stored
   */
  public Future<Void> start(CrdApiSource roles, CrdApiSource clusterRoles, CrdApiSource roleBindings,
                            CrdApiSource clusterRoleBindings, io.vertx.core.Vertx vertx) {
    follow(roles, RbacIndex.ROLE);
    follow(roleBindings, RbacIndex.ROLE_BINDING);
    follow(clusterRoleBindings, RbacIndex.CLUSTER_ROLE_BINDING);
    clusterRoles.follow(e -> {
      apply(e, RbacIndex.CLUSTER_ROLE);
      writeBackAggregation(clusterRoles);
    });
    return StartRetry.run(vertx, "reconciling the default RBAC policy", () -> {
      Future<?> all = Future.succeededFuture();
      for (JsonObject cr : BootstrapPolicy.clusterRoles()) {
        all = all.compose(v -> reconcile(clusterRoles, cr));
      }
      for (JsonObject crb : BootstrapPolicy.clusterRoleBindings()) {
        all = all.compose(v -> reconcile(clusterRoleBindings, crb));
      }
      return all;
    });
  }

  private void follow(CrdApiSource source, String kind) {
    source.follow(e -> apply(e, kind));
  }

  private void apply(WatchEvent e, String kind) {
    JsonObject md = e.object().object().getJsonObject("metadata", new JsonObject());
    if (e.type() == WatchEvent.Type.DELETED) {
      index.remove(kind, md.getString("namespace", ""), md.getString("name", ""));
    } else {
      index.upsert(e.object().object().copy().put("kind", kind));
    }
  }

  private static Future<Void> reconcile(CrdApiSource source, JsonObject defaults) {
    String name = defaults.getJsonObject("metadata").getString("name");
    return source.ensure(defaults).compose(stored -> source.update("", name,
        cur -> BootstrapPolicy.reconcile(cur, defaults))).mapEmpty();
  }

  /** Stores the union the index computed for every aggregated ClusterRole whose stored rules differ. */
  private void writeBackAggregation(CrdApiSource clusterRoles) {
    for (Map.Entry<String, RbacObjects.Role> e : index.snapshot().clusterRoles().entrySet()) {
      RbacObjects.Role role = e.getValue();
      if (!role.aggregated()) {
        continue;
      }
      List<PolicyRule> rules = role.rules();
      clusterRoles.update("", role.name(), cur -> {
        JsonArray want = new JsonArray();
        rules.forEach(r -> want.add(r.toJson()));
        if (PolicyRule.listFromJson(cur.getJsonArray("rules")).equals(rules) || cur.getJsonObject("aggregationRule") == null) {
          return null;
        }
        return cur.put("rules", want);
      });
    }
  }
}
