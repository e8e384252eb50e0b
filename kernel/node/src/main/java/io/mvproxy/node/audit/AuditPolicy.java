package io.mvproxy.node.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.authz.Attributes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * An {@code audit.k8s.io/v1} {@code Policy} ({@code --audit-policy-file}) and its checker: the first rule that
 * matches a request decides its level and omitted stages; no match is level {@code None} (upstream
 * {@code staging/src/k8s.io/apiserver/pkg/audit/policy/checker.go}, types in {@code pkg/apis/audit/v1/types.go},
 * validation in {@code pkg/apis/audit/validation/validation.go}). Policy-level {@code omitStages} are added to every
 * rule's; a rule's {@code omitManagedFields}, when set, overrides the policy's. Immutable, thread-safe.
 *
 * @param rules             the rules, in order
 * @param omitStages        stages no event is written for, whatever rule matches
 * @param omitManagedFields policy default for dropping {@code metadata.managedFields} from logged objects
 */
public record AuditPolicy(List<Rule> rules, Set<Stage> omitStages, boolean omitManagedFields) {

  /** Audit levels, least to most detailed. */
  public enum Level {
    /** No event. */
    None,
    /** Request metadata (user, timestamp, resource, verb, ...), no bodies. */
    Metadata,
    /** Metadata and the request body. */
    Request,
    /** Metadata, request and response bodies. */
    RequestResponse;

    /** @param other a level @return true when this level is below {@code other} */
    public boolean less(Level other) {
      return ordinal() < other.ordinal();
    }
  }

  /** Stages of a request's handling at which events are written. */
  public enum Stage {
    /** As soon as the audit handler receives the request. */
    RequestReceived,
    /** Once the response head was sent: long-running requests (watches) only. */
    ResponseStarted,
    /** Once the response was sent. */
    ResponseComplete,
    /** When the handling failed unexpectedly (kube: a panic). */
    Panic
  }

  /**
   * One {@code GroupResources} entry of a rule.
   *
   * @param group         API group, {@code ""} for core
   * @param resources     resources ({@code pods}, {@code pods/log}, {@code *}, {@code * /status} style, {@code pods/*});
   *                      empty = every resource of the group
   * @param resourceNames object names; empty = any
   */
  public record GroupResources(String group, List<String> resources, List<String> resourceNames) {
    /** Copies the lists. */
    public GroupResources {
      resources = List.copyOf(resources);
      resourceNames = List.copyOf(resourceNames);
    }
  }

  /**
   * One {@code PolicyRule}: every non-empty criterion must match.
   *
   * @param level             the level of matching requests
   * @param users             user names; empty = any
   * @param userGroups        groups, one of which the user must be in; empty = any
   * @param verbs             verbs; empty = any
   * @param resources         resource criteria (resource requests only)
   * @param namespaces        namespaces ({@code ""} = cluster-scoped); resource requests only
   * @param nonResourceURLs   paths, exact or with a trailing {@code *}; non-resource requests only
   * @param omitStages        stages omitted (already including the policy's)
   * @param omitManagedFields true to drop {@code metadata.managedFields} from the logged bodies
   */
  public record Rule(Level level, List<String> users, List<String> userGroups, List<String> verbs,
                     List<GroupResources> resources, List<String> namespaces, List<String> nonResourceURLs,
                     Set<Stage> omitStages, boolean omitManagedFields) {
    /** Copies the collections. */
    public Rule {
      users = List.copyOf(users);
      userGroups = List.copyOf(userGroups);
      verbs = List.copyOf(verbs);
      resources = List.copyOf(resources);
      namespaces = List.copyOf(namespaces);
      nonResourceURLs = List.copyOf(nonResourceURLs);
      omitStages = omitStages.isEmpty() ? Set.of() : Set.copyOf(omitStages);
    }
  }

  /**
   * What the policy says about one request.
   *
   * @param level             its level ({@code None}: no event)
   * @param omitStages        stages not written
   * @param omitManagedFields drop {@code metadata.managedFields} from logged bodies
   */
  public record Decision(Level level, Set<Stage> omitStages, boolean omitManagedFields) {
  }

