package io.mvproxy.registry.impl.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mvproxy.api.UserInfo;
import io.mvproxy.api.admission.Admission;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Table-driven matching of webhooks: rules, matchPolicy, namespace and object selectors, matchConditions. */
@Tag("unit")
class WebhookMatchingTest {
  static Admission.Attributes attrs(String op, String group, String version, String resource, String sub,
                                    String ns, JsonObject obj, JsonObject old) {
    return new Admission.Attributes(group, version, resource, sub, "Widget", ns, "w1", op, obj, old,
        new JsonObject(), false, new UserInfo("alice", "", List.of(), Map.of()), !ns.isEmpty(), List.of("v1"));
  }

  static JsonObject rule(String ops, String groups, String versions, String resources, String scope) {
    JsonObject r = new JsonObject().put("operations", new io.vertx.core.json.JsonArray(List.of(ops.split(","))))
        .put("apiGroups", new io.vertx.core.json.JsonArray(List.of(groups.split(",", -1))))
        .put("apiVersions", new io.vertx.core.json.JsonArray(List.of(versions.split(","))))
        .put("resources", new io.vertx.core.json.JsonArray(List.of(resources.split(","))));
    return scope == null ? r : r.put("scope", scope);
  }

  static Stream<Arguments> rules() {
    return Stream.of(
        // rule ops, groups, versions, resources, scope | request op, group, version, resource, sub, namespaced | match
        Arguments.of("CREATE", "demo.io", "v1", "widgets", null, "CREATE", "demo.io", "v1", "widgets", "", true, true),
        Arguments.of("CREATE", "demo.io", "v1", "widgets", null, "UPDATE", "demo.io", "v1", "widgets", "", true, false),
        Arguments.of("*", "demo.io", "v1", "widgets", null, "DELETE", "demo.io", "v1", "widgets", "", true, true),
        Arguments.of("CREATE,UPDATE", "*", "*", "*", null, "UPDATE", "x.io", "v9", "things", "", true, true),
        Arguments.of("CREATE", "demo.io", "v1", "widgets", null, "CREATE", "other.io", "v1", "widgets", "", true,
            false),
        Arguments.of("CREATE", "", "v1", "configmaps", null, "CREATE", "", "v1", "configmaps", "", true, true),
        Arguments.of("CREATE", "demo.io", "v2", "widgets", null, "CREATE", "demo.io", "v1", "widgets", "", true,
            false),
        Arguments.of("UPDATE", "demo.io", "v1", "widgets", null, "UPDATE", "demo.io", "v1", "widgets", "status",
            true, false),
        Arguments.of("UPDATE", "demo.io", "v1", "widgets/status", null, "UPDATE", "demo.io", "v1", "widgets",
            "status", true, true),
        Arguments.of("UPDATE", "demo.io", "v1", "*/status", null, "UPDATE", "demo.io", "v1", "widgets", "status",
            true, true),
        Arguments.of("UPDATE", "demo.io", "v1", "*/status", null, "UPDATE", "demo.io", "v1", "widgets", "", true,
            false),
        Arguments.of("UPDATE", "demo.io", "v1", "widgets/*", null, "UPDATE", "demo.io", "v1", "widgets", "scale",
            true, true),
        Arguments.of("UPDATE", "demo.io", "v1", "*/*", null, "UPDATE", "demo.io", "v1", "widgets", "", true, true),
        Arguments.of("UPDATE", "demo.io", "v1", "*", null, "UPDATE", "demo.io", "v1", "widgets", "status", true,
            false),
        Arguments.of("CREATE", "*", "*", "*", "Namespaced", "CREATE", "demo.io", "v1", "widgets", "", true, true),
        Arguments.of("CREATE", "*", "*", "*", "Namespaced", "CREATE", "", "v1", "namespaces", "", false, false),
        Arguments.of("CREATE", "*", "*", "*", "Cluster", "CREATE", "", "v1", "namespaces", "", false, true),
        Arguments.of("CREATE", "*", "*", "*", "Cluster", "CREATE", "demo.io", "v1", "widgets", "", true, false),
        Arguments.of("CREATE", "*", "*", "*", "*", "CREATE", "demo.io", "v1", "widgets", "", true, true));
  }

