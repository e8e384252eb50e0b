package io.mvproxy.authorization;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.authz.Attributes;
import io.mvproxy.api.authz.Decision;
import io.mvproxy.api.authz.PolicyRule;
import io.vertx.core.MultiMap;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Table-driven checks of RBAC as rbac.go / rule.go / evaluation_helpers.go / policy_comparator.go evaluate it. */
@Tag("unit")
class RbacAuthorizerTest {
  static final UserInfo ALICE = new UserInfo("alice", "", List.of("dev", "system:authenticated"), Map.of());
  static final UserInfo BOB = new UserInfo("bob", "", List.of("system:authenticated"), Map.of());
  static final UserInfo SA = new UserInfo("system:serviceaccount:ns1:robot", "",
      List.of("system:serviceaccounts", "system:serviceaccounts:ns1", "system:authenticated"), Map.of());
  static final UserInfo ADMIN = new UserInfo("admin", "", List.of("system:masters", "system:authenticated"), Map.of());
  static final UserInfo ANON = new UserInfo("system:anonymous", "", List.of("system:unauthenticated"), Map.of());

  static JsonObject binding(String kind, String ns, String name, String roleKind, String role, JsonObject... subjects) {
    JsonObject md = new JsonObject().put("name", name);
    if (!ns.isEmpty()) {
      md.put("namespace", ns);
    }
    return new JsonObject().put("kind", kind).put("metadata", md)
        .put("roleRef", new JsonObject().put("apiGroup", RbacObjects.GROUP).put("kind", roleKind).put("name", role))
        .put("subjects", new JsonArray(List.of((Object[]) subjects)));
  }

  static JsonObject subject(String kind, String name) {
    return new JsonObject().put("kind", kind).put("name", name);
  }

  static JsonObject role(String kind, String ns, String name, PolicyRule... rules) {
    JsonObject md = new JsonObject().put("name", name).put("labels", new JsonObject());
    if (!ns.isEmpty()) {
      md.put("namespace", ns);
    }
    JsonArray a = new JsonArray();
    for (PolicyRule r : rules) {
      a.add(r.toJson());
    }
    return new JsonObject().put("kind", kind).put("metadata", md).put("rules", a);
  }

  static PolicyRule rule(List<String> verbs, List<String> groups, List<String> resources, List<String> names) {
    return new PolicyRule(verbs, groups, resources, names, List.of());
  }

  static NodeAuthorization fixture() {
    NodeAuthorization z = new NodeAuthorization(List.of("RBAC"));
    RbacIndex i = z.index();
    i.upsert(binding("RoleBinding", "ns1", "alice-edit", "ClusterRole", "edit", subject("User", "alice")));
    i.upsert(binding("RoleBinding", "ns3", "dev-view", "ClusterRole", "view", subject("Group", "dev")));
    i.upsert(role("Role", "ns1", "w-reader", rule(List.of("get"), List.of("demo.example.com"), List.of("widgets"),
        List.of("w1")), rule(List.of("update"), List.of("demo.example.com"), List.of("*/status"), List.of())));
    i.upsert(binding("RoleBinding", "ns1", "robot", "Role", "w-reader",
        new JsonObject().put("kind", "ServiceAccount").put("name", "robot")));
    i.upsert(binding("ClusterRoleBinding", "", "bob-missing", "ClusterRole", "nope", subject("User", "bob")));
    i.upsert(role("ClusterRole", "", "logs", new PolicyRule(List.of("get"), List.of(), List.of(), List.of(),
        List.of("/logs/*", "/metrics"))));
    i.upsert(binding("ClusterRoleBinding", "", "bob-logs", "ClusterRole", "logs", subject("User", "bob")));
    return z;
  }

  static Attributes res(UserInfo u, String verb, String ns, String group, String resource, String sub, String name) {
    return Attributes.resource(u, verb, ns, group, resource, sub, name);
  }

  static Attributes path(UserInfo u, String verb, String path) {
    return new Attributes(u, verb, false, path, "", "", "", "", "", "");
  }

