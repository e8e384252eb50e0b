package io.mvproxy.builtin;

import io.mvproxy.api.Gvr;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.authz.AccessControl;
import io.mvproxy.api.authz.Attributes;
import io.mvproxy.api.authz.Decision;
import io.mvproxy.api.authz.PolicyRule;
import io.mvproxy.api.authz.ResolvedRules;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The review objects of {@code authorization.k8s.io/v1} ({@code pkg/registry/authorization/*}/rest.go,
 * {@code pkg/apis/authorization/validation/validation.go}): each takes the posted object, fills {@code status}
 * from the node's authorization and returns it; nothing is stored.
 */
public final class AccessReviews {
  /** The group-version. */
  public static final String API_VERSION = "authorization.k8s.io/v1";

  private final AccessControl access;

  /** @param access the node's authorization */
  public AccessReviews(AccessControl access) {
    this.access = access;
  }

  /**
   * SelfSubjectAccessReview: is the caller allowed?
   *
   * @param body the posted object
   * @param user the caller
   * @return the object with {@code status {allowed, denied, reason}}
   * @throws StatusException 422 unless exactly one of resourceAttributes / nonResourceAttributes is given
   */
  public JsonObject selfSubjectAccessReview(JsonObject body, UserInfo user) {
    JsonObject spec = spec(body);
    validateAttributes("SelfSubjectAccessReview", spec);
    return answer(body, "SelfSubjectAccessReview", access.authorize(attributes(spec, user)));
  }

  /**
   * SubjectAccessReview: is {@code spec.user}/{@code spec.groups} allowed?
   *
   * @param body the posted object
   * @return the object with {@code status}
   * @throws StatusException 422 when attributes are malformed or neither user nor groups is given
   */
  public JsonObject subjectAccessReview(JsonObject body) {
    JsonObject spec = spec(body);
    validateAttributes("SubjectAccessReview", spec);
    requireSubject("SubjectAccessReview", spec);
    return answer(body, "SubjectAccessReview", access.authorize(attributes(spec, subject(spec))));
  }

  /**
   * LocalSubjectAccessReview: a SubjectAccessReview inside the path's namespace.
   *
   * @param body      the posted object
   * @param namespace the namespace of the path
   * @return the object with {@code status}
   * @throws StatusException 400 when {@code spec.resourceAttributes.namespace} differs from the path's namespace,
   *     422 for malformed attributes
   */
  public JsonObject localSubjectAccessReview(JsonObject body, String namespace) {
    JsonObject spec = spec(body);
    validateAttributes("LocalSubjectAccessReview", spec);
    requireSubject("LocalSubjectAccessReview", spec);
    if (spec.getJsonObject("nonResourceAttributes") != null) {
      throw invalid("LocalSubjectAccessReview", "spec.nonResourceAttributes", "disallowed on this kind of request");
    }
    String ns = spec.getJsonObject("resourceAttributes").getString("namespace", "");
    if (!namespace.equals(ns)) {
      throw StatusException.badRequest("spec.resourceAttributes.namespace must match namespace: " + namespace);
    }
    JsonObject md = body.getJsonObject("metadata", new JsonObject());
    body.put("metadata", md.put("namespace", namespace));
    return answer(body, "LocalSubjectAccessReview", access.authorize(attributes(spec, subject(spec))));
  }

  /**
   * SelfSubjectRulesReview: what may the caller do in {@code spec.namespace}?
   *
   * @param body the posted object
   * @param user the caller
   * @return the object with {@code status {resourceRules, nonResourceRules, incomplete, evaluationError}}
   * @throws StatusException 400 {@code no namespace on request} when {@code spec.namespace} is empty
   */
  public JsonObject selfSubjectRulesReview(JsonObject body, UserInfo user) {
    JsonObject spec = spec(body);
    String ns = spec.getString("namespace", "");
    if (ns.isEmpty()) {
      throw StatusException.badRequest("no namespace on request");
    }
    ResolvedRules rules = access.rulesFor(user, ns);
    JsonArray resourceRules = new JsonArray();
    JsonArray nonResourceRules = new JsonArray();
    for (PolicyRule r : rules.rules()) {
      if (!r.resources().isEmpty()) {
        JsonObject j = new JsonObject().put("verbs", new JsonArray(new ArrayList<>(r.verbs())));
        if (!r.apiGroups().isEmpty()) {
          j.put("apiGroups", new JsonArray(new ArrayList<>(r.apiGroups())));
        }
        j.put("resources", new JsonArray(new ArrayList<>(r.resources())));
        if (!r.resourceNames().isEmpty()) {
          j.put("resourceNames", new JsonArray(new ArrayList<>(r.resourceNames())));
        }
        resourceRules.add(j);
      }
      if (!r.nonResourceURLs().isEmpty()) {
        nonResourceRules.add(new JsonObject().put("verbs", new JsonArray(new ArrayList<>(r.verbs())))
            .put("nonResourceURLs", new JsonArray(new ArrayList<>(r.nonResourceURLs()))));
      }
    }
    JsonObject status = new JsonObject().put("resourceRules", resourceRules).put("nonResourceRules", nonResourceRules)
        .put("incomplete", false);
    if (!rules.errors().isEmpty()) {
      status.put("evaluationError", rules.errors().size() == 1 ? rules.errors().get(0)
          : "[" + String.join(", ", rules.errors()) + "]");
    }
    return envelope(body, "SelfSubjectRulesReview").put("status", status);
  }

  static JsonObject spec(JsonObject body) {
    Object s = body.getValue("spec");
    if (s != null && !(s instanceof JsonObject)) {
      throw StatusException.badRequest("spec: expected an object");
    }
    return s == null ? new JsonObject() : (JsonObject) s;
  }

  private static void validateAttributes(String kind, JsonObject spec) {
    boolean res = spec.getJsonObject("resourceAttributes") != null;
    boolean non = spec.getJsonObject("nonResourceAttributes") != null;
    if (res && non) {
      throw invalid(kind, "spec.nonResourceAttributes", "cannot be specified in combination with resourceAttributes");
    }
    if (!res && !non) {
      throw invalid(kind, "spec.resourceAttributes",
          "exactly one of nonResourceAttributes or resourceAttributes must be specified");
    }
  }

  private static void requireSubject(String kind, JsonObject spec) {
    if (spec.getString("user", "").isEmpty() && spec.getJsonArray("groups", new JsonArray()).isEmpty()) {
      throw invalid(kind, "spec.user", "at least one of user or group must be specified");
    }
  }

  private static StatusException invalid(String kind, String field, String message) {
    JsonArray causes = new JsonArray().add(new JsonObject().put("reason", "FieldValueInvalid")
        .put("message", "Invalid value: \"null\": " + message).put("field", field));
    return StatusException.invalid(new Gvr("authorization.k8s.io", "v1", ""), kind, "", causes);
  }

  /** The subject of a (Local)SubjectAccessReview: {@code user}, {@code uid}, {@code groups}, {@code extra}. */
  static UserInfo subject(JsonObject spec) {
    List<String> groups = new ArrayList<>();
    spec.getJsonArray("groups", new JsonArray()).forEach(g -> groups.add(String.valueOf(g)));
    Map<String, List<String>> extra = new java.util.LinkedHashMap<>();
    JsonObject ex = spec.getJsonObject("extra", new JsonObject());
    for (String k : ex.fieldNames()) {
      List<String> vs = new ArrayList<>();
      Object v = ex.getValue(k);
      if (v instanceof JsonArray a) {
        a.forEach(x -> vs.add(String.valueOf(x)));
      }
      extra.put(k, vs);
    }
    return new UserInfo(spec.getString("user", ""), spec.getString("uid", ""), groups, extra);
  }

  /** {@code ResourceAttributesFrom} / {@code NonResourceAttributesFrom}. */
  static Attributes attributes(JsonObject spec, UserInfo user) {
    JsonObject r = spec.getJsonObject("resourceAttributes");
    if (r != null) {
      return new Attributes(user, r.getString("verb", ""), true, "", r.getString("namespace", ""),
          r.getString("group", ""), r.getString("version", ""), r.getString("resource", ""),
          r.getString("subresource", ""), r.getString("name", ""));
    }
    JsonObject n = spec.getJsonObject("nonResourceAttributes");
    return new Attributes(user, n.getString("verb", ""), false, n.getString("path", ""), "", "", "", "", "", "");
  }

  private static JsonObject answer(JsonObject body, String kind, Decision d) {
    JsonObject status = new JsonObject().put("allowed", d.allowed());
    if (d.verdict() == Decision.Verdict.DENY) {
      status.put("denied", true);
    }
    if (!d.reason().isEmpty()) {
      status.put("reason", d.reason());
    }
    return envelope(body, kind).put("status", status);
  }

  static JsonObject envelope(JsonObject body, String kind) {
    JsonObject md = body.getJsonObject("metadata", new JsonObject()).copy();
    if (!md.containsKey("creationTimestamp")) {
      md.putNull("creationTimestamp");
    }
    return body.copy().put("kind", kind).put("apiVersion", body.getString("apiVersion", API_VERSION))
        .put("metadata", md);
  }
}
