package io.mvproxy.node.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.authz.Attributes;
import io.mvproxy.node.audit.AuditPolicy.Level;
import io.mvproxy.node.audit.AuditPolicy.Stage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The policy checker, table-driven as upstream's {@code audit/policy/checker_test.go}, and policy validation. */
@Tag("unit")
class AuditPolicyTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final UserInfo TIM = new UserInfo("tim@k8s.io", "", List.of("humans", "developers"), Map.of());
  private static final Map<String, Attributes> ATTRS = new LinkedHashMap<>();
  private static final Map<String, String> RULES = new LinkedHashMap<>();

  static {
    ATTRS.put("namespaced", new Attributes(TIM, "get", true, "/api/v1/namespaces/default/pods/busybox", "default", "",
        "v1", "pods", "", "busybox"));
    ATTRS.put("cluster", new Attributes(TIM, "get", true, "/apis/rbac.authorization.k8s.io/v1beta1/clusterroles/edit",
        "", "rbac.authorization.k8s.io", "v1beta1", "clusterroles", "", "edit"));
    ATTRS.put("nonResource", new Attributes(TIM, "get", false, "/logs/kubelet.log", "", "", "", "", "", ""));
    ATTRS.put("subresource", new Attributes(TIM, "get", true, "/api/v1/namespaces/default/pods/busybox", "default",
        "", "v1", "pods", "log", "busybox"));
    ATTRS.put("Unauthorized", new Attributes(null, "get", true, "/api/v1/namespaces/default/pods/busybox", "default",
        "", "v1", "pods", "", "busybox"));

    RULES.put("default", "{\"level\":\"Metadata\"}");
    RULES.put("create", "{\"level\":\"Request\",\"verbs\":[\"create\"]}");
    RULES.put("tims", "{\"level\":\"Metadata\",\"users\":[\"tim@k8s.io\"]}");
    RULES.put("humans", "{\"level\":\"Metadata\",\"userGroups\":[\"humans\"]}");
    RULES.put("serviceAccounts", "{\"level\":\"Request\",\"userGroups\":[\"system:serviceaccounts\"]}");
    RULES.put("getPods", "{\"level\":\"RequestResponse\",\"verbs\":[\"get\"],\"resources\":[{\"resources\":[\"pods\"]}]}");
    RULES.put("getPodLogs", "{\"level\":\"Request\",\"verbs\":[\"get\"],\"resources\":[{\"resources\":[\"pods/log\"]}]}");
    RULES.put("getPodWildcardMatching", "{\"level\":\"Request\",\"verbs\":[\"get\"],\"resources\":[{\"resources\":[\"*\"]}]}");
    RULES.put("getPodResourceWildcardMatching",
        "{\"level\":\"Request\",\"verbs\":[\"get\"],\"resources\":[{\"resources\":[\"*/log\"]}]}");
    RULES.put("getPodSubResourceWildcardMatching",
        "{\"level\":\"Request\",\"verbs\":[\"get\"],\"resources\":[{\"resources\":[\"pods/*\"]}]}");
    RULES.put("getClusterRoles", "{\"level\":\"RequestResponse\",\"verbs\":[\"get\"],\"resources\":[{\"group\":"
        + "\"rbac.authorization.k8s.io\",\"resources\":[\"clusterroles\"]}],\"namespaces\":[\"\"]}");
    RULES.put("getLogs", "{\"level\":\"RequestResponse\",\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/logs*\"]}");
    RULES.put("getMetrics", "{\"level\":\"Request\",\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/metrics\"]}");
    RULES.put("clusterRoleEdit", "{\"level\":\"Request\",\"resources\":[{\"group\":\"rbac.authorization.k8s.io\","
        + "\"resources\":[\"clusterroles\"],\"resourceNames\":[\"edit\"]}]}");
    RULES.put("omit RequestReceived", "{\"level\":\"Request\",\"omitStages\":[\"RequestReceived\"]}");
    RULES.put("only audit panic", "{\"level\":\"Request\",\"omitStages\":[\"RequestReceived\",\"ResponseStarted\","
        + "\"ResponseComplete\"]}");
  }

  /** One row: request, expected level, rule names in order. */
  private record Row(String req, Level level, String... rules) {
  }

  private static final List<Row> LEVELS = List.of(
      new Row("namespaced", Level.Metadata, "default"),
      new Row("namespaced", Level.None, "create"),
      new Row("namespaced", Level.Metadata, "tims"),
      new Row("namespaced", Level.Metadata, "humans"),
      new Row("namespaced", Level.None, "serviceAccounts"),
      new Row("namespaced", Level.RequestResponse, "getPods"),
      new Row("namespaced", Level.None, "getClusterRoles"),
      new Row("namespaced", Level.None, "getLogs"),
      new Row("namespaced", Level.None, "getMetrics"),
      new Row("namespaced", Level.Metadata, "getMetrics", "serviceAccounts", "default"),
      new Row("namespaced", Level.RequestResponse, "getMetrics", "getPods", "default"),
      new Row("namespaced", Level.RequestResponse, "getPodLogs", "getPods"),
      new Row("cluster", Level.Metadata, "default"),
      new Row("cluster", Level.None, "create"),
      new Row("cluster", Level.Metadata, "tims"),
      new Row("cluster", Level.Metadata, "humans"),
      new Row("cluster", Level.None, "serviceAccounts"),
      new Row("cluster", Level.None, "getPods"),
      new Row("cluster", Level.RequestResponse, "getClusterRoles"),
      new Row("cluster", Level.Request, "clusterRoleEdit", "getClusterRoles"),
      new Row("cluster", Level.None, "getLogs"),
      new Row("cluster", Level.None, "getMetrics"),
      new Row("cluster", Level.Metadata, "getMetrics", "serviceAccounts", "default"),
      new Row("cluster", Level.RequestResponse, "getMetrics", "getClusterRoles", "default"),
      new Row("cluster", Level.None, "getPodLogs", "getPods"),
      new Row("nonResource", Level.Metadata, "default"),
      new Row("nonResource", Level.None, "create"),
      new Row("nonResource", Level.Metadata, "tims"),
      new Row("nonResource", Level.Metadata, "humans"),
      new Row("nonResource", Level.None, "serviceAccounts"),
      new Row("nonResource", Level.None, "getPods"),
      new Row("nonResource", Level.None, "getClusterRoles"),
      new Row("nonResource", Level.RequestResponse, "getLogs"),
      new Row("nonResource", Level.None, "getMetrics"),
      new Row("nonResource", Level.Metadata, "getMetrics", "serviceAccounts", "default"),
      new Row("nonResource", Level.RequestResponse, "getLogs", "getClusterRoles", "default"),
      new Row("nonResource", Level.None, "getPodLogs", "getPods"),
      new Row("subresource", Level.Request, "getPodLogs", "getPods"),
      new Row("subresource", Level.Request, "getPodWildcardMatching"),
      new Row("subresource", Level.Request, "getPodResourceWildcardMatching"),
      new Row("subresource", Level.Request, "getPodSubResourceWildcardMatching"),
      new Row("Unauthorized", Level.None, "tims"),
      new Row("Unauthorized", Level.Metadata, "tims", "default"),
      new Row("Unauthorized", Level.None, "humans"),
      new Row("Unauthorized", Level.Metadata, "humans", "default"));

  private static AuditPolicy policy(List<Stage> policyStages, String... ruleNames) throws Exception {
    ObjectNode root = JSON.createObjectNode();
    ArrayNode stages = root.putArray("omitStages");
    policyStages.forEach(s -> stages.add(s.name()));
    ArrayNode rules = root.putArray("rules");
    for (String r : ruleNames) {
      rules.add(JSON.readTree(RULES.get(r)));
    }
    return AuditPolicy.parse(root);
  }

  private static void check(List<Stage> policyStages, Row row, Set<Stage> expectedStages) throws Exception {
    AuditPolicy.Decision d = policy(policyStages, row.rules()).evaluate(ATTRS.get(row.req()));
    String what = "request " + row.req() + " rules " + String.join(",", row.rules());
    assertEquals(row.level(), d.level(), what);
    assertEquals(expectedStages, d.omitStages(), what);
  }

  private static Set<Stage> set(List<Stage> s) {
    return s.isEmpty() ? Set.of() : EnumSet.copyOf(s);
  }

  @Test
  void checker() throws Exception {
    for (Row row : LEVELS) {
      check(List.of(), row, Set.of());
    }
    for (String req : List.of("namespaced", "cluster", "nonResource")) {
      check(List.of(), new Row(req, Level.Request, "omit RequestReceived", "getPods", "default"),
          Set.of(Stage.RequestReceived));
      check(List.of(), new Row(req, Level.Request, "only audit panic", "getPods", "default"),
          Set.of(Stage.RequestReceived, Stage.ResponseStarted, Stage.ResponseComplete));
    }
  }

  @Test
  void policyOmitStagesAddToEveryRule() throws Exception {
    List<Stage> policyStages = List.of(Stage.RequestReceived, Stage.ResponseStarted);
    for (Row row : LEVELS) {
      check(policyStages, row, set(policyStages));
    }
    for (String req : List.of("namespaced", "cluster")) {
      check(policyStages, new Row(req, Level.Request, "omit RequestReceived", "getPods", "default"),
          set(policyStages));
      check(policyStages, new Row(req, Level.Request, "only audit panic", "getPods", "default"),
          Set.of(Stage.RequestReceived, Stage.ResponseStarted, Stage.ResponseComplete));
    }
    check(policyStages, new Row("nonResource", Level.Metadata, "default", "omit RequestReceived", "getPods"),
        set(policyStages));
  }

  @Test
  void ruleOmitManagedFieldsOverridesThePolicys() throws Exception {
    Attributes get = new Attributes(TIM, "get", false, "/x", "", "", "", "", "", "");
    String rule = "{\"level\":\"RequestResponse\",\"verbs\":[\"get\"]%s}";
    Object[][] table = {
        {false, "", false},
        {true, "", true},
        {true, ",\"omitManagedFields\":false", false},
        {false, ",\"omitManagedFields\":true", true},
    };
    for (Object[] row : table) {
      ObjectNode root = JSON.createObjectNode().put("omitManagedFields", (Boolean) row[0]);
      root.putArray("rules").add(JSON.readTree(String.format(rule, row[1])));
      assertEquals(row[2], AuditPolicy.parse(root).evaluate(get).omitManagedFields(), java.util.Arrays.toString(row));
    }
  }

  @Test
  void loadsYamlAndRefusesBadPolicies(@TempDir Path dir) throws Exception {
    Path ok = Files.writeString(dir.resolve("policy.yaml"), """
        apiVersion: audit.k8s.io/v1
        kind: Policy
        omitStages: [RequestReceived]
        rules:
        - level: Metadata
          resources:
          - group: ""
            resources: ["secrets", "configmaps"]
        - level: RequestResponse
          resources:
          - group: demo.mvproxy.io
        - level: None
          nonResourceURLs: ["/healthz*", "/version"]
        """);
    AuditPolicy p = AuditPolicy.load(ok);
    assertEquals(3, p.rules().size());
    Attributes secret = new Attributes(TIM, "create", true, "", "default", "", "v1", "secrets", "", "");
    assertEquals(Level.Metadata, p.evaluate(secret).level());
    assertEquals(Set.of(Stage.RequestReceived), p.evaluate(secret).omitStages());
    Attributes widget = new Attributes(TIM, "create", true, "", "default", "demo.mvproxy.io", "v1", "widgets", "", "");
    assertEquals(Level.RequestResponse, p.evaluate(widget).level());
    assertEquals(Level.None, p.evaluate(new Attributes(TIM, "get", false, "/healthz/etcd", "", "", "", "", "", ""))
        .level());

    List<String[]> bad = new ArrayList<>();
    bad.add(new String[] {"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n", "with 0 rules"});
    bad.add(new String[] {"apiVersion: v1\nkind: ConfigMap\n", "expected kind Policy"});
    bad.add(new String[] {"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n",
        "rules[0].level: Unsupported value: \"Everything\""});
    bad.add(new String[] {"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- verbs: [get]\n",
        "rules[0].level: Required value"});
    bad.add(new String[] {"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  omitStages: [Later]\n",
        "rules[0].omitStages[0]: Unsupported value: \"Later\""});
    bad.add(new String[] {"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  namespaces: [a]\n"
        + "  nonResourceURLs: [/x]\n", "rules cannot apply to both regular resources and non-resource URLs"});
    bad.add(new String[] {"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n"
        + "  nonResourceURLs: [\"/a*b\"]\n", "rules[0].nonResourceURLs[0]: Invalid value: \"/a*b\""});
    bad.add(new String[] {"apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [\n", "failed to read"});
    for (String[] b : bad) {
      Path f = Files.writeString(dir.resolve("bad.yaml"), b[0]);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AuditPolicy.load(f), b[0]);
      assertTrue(e.getMessage().contains(b[1]), e.getMessage());
    }
  }
}