  /** Copies the collections. */
  public AuditPolicy {
    rules = List.copyOf(rules);
    omitStages = omitStages.isEmpty() ? Set.of() : Set.copyOf(omitStages);
  }

  /**
   * The level and stages of a request ({@code checker.go} {@code EvaluatePolicyRule}).
   *
   * @param a the request's attributes; {@code a.user()} may be null (failed authentication)
   * @return the first matching rule's decision, else level None with the policy's stages
   */
  public Decision evaluate(Attributes a) {
    for (Rule r : rules) {
      if (matches(r, a)) {
        return new Decision(r.level(), r.omitStages(), r.omitManagedFields());
      }
    }
    return new Decision(Level.None, omitStages, omitManagedFields);
  }

  static boolean matches(Rule r, Attributes a) {
    UserInfo user = a.user();
    if (!r.users().isEmpty() && (user == null || !r.users().contains(user.name()))) {
      return false;
    }
    if (!r.userGroups().isEmpty()) {
      if (user == null || user.groups().stream().noneMatch(r.userGroups()::contains)) {
        return false;
      }
    }
    if (!r.verbs().isEmpty() && !r.verbs().contains(a.verb())) {
      return false;
    }
    if (!r.namespaces().isEmpty() || !r.resources().isEmpty()) {
      return matchesResource(r, a);
    }
    if (!r.nonResourceURLs().isEmpty()) {
      return !a.resourceRequest() && r.nonResourceURLs().stream().anyMatch(spec -> pathMatches(a.path(), spec));
    }
    return true;
  }

  private static boolean pathMatches(String path, String spec) {
    return spec.equals("*") || spec.equals(path)
        || spec.endsWith("*") && path.startsWith(spec.replaceAll("\\*+$", ""));
  }