  static Stream<Arguments> decisions() {
    return Stream.of(
        Arguments.of("edit: configmaps in ns1", res(ALICE, "create", "ns1", "", "configmaps", "", ""), true),
        Arguments.of("edit: secrets read in ns1", res(ALICE, "get", "ns1", "", "secrets", "", "s"), true),
        Arguments.of("edit: leases in ns1", res(ALICE, "update", "ns1", "coordination.k8s.io", "leases", "", "l"), true),
        Arguments.of("edit: not in ns2", res(ALICE, "create", "ns2", "", "configmaps", "", ""), false),
        Arguments.of("edit: not cluster-wide", res(ALICE, "list", "", "", "configmaps", "", ""), false),
        Arguments.of("edit: no rolebindings", res(ALICE, "create", "ns1", RbacObjects.GROUP, "rolebindings", "", ""), false),
        Arguments.of("edit: impersonate serviceaccounts", res(ALICE, "impersonate", "ns1", "", "serviceaccounts", "", "x"), true),
        Arguments.of("edit: namespaces/status is view", res(ALICE, "get", "ns1", "", "namespaces", "status", "ns1"), true),
        Arguments.of("view via group in ns3", res(ALICE, "list", "ns3", "", "configmaps", "", ""), true),
        Arguments.of("view: no secrets", res(ALICE, "get", "ns3", "", "secrets", "", "s"), false),
        Arguments.of("view: no writes", res(ALICE, "delete", "ns3", "", "configmaps", "", "c"), false),
        Arguments.of("sa: named get", res(SA, "get", "ns1", "demo.example.com", "widgets", "", "w1"), true),
        Arguments.of("sa: other name", res(SA, "get", "ns1", "demo.example.com", "widgets", "", "w2"), false),
        Arguments.of("sa: names never match list", res(SA, "list", "ns1", "demo.example.com", "widgets", "", ""), false),
        Arguments.of("sa: names never match create", res(SA, "create", "ns1", "demo.example.com", "widgets", "", ""), false),
        Arguments.of("sa: widgets rule not status", res(SA, "get", "ns1", "demo.example.com", "widgets", "status", "w1"), false),
        Arguments.of("sa: */status", res(SA, "update", "ns1", "demo.example.com", "gadgets", "status", "g"), true),
        Arguments.of("sa: */status not the object", res(SA, "update", "ns1", "demo.example.com", "gadgets", "", "g"), false),
        Arguments.of("sa binding only in its namespace", res(SA, "get", "ns2", "demo.example.com", "widgets", "", "w1"), false),
        Arguments.of("discovery for authenticated", path(BOB, "get", "/apis/demo.example.com/v1"), true),
        Arguments.of("discovery: exact /api", path(BOB, "get", "/api"), true),
        Arguments.of("discovery: post is not get", path(BOB, "post", "/api"), false),
        Arguments.of("url prefix *", path(BOB, "get", "/logs/a/b"), true),
        Arguments.of("url prefix needs the slash", path(BOB, "get", "/logsx"), false),
        Arguments.of("url exact", path(BOB, "get", "/metrics"), true),
        Arguments.of("no /metrics for alice", path(ALICE, "get", "/metrics"), false),
        Arguments.of("public info for anonymous", path(ANON, "get", "/healthz"), true),
        Arguments.of("no discovery for anonymous", path(ANON, "get", "/apis"), false),
        Arguments.of("basic user: SSAR", res(BOB, "create", "", "authorization.k8s.io", "selfsubjectaccessreviews", "", ""), true),
        Arguments.of("basic user: whoami", res(BOB, "create", "", "authentication.k8s.io", "selfsubjectreviews", "", ""), true),
        Arguments.of("masters: anything", res(ADMIN, "delete", "x", "any.io", "things", "", "t"), true),
        Arguments.of("masters: any path", path(ADMIN, "delete", "/whatever"), true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("decisions")
  void decides(String what, Attributes a, boolean allowed) {
    assertEquals(allowed, fixture().authorize(a).allowed(), what);
  }

  @Test
  void reasonsNameTheBindingOrTheLookupError() {
    NodeAuthorization z = fixture();
    assertEquals("RBAC: allowed by RoleBinding \"alice-edit/ns1\" of ClusterRole \"edit\" to User \"alice\"",
        z.authorize(res(ALICE, "get", "ns1", "", "configmaps", "", "c")).reason());
    assertEquals("RBAC: allowed by RoleBinding \"robot/ns1\" of Role \"w-reader\" to ServiceAccount \"robot/ns1\"",
        z.authorize(res(SA, "get", "ns1", "demo.example.com", "widgets", "", "w1")).reason());
    assertEquals("RBAC: allowed by ClusterRoleBinding \"system:discovery\" of ClusterRole \"system:discovery\" to Group "
        + "\"system:authenticated\"", z.authorize(path(BOB, "get", "/api")).reason());
    Decision d = z.authorize(res(BOB, "get", "ns1", "", "configmaps", "", "c"));
    assertEquals(Decision.Verdict.NO_OPINION, d.verdict());
    assertEquals("RBAC: clusterrole.rbac.authorization.k8s.io \"nope\" not found", d.reason());
  }

  @Test
  void forbiddenTextsAsKubeApiserver() {
    assertEquals("widgets.demo.example.com is forbidden: User \"alice\" cannot list resource \"widgets\" in API group "
        + "\"demo.example.com\" in the namespace \"ns1\"",
        Forbidden.of(res(ALICE, "list", "ns1", "demo.example.com", "widgets", "", ""), "").getMessage());
    assertEquals("namespaces is forbidden: User \"alice\" cannot list resource \"namespaces\" in API group \"\" at the "
        + "cluster scope", Forbidden.of(res(ALICE, "list", "", "", "namespaces", "", ""), "").getMessage());
    StatusException e = Forbidden.of(res(ALICE, "delete", "ns1", "demo.example.com", "widgets", "", "w1"), "");
    assertEquals("widgets.demo.example.com \"w1\" is forbidden: User \"alice\" cannot delete resource \"widgets\" in "
        + "API group \"demo.example.com\" in the namespace \"ns1\"", e.getMessage());
    assertEquals(new JsonObject().put("name", "w1").put("group", "demo.example.com").put("kind", "widgets"),
        e.toStatus().getJsonObject("details"));
    assertEquals(403, e.code());
    assertEquals("forbidden: User \"alice\" cannot get path \"/metrics\"",
        Forbidden.of(path(ALICE, "get", "/metrics"), "").getMessage());
    assertEquals("configmaps \"c\" is forbidden: User \"alice\" cannot get resource \"configmaps/status\" in API group "
        + "\"\" in the namespace \"ns2\": RBAC: x",
        Forbidden.of(res(ALICE, "get", "ns2", "", "configmaps", "status", "c"), "RBAC: x").getMessage());
  }

  @Test
  void aggregationFollowsLabelsAndChanges() {
    NodeAuthorization z = fixture();
    Attributes widgets = res(ALICE, "delete", "ns1", "demo.example.com", "widgets", "", "w");
    assertEquals(false, z.authorize(widgets).allowed());
    JsonObject agg = role("ClusterRole", "", "widgets-edit", rule(List.of("*"), List.of("demo.example.com"),
        List.of("widgets"), List.of()));
    agg.getJsonObject("metadata").getJsonObject("labels").put("rbac.authorization.k8s.io/aggregate-to-edit", "true");
    z.index().upsert(agg);
    assertTrue(z.authorize(widgets).allowed(), "edit aggregates widgets-edit");
    assertTrue(z.index().snapshot().clusterRoles().get("admin").rules().containsAll(
        z.index().snapshot().clusterRoles().get("edit").rules()), "admin aggregates edit (transitively)");
    z.index().remove(RbacIndex.CLUSTER_ROLE, "", "widgets-edit");
    assertEquals(false, z.authorize(widgets).allowed());
  }

  @Test
  void escalationChecks() {
    NodeAuthorization z = fixture();
    z.index().upsert(binding("RoleBinding", "ns1", "bob-admin", "ClusterRole", "admin", subject("User", "bob")));
    // bob (admin in ns1) may bind edit in ns1: he holds every rule of edit there
    z.checkBindingWrite(BOB, "ns1", "x", new JsonObject().put("apiGroup", RbacObjects.GROUP).put("kind", "ClusterRole")
        .put("name", "edit"));
    // ... but not cluster-admin
    StatusException e = assertThrows(StatusException.class, () -> z.checkBindingWrite(BOB, "ns1", "x",
        new JsonObject().put("apiGroup", RbacObjects.GROUP).put("kind", "ClusterRole").put("name", "cluster-admin")));
    assertEquals(403, e.code());
    assertEquals("rolebindings.rbac.authorization.k8s.io \"x\" is forbidden: user \"bob\" (groups=[\"system:authenticated\"]) "
        + "is attempting to grant RBAC permissions not currently held:\n{APIGroups:[\"*\"], Resources:[\"*\"], Verbs:[\"*\"]}\n"
        + "{NonResourceURLs:[\"*\"], Verbs:[\"*\"]}; resolution errors: [clusterrole.rbac.authorization.k8s.io \"nope\" not "
        + "found]", e.getMessage());
    // a Role with a rule bob lacks in ns1
    JsonObject r = role("Role", "ns1", "r", rule(List.of("get", "delete"), List.of("demo.example.com"),
        List.of("widgets"), List.of()));
    StatusException e2 = assertThrows(StatusException.class, () -> z.checkRoleWrite(BOB, "ns1", "r", r, null));
    assertTrue(e2.getMessage().contains("not currently held:\n{APIGroups:[\"demo.example.com\"], Resources:[\"widgets\"], "
        + "Verbs:[\"get\" \"delete\"]}"), e2.getMessage());
    // escalate verb or masters pass
    z.checkRoleWrite(ADMIN, "ns1", "r", r, null);
    z.index().upsert(role("ClusterRole", "", "escalator", rule(List.of("escalate", "bind"), List.of(RbacObjects.GROUP),
        List.of("roles", "clusterroles"), List.of())));
    z.index().upsert(binding("ClusterRoleBinding", "", "bob-esc", "ClusterRole", "escalator", subject("User", "bob")));
    z.checkRoleWrite(BOB, "ns1", "r", r, null);
    z.checkBindingWrite(BOB, "", "y", new JsonObject().put("apiGroup", RbacObjects.GROUP).put("kind", "ClusterRole")
        .put("name", "cluster-admin"));
    // aggregationRule needs full authority even with escalate... not when escalate is allowed (upstream order)
    StatusException nf = assertThrows(StatusException.class, () -> z.checkBindingWrite(ALICE, "ns1", "z",
        new JsonObject().put("apiGroup", RbacObjects.GROUP).put("kind", "ClusterRole").put("name", "missing")));
    assertEquals(404, nf.code());
    assertEquals("clusterroles.rbac.authorization.k8s.io \"missing\" not found", nf.getMessage(), "the registry's text");
  }

  @Test
  void aggregationRuleNeedsClusterAdmin() {
    NodeAuthorization z = fixture();
    z.index().upsert(role("ClusterRole", "", "cr-writer", rule(List.of("*"), List.of(RbacObjects.GROUP),
        List.of("clusterroles"), List.of())));
    z.index().upsert(binding("ClusterRoleBinding", "", "bob-cr", "ClusterRole", "cr-writer", subject("User", "bob")));
    JsonObject agg = new JsonObject().put("kind", "ClusterRole").put("metadata", new JsonObject().put("name", "a"))
        .put("aggregationRule", new JsonObject().put("clusterRoleSelectors", new JsonArray().add(new JsonObject())));
    // bob holds escalate through "*": upstream lets RoleEscalationAuthorized pass first
    z.checkRoleWrite(BOB, "", "a", agg, null);
    UserInfo carol = new UserInfo("carol", "", List.of("system:authenticated"), Map.of());
    StatusException e = assertThrows(StatusException.class, () -> z.checkRoleWrite(carol, "", "a", agg, null));
    assertEquals("clusterroles.rbac.authorization.k8s.io \"a\" is forbidden: must have cluster-admin privileges to use "
        + "the aggregationRule", e.getMessage());
  }

  @Test
  void coversBreaksRulesDown() {
    PolicyRule owner = rule(List.of("get", "list"), List.of(""), List.of("configmaps", "*/status"), List.of());
    assertEquals(List.of(), Covers.missing(List.of(owner), List.of(rule(List.of("get"), List.of(""),
        List.of("configmaps", "pods/status"), List.of()))));
    assertEquals(List.of(rule(List.of("delete"), List.of(""), List.of("configmaps"), List.of())),
        Covers.missing(List.of(owner), List.of(rule(List.of("get", "delete"), List.of(""), List.of("configmaps"), List.of()))));
    PolicyRule named = rule(List.of("get"), List.of(""), List.of("secrets"), List.of("a"));
    assertEquals(1, Covers.missing(List.of(named), List.of(rule(List.of("get"), List.of(""), List.of("secrets"),
        List.of()))).size(), "a named rule does not cover all names");
    assertEquals(0, Covers.missing(List.of(rule(List.of("get"), List.of(""), List.of("secrets"), List.of())),
        List.of(named)).size());
  }

  @Test
  void chainModes() {
    RbacIndex empty = new RbacIndex();
    RbacAuthorizer rbac = new RbacAuthorizer(empty);
    Attributes a = res(ALICE, "get", "ns1", "", "configmaps", "", "c");
    assertTrue(new AuthorizerChain(List.of("AlwaysAllow"), rbac).authorize(a).allowed());
    assertEquals(Decision.Verdict.DENY, new AuthorizerChain(List.of("AlwaysDeny", "AlwaysAllow"), rbac).authorize(a).verdict());
    assertTrue(new AuthorizerChain(List.of("RBAC", "AlwaysAllow"), rbac).authorize(a).allowed());
    assertEquals(Decision.Verdict.NO_OPINION, new AuthorizerChain(List.of("RBAC"), rbac).authorize(a).verdict());
    assertTrue(new AuthorizerChain(List.of("AlwaysDeny"), rbac).authorize(res(ADMIN, "get", "", "", "x", "", "")).allowed(),
        "system:masters before every mode");
    assertEquals("authorization-mode \"Foo\" is not a valid mode (one of AlwaysAllow,AlwaysDeny,ABAC,Webhook,RBAC,Node)",
        assertThrows(IllegalArgumentException.class, () -> AuthorizerChain.validate(List.of("Foo"))).getMessage());
    assertThrows(IllegalArgumentException.class, () -> AuthorizerChain.validate(List.of("Webhook")));
    assertThrows(IllegalArgumentException.class, () -> AuthorizerChain.validate(List.of("RBAC", "RBAC")));
    assertThrows(IllegalArgumentException.class, () -> AuthorizerChain.validate(List.of()));
  }

  @Test
  void impersonation() {
    NodeAuthorization z = fixture();
    z.index().upsert(role("ClusterRole", "", "imp", rule(List.of("impersonate"), List.of(""), List.of("users", "groups"),
        List.of()), rule(List.of("impersonate"), List.of("authentication.k8s.io"), List.of("userextras/scopes"), List.of())));
    z.index().upsert(binding("ClusterRoleBinding", "", "bob-imp", "ClusterRole", "imp", subject("User", "bob")));
    MultiMap h = MultiMap.caseInsensitiveMultiMap().add("Impersonate-User", "carol").add("Impersonate-Group", "g1")
        .add("Impersonate-Extra-Scopes", "a").add("Accept", "x");
    UserInfo u = Impersonation.impersonate(BOB, h, z);
    assertEquals(new UserInfo("carol", "", List.of("g1", "system:authenticated"), Map.of("scopes", List.of("a"))), u);
    assertEquals(List.of("Accept"), List.copyOf(h.names()), "impersonation headers removed");
    StatusException e = assertThrows(StatusException.class, () -> Impersonation.impersonate(ALICE,
        MultiMap.caseInsensitiveMultiMap().add("Impersonate-User", "bob"), z));
    assertEquals("users \"bob\" is forbidden: User \"alice\" cannot impersonate resource \"users\" in API group \"\" at "
        + "the cluster scope", e.getMessage());
    // edit in ns1 may impersonate service accounts of ns1
    UserInfo sa = Impersonation.impersonate(ALICE, MultiMap.caseInsensitiveMultiMap()
        .add("Impersonate-User", "system:serviceaccount:ns1:robot"), z);
    assertEquals(List.of("system:serviceaccounts", "system:serviceaccounts:ns1", "system:authenticated"), sa.groups());
    assertEquals(403, assertThrows(StatusException.class, () -> Impersonation.impersonate(ALICE,
        MultiMap.caseInsensitiveMultiMap().add("Impersonate-User", "system:serviceaccount:ns2:robot"), z)).code());
    assertEquals(400, assertThrows(StatusException.class, () -> Impersonation.impersonate(BOB,
        MultiMap.caseInsensitiveMultiMap().add("Impersonate-Group", "g1"), z)).code());
    // kube-apiserver 1.35+ (impersonation.go's buildImpersonationRequests): a BadRequest printing the requested
    // v1.ObjectReferences with Go's %v, groups then extras then the uid
    StatusException noUser = assertThrows(StatusException.class, () -> Impersonation.impersonate(BOB,
        MultiMap.caseInsensitiveMultiMap().add("Impersonate-Uid", "u-1").add("Impersonate-Group", "g1")
            .add("Impersonate-Group", "g2").add("Impersonate-Extra-Scopes", "view"), z));
    assertEquals("requested [{Group  g1    } {Group  g2    } {UserExtra  view  authentication.k8s.io/v1  scopes} "
        + "{UID  u-1  authentication.k8s.io/v1  }] without impersonating a user", noUser.getMessage());
    assertEquals(io.mvproxy.api.StatusReason.BadRequest, noUser.reason());
    // empty Impersonate-User / Impersonate-Uid values request nothing (upstream's headers.Get): the caller goes on as
    // itself (a break-it pass saw a 500 NullPointerException for an empty uid, and User "" for an empty user)
    MultiMap empties = MultiMap.caseInsensitiveMultiMap().add("Impersonate-User", "").add("Impersonate-Uid", "")
        .add("Accept", "x");
    assertSame(BOB, Impersonation.impersonate(BOB, empties, z));
    assertEquals(List.of("Accept"), List.copyOf(empties.names()));
    assertEquals("requested [{Group      }] without impersonating a user", assertThrows(StatusException.class,
        () -> Impersonation.impersonate(BOB, MultiMap.caseInsensitiveMultiMap().add("Impersonate-User", "")
            .add("Impersonate-Group", ""), z)).getMessage(), "an empty group value is a requested group");
  }

  @Test
  void reconcileKeepsAdditionsAndHonoursAutoupdateFalse() {
    JsonObject def = BootstrapPolicy.clusterRoleBindings().get(0);
    assertEquals(null, BootstrapPolicy.reconcile(def.copy(), def));
    JsonObject stored = def.copy();
    stored.getJsonArray("subjects").clear().add(subject("User", "ops"));
    JsonObject out = BootstrapPolicy.reconcile(stored, def);
    assertEquals(2, out.getJsonArray("subjects").size(), "default subject added, user's kept");
    stored.getJsonObject("metadata").getJsonObject("annotations").put(BootstrapPolicy.AUTOUPDATE, "false");
    assertEquals(null, BootstrapPolicy.reconcile(stored, def));
    assertTrue(BootstrapPolicy.reconcile(null, def).equals(def));
  }
}