  @ParameterizedTest
  @MethodSource("rules")
  void ruleMatching(String ops, String groups, String versions, String resources, String scope, String op,
                    String group, String version, String resource, String sub, boolean namespaced, boolean want) {
    assertEquals(want, WebhookMatching.ruleMatches(rule(ops, groups, versions, resources, scope), op, group, version,
        resource, sub, namespaced));
  }

  static Webhook hook(String matchPolicy, JsonObject nsSel, JsonObject objSel, JsonObject rule) {
    JsonObject config = new JsonObject().put("metadata", new JsonObject().put("name", "cfg"))
        .put("webhooks", new io.vertx.core.json.JsonArray().add(new JsonObject().put("name", "h.example.com")
            .put("rules", new io.vertx.core.json.JsonArray().add(rule)).put("matchPolicy", matchPolicy)
            .put("namespaceSelector", nsSel).put("objectSelector", objSel)
            .put("clientConfig", new JsonObject().put("url", "https://127.0.0.1/"))
            .put("sideEffects", "None").put("admissionReviewVersions", new io.vertx.core.json.JsonArray().add("v1"))));
    return Webhook.of(config, false).get(0);
  }

  static JsonObject labelled(String... kv) {
    JsonObject l = new JsonObject();
    for (int i = 0; i < kv.length; i += 2) {
      l.put(kv[i], kv[i + 1]);
    }
    return new JsonObject().put("metadata", new JsonObject().put("name", "w1").put("labels", l));
  }

  @Test
  void matchPolicyEquivalentCallsWithTheCoveredVersion() {
    JsonObject v1only = rule("CREATE", "demo.io", "v1", "widgets", null);
    Admission.Attributes v2 = attrs("CREATE", "demo.io", "v2", "widgets", "", "ns1", labelled(), null);
    assertEquals("v1", WebhookMatching.matchingVersion(hook("Equivalent", null, null, v1only), v2));
    assertEquals(null, WebhookMatching.matchingVersion(hook("Exact", null, null, v1only), v2));
    assertEquals("v2", WebhookMatching.matchingVersion(hook("Exact", null, null,
        rule("CREATE", "demo.io", "*", "widgets", null)), v2));
  }

  static Stream<Arguments> selectors() {
    JsonObject env = new JsonObject().put("matchLabels", new JsonObject().put("env", "prod"));
    JsonObject notIn = new JsonObject().put("matchExpressions", new io.vertx.core.json.JsonArray().add(
        new JsonObject().put("key", "skip").put("operator", "DoesNotExist")));
    JsonObject in = new JsonObject().put("matchExpressions", new io.vertx.core.json.JsonArray().add(
        new JsonObject().put("key", "tier").put("operator", "In").put("values",
            new io.vertx.core.json.JsonArray().add("a").add("b"))));
    JsonObject exists = new JsonObject().put("matchExpressions", new io.vertx.core.json.JsonArray().add(
        new JsonObject().put("key", "tier").put("operator", "Exists")));
    JsonObject notin = new JsonObject().put("matchExpressions", new io.vertx.core.json.JsonArray().add(
        new JsonObject().put("key", "tier").put("operator", "NotIn").put("values",
            new io.vertx.core.json.JsonArray().add("a"))));
    return Stream.of(
        Arguments.of(new JsonObject(), Map.of(), true),
        Arguments.of(env, Map.of("env", "prod"), true),
        Arguments.of(env, Map.of("env", "dev"), false),
        Arguments.of(env, Map.of(), false),
        Arguments.of(notIn, Map.of(), true),
        Arguments.of(notIn, Map.of("skip", ""), false),
        Arguments.of(in, Map.of("tier", "b"), true),
        Arguments.of(in, Map.of("tier", "c"), false),
        Arguments.of(in, Map.of(), false),
        Arguments.of(exists, Map.of("tier", "x"), true),
        Arguments.of(exists, Map.of(), false),
        Arguments.of(notin, Map.of(), true),
        Arguments.of(notin, Map.of("tier", "a"), false));
  }