  private static boolean matchesResource(Rule r, Attributes a) {
    if (!a.resourceRequest()) {
      return false;
    }
    if (!r.namespaces().isEmpty() && !r.namespaces().contains(a.namespace())) {
      return false;
    }
    if (r.resources().isEmpty()) {
      return true;
    }
    String resource = a.resource();
    String sub = a.subresource();
    String combined = sub.isEmpty() ? resource : resource + "/" + sub;
    for (GroupResources gr : r.resources()) {
      if (!gr.group().equals(a.apiGroup())) {
        continue;
      }
      if (gr.resources().isEmpty()) {
        return true;
      }
      if (!gr.resourceNames().isEmpty() && !gr.resourceNames().contains(a.name())) {
        continue;
      }
      for (String res : gr.resources()) {
        if (res.equals(combined) || res.equals("*")
            || !sub.isEmpty() && res.startsWith("*/") && sub.equals(res.substring(2))
            || res.endsWith("/*") && resource.equals(res.substring(0, res.length() - 2))) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Reads and validates a policy file (YAML or JSON).
   *
   * @param file the {@code --audit-policy-file}
   * @return the policy
   * @throws IllegalArgumentException naming the file and the field, in upstream's validation wording, for an
   *     unreadable or malformed file, a wrong kind/apiVersion, an unknown level or stage, a rule mixing resources and
   *     non-resource URLs, a bad URL pattern, or a policy without rules
   */
  public static AuditPolicy load(Path file) {
    JsonNode root;
    try {
      root = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(file));
    } catch (IOException e) {
      throw new IllegalArgumentException("failed to read file path \"" + file + "\": " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("failed decoding file \"" + file + "\": not an object");
    }
    String apiVersion = root.path("apiVersion").asText("");
    if (!"Policy".equals(root.path("kind").asText("")) || !"audit.k8s.io/v1".equals(apiVersion)) {
      throw new IllegalArgumentException("failed decoding file \"" + file + "\": expected kind Policy of apiVersion "
          + "audit.k8s.io/v1, got " + root.path("kind").asText("") + " " + apiVersion);
    }
    AuditPolicy p = parse(root);
    if (p.rules().isEmpty()) {
      throw new IllegalArgumentException("loaded illegal policy with 0 rules from file " + file);
    }
    return p;
  }

  /**
   * Parses and validates a decoded policy.
   *
   * @param root the Policy object
   * @return the policy, policy-level omitStages merged into every rule
   * @throws IllegalArgumentException with upstream's field path ({@code rules[0].level: Unsupported value ...})
   */
  public static AuditPolicy parse(JsonNode root) {
    Set<Stage> policyStages = stages(root.path("omitStages"), "omitStages");
    boolean policyOmit = root.path("omitManagedFields").asBoolean(false);
    List<Rule> rules = new ArrayList<>();
    JsonNode rs = root.path("rules");
    for (int i = 0; i < rs.size(); i++) {
      JsonNode r = rs.get(i);
      String at = "rules[" + i + "]";
      Level level = level(r.path("level"), at + ".level");
      List<String> nonResource = strings(r.path("nonResourceURLs"));
      List<String> namespaces = strings(r.path("namespaces"));
      List<GroupResources> resources = new ArrayList<>();
      JsonNode grs = r.path("resources");
      for (int j = 0; j < grs.size(); j++) {
        JsonNode g = grs.get(j);
        String gat = at + ".resources[" + j + "]";
        GroupResources gr = new GroupResources(g.path("group").asText(""), strings(g.path("resources")),
            strings(g.path("resourceNames")));
        if (!gr.resourceNames().isEmpty() && gr.resources().stream().anyMatch(x -> x.contains("*"))) {
          throw new IllegalArgumentException(gat + ".resourceNames: Invalid value: " + gr.resourceNames()
              + ": using resource names with wildcard resources is not supported");
        }
        resources.add(gr);
      }
      if (!nonResource.isEmpty() && (!resources.isEmpty() || !namespaces.isEmpty())) {
        throw new IllegalArgumentException(at + ".nonResourceURLs: Invalid value: " + nonResource
            + ": rules cannot apply to both regular resources and non-resource URLs");
      }
      for (int j = 0; j < nonResource.size(); j++) {
        String u = nonResource.get(j);
        if (!u.equals("*") && (!u.startsWith("/") || u.indexOf('*') >= 0 && u.indexOf('*') != u.length() - 1)) {
          throw new IllegalArgumentException(at + ".nonResourceURLs[" + j + "]: Invalid value: \"" + u
              + "\": non-resource URL rules must begin with a '/' and may end with a single '*' wildcard");
        }
      }
      Set<Stage> stages = EnumSet.noneOf(Stage.class);
      stages.addAll(policyStages);
      stages.addAll(stages(r.path("omitStages"), at + ".omitStages"));
      JsonNode omf = r.path("omitManagedFields");
      rules.add(new Rule(level, strings(r.path("users")), strings(r.path("userGroups")), strings(r.path("verbs")),
          resources, namespaces, nonResource, stages, omf.isBoolean() ? omf.asBoolean() : policyOmit));
    }
    return new AuditPolicy(rules, policyStages, policyOmit);
  }

  private static Level level(JsonNode n, String at) {
    if (n.isMissingNode() || n.asText("").isEmpty()) {
      throw new IllegalArgumentException(at + ": Required value");
    }
    try {
      return Level.valueOf(n.asText());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(at + ": Unsupported value: \"" + n.asText()
          + "\": supported values: \"None\", \"Metadata\", \"Request\", \"RequestResponse\"");
    }
  }

  private static Set<Stage> stages(JsonNode n, String at) {
    Set<Stage> out = EnumSet.noneOf(Stage.class);
    for (int i = 0; i < n.size(); i++) {
      String s = n.get(i).asText("");
      try {
        out.add(Stage.valueOf(s));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(at + "[" + i + "]: Unsupported value: \"" + s + "\": supported values: "
            + "\"RequestReceived\", \"ResponseStarted\", \"ResponseComplete\", \"Panic\"");
      }
    }
    return out;
  }

  private static List<String> strings(JsonNode n) {
    List<String> out = new ArrayList<>();
    for (JsonNode x : n) {
      out.add(x.asText());
    }
    return out;
  }
}
