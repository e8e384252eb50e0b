package io.mvproxy.authorization;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.authz.AccessControl;
import io.mvproxy.api.authz.Attributes;
import io.mvproxy.api.authz.Decision;
import io.mvproxy.api.authz.PolicyRule;
import io.mvproxy.api.authz.ResolvedRules;
import io.mvproxy.authorization.RbacObjects.RoleRef;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.TreeSet;

/**
 * A node's authorization: the {@link RbacIndex} (seeded with the {@link BootstrapPolicy}, then kept current by a
 * storage watch), the RBAC authorizer, the {@code --authorization-mode} chain, and the RBAC escalation checks
 * ({@code pkg/registry/rbac/escalation_check.go}, {@code pkg/registry/rbac/validation/rule.go ConfirmNoEscalation}).
 */
public final class NodeAuthorization implements AccessControl {
  private static final List<PolicyRule> FULL_AUTHORITY = List.of(
      new PolicyRule(List.of("*"), List.of("*"), List.of("*"), List.of(), List.of()),
      new PolicyRule(List.of("*"), List.of(), List.of(), List.of(), List.of("*")));

  private final RbacIndex index = new RbacIndex();
  private final RbacAuthorizer rbac = new RbacAuthorizer(index);
  private final AuthorizerChain chain;

  /**
   * @param modes {@code --authorization-mode} values in order
   * @throws IllegalArgumentException naming the bad mode
   */
  public NodeAuthorization(List<String> modes) {
    this.chain = new AuthorizerChain(modes, rbac);
    BootstrapPolicy.seed(index);
  }

  /** @return the index the storage watch feeds */
  public RbacIndex index() {
    return index;
  }

  /** @return the chain (for the ingress filters) */
  public AuthorizerChain chain() {
    return chain;
  }

  @Override
  public Decision authorize(Attributes attributes) {
    return chain.authorize(attributes);
  }

  /**
   * The union over the modes ({@code union.go RulesFor}): AlwaysAllow contributes {@code *} on everything, RBAC the
   * user's rules and lookup errors, AlwaysDeny nothing.
   */
  @Override
  public ResolvedRules rulesFor(UserInfo user, String namespace) {
    java.util.List<PolicyRule> rules = new java.util.ArrayList<>();
    java.util.List<String> errors = new java.util.ArrayList<>();
    for (String m : chain.modes()) {
      if ("AlwaysAllow".equals(m)) {
        rules.addAll(FULL_AUTHORITY);
      } else if ("RBAC".equals(m)) {
        ResolvedRules r = rbac.rulesFor(user, namespace);
        rules.addAll(r.rules());
        errors.addAll(r.errors());
      }
    }
    return new ResolvedRules(rules, errors);
  }

  @Override
  public List<String> modes() {
    return chain.modes();
  }

  @Override
  public void checkRoleWrite(UserInfo user, String namespace, String name, JsonObject newRole, JsonObject oldRole) {
    String resource = namespace.isEmpty() ? "clusterroles" : "roles";
    if (escalationAllowed(user) || authorize(Attributes.resource(user, "escalate", namespace, RbacObjects.GROUP,
        resource, "", oldRole == null ? "" : name)).allowed()) {
      return;
    }
    List<PolicyRule> rules = PolicyRule.listFromJson(newRole.getJsonArray("rules"));
    confirmNoEscalation(user, namespace, resource, name, rules);
    if (namespace.isEmpty() && (hasAggregationRule(newRole) || hasAggregationRule(oldRole))) {
      ResolvedRules held = rbac.rulesFor(user, "");
      if (!Covers.missing(held.rules(), FULL_AUTHORITY).isEmpty()) {
        throw Forbidden.forbidden(RbacObjects.GROUP, resource, name,
            "must have cluster-admin privileges to use the aggregationRule");
      }
    }
  }

  @Override
  public void checkBindingWrite(UserInfo user, String namespace, String name, JsonObject roleRef) {
    String resource = namespace.isEmpty() ? "clusterrolebindings" : "rolebindings";
    if (escalationAllowed(user)) {
      return;
    }
    RoleRef ref = RoleRef.fromJson(roleRef);
    String refResource = switch (ref.kind()) {
      case "ClusterRole" -> "clusterroles";
      case "Role" -> "roles";
      default -> null;
    };
    if (refResource != null && authorize(Attributes.resource(user, "bind", namespace, ref.apiGroup(), refResource,
        "", ref.name())).allowed()) {
      return;
    }
    List<PolicyRule> rules;
    try {
      rules = rbac.roleReferenceRules(ref, namespace);
    } catch (IllegalArgumentException e) {
      if (refResource == null) {
        throw new StatusException(StatusReason.BadRequest, e.getMessage(), new JsonObject());
      }
      // read through the registry (AuthorizerAdapter), so named by the plural resource, as its store's NotFound
      throw new StatusException(StatusReason.NotFound, refResource + "." + RbacObjects.GROUP + " \"" + ref.name()
          + "\" not found", new JsonObject().put("name", ref.name()).put("group", RbacObjects.GROUP)
          .put("kind", refResource));
    }
    confirmNoEscalation(user, namespace, resource, name, rules);
  }

  /** {@code EscalationAllowed}: members of {@code system:masters} may grant anything. */
  private static boolean escalationAllowed(UserInfo user) {
    return user == null || user.groups().contains(AuthorizerChain.MASTERS);
  }

  private void confirmNoEscalation(UserInfo user, String namespace, String resource, String name,
                                   List<PolicyRule> requested) {
    ResolvedRules held = rbac.rulesFor(user, namespace);
    List<PolicyRule> missing = Covers.missing(held.rules(), requested);
    if (missing.isEmpty()) {
      return;
    }
    TreeSet<String> lines = new TreeSet<>();
    missing.forEach(r -> lines.add(r.compactString()));
    String msg = "user \"" + user.name() + "\" (groups=" + PolicyRule.quoted(user.groups()) + ") is attempting to "
        + "grant RBAC permissions not currently held:\n" + String.join("\n", lines);
    if (!held.errors().isEmpty()) {
      msg = msg + "; resolution errors: [" + String.join(" ", held.errors()) + "]";
    }
    throw Forbidden.forbidden(RbacObjects.GROUP, resource, name, msg);
  }

  private static boolean hasAggregationRule(JsonObject role) {
    if (role == null || role.getJsonObject("aggregationRule") == null) {
      return false;
    }
    var sel = role.getJsonObject("aggregationRule").getJsonArray("clusterRoleSelectors");
    return sel != null && !sel.isEmpty();
  }
}