  @ParameterizedTest
  @MethodSource("selectors")
  void labelSelectors(JsonObject selector, Map<String, String> labels, boolean want) {
    assertEquals(want, WebhookMatching.selectorMatches(selector, labels));
  }

  @Test
  void namespaceSelector() {
    JsonObject sel = new JsonObject().put("matchLabels", new JsonObject().put("env", "prod"));
    JsonObject any = rule("*", "*", "*", "*", null);
    Webhook h = hook("Equivalent", sel, null, any);
    Admission.Attributes namespaced = attrs("CREATE", "demo.io", "v1", "widgets", "", "ns1", labelled(), null);
    assertEquals(true, WebhookMatching.namespaceMatches(h, namespaced, Map.of("env", "prod")));
    assertEquals(false, WebhookMatching.namespaceMatches(h, namespaced, Map.of("env", "dev")));
    // a cluster-scoped object other than a namespace always matches
    Admission.Attributes cluster = attrs("CREATE", "demo.io", "v1", "gizmos", "", "", labelled(), null);
    assertEquals(true, WebhookMatching.namespaceMatches(h, cluster, Map.of()));
    // a namespace is matched by its own labels
    Admission.Attributes ns = new Admission.Attributes("", "v1", "namespaces", "", "Namespace", "", "ns2", "CREATE",
        labelled("env", "prod"), null, new JsonObject(), false, new UserInfo("a", "", List.of(), Map.of()), false,
        List.of());
    assertEquals(true, WebhookMatching.namespaceMatches(h, ns, Map.of()));
    assertEquals(false, WebhookMatching.namespaceMatches(h, ns.withObject(labelled("env", "dev")), Map.of()));
  }

  @Test
  void objectSelectorMatchesNewOrOldObject() {
    JsonObject sel = new JsonObject().put("matchLabels", new JsonObject().put("app", "x"));
    Webhook h = hook("Equivalent", null, sel, rule("*", "*", "*", "*", null));
    assertEquals(true, WebhookMatching.objectMatches(h, attrs("CREATE", "g", "v1", "widgets", "", "n",
        labelled("app", "x"), null)));
    assertEquals(false, WebhookMatching.objectMatches(h, attrs("CREATE", "g", "v1", "widgets", "", "n",
        labelled("app", "y"), null)));
    assertEquals(true, WebhookMatching.objectMatches(h, attrs("UPDATE", "g", "v1", "widgets", "", "n",
        labelled(), labelled("app", "x"))));
    assertEquals(true, WebhookMatching.objectMatches(h, attrs("DELETE", "g", "v1", "widgets", "", "n",
        null, labelled("app", "x"))));
    assertEquals(false, WebhookMatching.objectMatches(h, attrs("DELETE", "g", "v1", "widgets", "", "n",
        null, labelled())));
  }

  @Test
  void matchConditionsInCel() {
    MatchConditions c = MatchConditions.compile(new io.vertx.core.json.JsonArray()
        .add(new JsonObject().put("name", "not-kube-system").put("expression",
            "request.namespace != 'kube-system'"))
        .add(new JsonObject().put("name", "labelled").put("expression",
            "has(object.metadata.labels) && 'app' in object.metadata.labels")));
    JsonObject req = new JsonObject().put("namespace", "default");
    assertEquals(true, c.matches(labelled("app", "x"), null, req));
    assertEquals(false, c.matches(labelled("other", "x"), null, req));
    assertEquals(false, c.matches(labelled("app", "x"), null, new JsonObject().put("namespace", "kube-system")));
    MatchConditions bad = MatchConditions.compile(new io.vertx.core.json.JsonArray()
        .add(new JsonObject().put("name", "boom").put("expression", "object.spec.size > 1")));
    org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
        () -> bad.matches(labelled(), null, req));
    assertEquals(null, MatchConditions.compileError("object.metadata.name == 'x'"));
    org.junit.jupiter.api.Assertions.assertNotNull(MatchConditions.compileError("object.metadata.name =="));
    org.junit.jupiter.api.Assertions.assertNotNull(MatchConditions.compileError("'a'"));
  }
}
