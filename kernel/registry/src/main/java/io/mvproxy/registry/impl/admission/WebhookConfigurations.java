package io.mvproxy.registry.impl.admission;

import io.mvproxy.registry.impl.rest.ObjectMetaValidator;
import io.mvproxy.registry.impl.schema.FieldError;
import io.mvproxy.registry.impl.schema.GoValues;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Defaults and validation of {@code admissionregistration.k8s.io/v1} ValidatingWebhookConfiguration and
 * MutatingWebhookConfiguration, as kube-apiserver's {@code pkg/apis/admissionregistration/v1/defaults.go}
 * ({@code SetDefaults_ValidatingWebhook}, {@code SetDefaults_MutatingWebhook}, {@code SetDefaults_Rule},
 * {@code SetDefaults_ServiceReference}) and {@code pkg/apis/admissionregistration/validation/validation.go}
 * ({@code ValidateValidatingWebhookConfiguration}, {@code ValidateMutatingWebhookConfiguration}).
 */
public final class WebhookConfigurations {
  /** Kind of the validating configurations. */
  public static final String VALIDATING = "ValidatingWebhookConfiguration";
  /** Kind of the mutating configurations. */
  public static final String MUTATING = "MutatingWebhookConfiguration";
  /** AdmissionReview versions this server speaks (kube-apiserver: v1 and v1beta1; here v1 is sent). */
  static final List<String> REVIEW_VERSIONS = List.of("v1", "v1beta1");
  /** Most matchConditions one webhook may have. */
  static final int MAX_MATCH_CONDITIONS = 64;

  private WebhookConfigurations() {
  }

  /**
   * Fills kube-apiserver's v1 defaults in place: {@code failurePolicy: Fail}, {@code matchPolicy: Equivalent},
   * {@code namespaceSelector: {}}, {@code objectSelector: {}}, {@code timeoutSeconds: 10}, each rule's
   * {@code scope: "*"}, {@code clientConfig.service.port: 443}, and for mutating webhooks
   * {@code reinvocationPolicy: Never}.
   *
   * @param config   the configuration object (changed)
   * @param mutating true for a MutatingWebhookConfiguration
   * @return {@code config}
   */
  public static JsonObject setDefaults(JsonObject config, boolean mutating) {
    if (!(config.getValue("webhooks") instanceof JsonArray hooks)) {
      return config;
    }
    for (Object o : hooks) {
      if (!(o instanceof JsonObject h)) {
        continue;
      }
      putIfAbsent(h, "failurePolicy", "Fail");
      putIfAbsent(h, "matchPolicy", "Equivalent");
      putIfAbsent(h, "namespaceSelector", new JsonObject());
      putIfAbsent(h, "objectSelector", new JsonObject());
      putIfAbsent(h, "timeoutSeconds", 10);
      if (mutating) {
        putIfAbsent(h, "reinvocationPolicy", "Never");
      }
      if (h.getValue("rules") instanceof JsonArray rules) {
        for (Object r : rules) {
          if (r instanceof JsonObject rule) {
            putIfAbsent(rule, "scope", "*");
          }
        }
      }
      if (h.getValue("clientConfig") instanceof JsonObject cc && cc.getValue("service") instanceof JsonObject svc) {
        putIfAbsent(svc, "port", 443);
      }
    }
    return config;
  }

  private static void putIfAbsent(JsonObject o, String key, Object value) {
    if (o.getValue(key) == null) {
      o.put(key, value);
    }
  }

  /**
   * Validates a defaulted configuration (not its metadata, which the generic path checks).
   *
   * @param config   the configuration
   * @param mutating true for a MutatingWebhookConfiguration
   * @return the errors, empty when valid
   */
  public static List<FieldError> validate(JsonObject config, boolean mutating) {
    List<FieldError> errs = new ArrayList<>();
    Object hooksValue = config.getValue("webhooks");
    if (hooksValue == null) {
      return errs;
    }
    if (!(hooksValue instanceof JsonArray hooks)) {
      errs.add(FieldError.invalid("webhooks", hooksValue, "must be a list"));
      return errs;
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < hooks.size(); i++) {
      String path = "webhooks[" + i + "]";
      if (!(hooks.getValue(i) instanceof JsonObject h)) {
        errs.add(FieldError.invalid(path, hooks.getValue(i), "must be an object"));
        continue;
      }
      String name = h.getValue("name") instanceof String s ? s : "";
      if (!name.isEmpty() && !names.add(name)) {
        errs.add(FieldError.duplicate(path + ".name", name));
      }
      validateWebhook(h, path, mutating, errs);
    }
    return errs;
  }

  private static void validateWebhook(JsonObject h, String path, boolean mutating, List<FieldError> errs) {
    String name = h.getValue("name") instanceof String s ? s : "";
    if (name.isEmpty()) {
      errs.add(FieldError.required(path + ".name", ""));
    } else {
      List<String> problems = ObjectMetaValidator.dns1123Subdomain(name);
      if (!problems.isEmpty()) {
        errs.add(FieldError.invalid(path + ".name", name, String.join("; ", problems)));
      } else if (name.split("\\.", -1).length < 3) {
        errs.add(FieldError.invalid(path + ".name", name, "should be a domain with at least three segments "
            + "separated by dots"));
      }
    }
    JsonArray rules = h.getValue("rules") instanceof JsonArray r ? r : new JsonArray();
    for (int j = 0; j < rules.size(); j++) {
      validateRule(rules.getValue(j), path + ".rules[" + j + "]", errs);
    }
    notSupported(h, "failurePolicy", path, List.of("Fail", "Ignore"), errs);
    notSupported(h, "matchPolicy", path, List.of("Equivalent", "Exact"), errs);
    Object se = h.getValue("sideEffects");
    if (se == null || "".equals(se)) {
      errs.add(FieldError.required(path + ".sideEffects", "must specify one of None, NoneOnDryRun"));
    } else {
      notSupported(h, "sideEffects", path, List.of("None", "NoneOnDryRun"), errs);
    }
    if (mutating) {
      notSupported(h, "reinvocationPolicy", path, List.of("IfNeeded", "Never"), errs);
    }
    Object ts = h.getValue("timeoutSeconds");
    if (ts != null && (!(ts instanceof Number n) || n.longValue() < 1 || n.longValue() > 30)) {
      errs.add(FieldError.invalid(path + ".timeoutSeconds", ts, "the timeout value must be between 1 and 30 "
          + "seconds"));
    }
    validateReviewVersions(h.getValue("admissionReviewVersions"), path + ".admissionReviewVersions", errs);
    validateSelector(h.getValue("namespaceSelector"), path + ".namespaceSelector", errs);
    validateSelector(h.getValue("objectSelector"), path + ".objectSelector", errs);
    validateClientConfig(h.getValue("clientConfig"), path + ".clientConfig", errs);
    validateMatchConditions(h.getValue("matchConditions"), path + ".matchConditions", errs);
  }

  private static void notSupported(JsonObject h, String key, String path, List<String> valid,
                                   List<FieldError> errs) {
    Object v = h.getValue(key);
    if (v != null && !valid.contains(v)) {
      errs.add(FieldError.notSupported(path + "." + key, v, valid));
    }
  }

  private static void validateReviewVersions(Object v, String path, List<FieldError> errs) {
    if (!(v instanceof JsonArray versions) || versions.isEmpty()) {
      errs.add(FieldError.required(path, "must specify one of v1, v1beta1"));
      return;
    }
    boolean known = false;
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < versions.size(); i++) {
      Object o = versions.getValue(i);
      String s = o instanceof String str ? str : "";
      if (s.isEmpty()) {
        errs.add(FieldError.required(path + "[" + i + "]", ""));
        continue;
      }
      List<String> problems = ObjectMetaValidator.dns1035Label(s);  // validateAdmissionReviewVersions
      if (!problems.isEmpty()) {
        errs.add(FieldError.invalid(path + "[" + i + "]", s, String.join("; ", problems)));
      }
      if (!seen.add(s)) {
        errs.add(FieldError.invalid(path + "[" + i + "]", s, "duplicate version"));
      }
      known |= REVIEW_VERSIONS.contains(s);
    }
    if (!known) {
      errs.add(FieldError.invalid(path, GoValues.stringSlice(versions), "must include at least one of v1, v1beta1"));
    }
  }

  private static void validateRule(Object value, String path, List<FieldError> errs) {
    if (!(value instanceof JsonObject rule)) {
      errs.add(FieldError.invalid(path, value, "must be an object"));
      return;
    }
    JsonArray ops = rule.getValue("operations") instanceof JsonArray a ? a : new JsonArray();
    if (ops.isEmpty()) {
      errs.add(FieldError.required(path + ".operations", ""));
    }
    if (ops.size() > 1 && ops.contains("*")) {
      errs.add(FieldError.invalid(path + ".operations", ops, "if '*' is present, must not specify other "
          + "operations"));
    }
    List<String> validOps = List.of("*", "CONNECT", "CREATE", "DELETE", "UPDATE");
    for (int i = 0; i < ops.size(); i++) {
      if (!validOps.contains(ops.getValue(i))) {
        errs.add(FieldError.notSupported(path + ".operations[" + i + "]", ops.getValue(i), validOps));
      }
    }
    JsonArray groups = rule.getValue("apiGroups") instanceof JsonArray a ? a : new JsonArray();
    if (groups.isEmpty()) {
      errs.add(FieldError.required(path + ".apiGroups", ""));
    }
    if (groups.size() > 1 && groups.contains("*")) {
      errs.add(FieldError.invalid(path + ".apiGroups", groups, "if '*' is present, must not specify other API "
          + "groups"));
    }
    JsonArray versions = rule.getValue("apiVersions") instanceof JsonArray a ? a : new JsonArray();
    if (versions.isEmpty()) {
      errs.add(FieldError.required(path + ".apiVersions", ""));
    }
    if (versions.size() > 1 && versions.contains("*")) {
      errs.add(FieldError.invalid(path + ".apiVersions", versions, "if '*' is present, must not specify other "
          + "API versions"));
    }
    for (int i = 0; i < versions.size(); i++) {
      if ("".equals(versions.getValue(i))) {
        errs.add(FieldError.required(path + ".apiVersions[" + i + "]", ""));
      }
    }
    JsonArray resources = rule.getValue("resources") instanceof JsonArray a ? a : new JsonArray();
    validateResources(resources, path + ".resources", errs);
    Object scope = rule.getValue("scope");
    List<String> scopes = List.of("*", "Cluster", "Namespaced");
    if (scope != null && !scopes.contains(scope)) {
      errs.add(FieldError.notSupported(path + ".scope", scope, scopes));
    }
  }

  /**
   * Upstream's {@code validateResources} ({@code pkg/apis/admissionregistration/validation/validation.go}), as it is:
   * {@code res}, {@code res/sub}, {@code *}, {@code * /sub}, {@code res/*}; an item that overlaps an earlier
   * {@code res/*} or {@code * /sub} is invalid; {@code * /*} must be alone; {@code *} with a resource without
   * subresource is invalid, where (as upstream's assignment does) only the last item without a subresource counts:
   * {@code ["*", "* /scale"]} and {@code ["pods", "*"]} are valid, {@code ["*", "pods"]} is not.
   */
  private static void validateResources(JsonArray resources, String path, List<FieldError> errs) {
    if (resources.isEmpty()) {
      errs.add(FieldError.required(path, ""));
    }
    Set<String> resourcesWithWildcardSubresources = new HashSet<>();
    Set<String> subresourcesWithWildcardResource = new HashSet<>();
    boolean hasDoubleWildcard = false;
    boolean hasSingleWildcard = false;
    boolean hasResourceWithoutSubresource = false;
    for (int i = 0; i < resources.size(); i++) {
      String p = path + "[" + i + "]";
      String r = resources.getValue(i) instanceof String s ? s : "";
      if (r.isEmpty()) {
        errs.add(FieldError.required(p, ""));
        continue;
      }
      hasDoubleWildcard |= "*/*".equals(r);
      hasSingleWildcard |= "*".equals(r);
      String[] parts = r.split("/", 2);
      if (parts.length == 1) {
        hasResourceWithoutSubresource = !"*".equals(r);
        continue;
      }
      String res = parts[0];
      String sub = parts[1];
      if (resourcesWithWildcardSubresources.contains(res)) {
        errs.add(FieldError.invalid(p, r, "if '" + res + "/*' is present, must not specify " + r));
      }
      if (subresourcesWithWildcardResource.contains(sub)) {
        errs.add(FieldError.invalid(p, r, "if '*/" + sub + "' is present, must not specify " + r));
      }
      if ("*".equals(sub)) {
        resourcesWithWildcardSubresources.add(res);
      }
      if ("*".equals(res)) {
        subresourcesWithWildcardResource.add(sub);
      }
    }
    if (resources.size() > 1 && hasDoubleWildcard) {
      errs.add(FieldError.invalid(path, GoValues.stringSlice(resources), "if '*/*' is present, must not specify other "
          + "resources"));
    }
    if (hasSingleWildcard && hasResourceWithoutSubresource) {
      errs.add(FieldError.invalid(path, GoValues.stringSlice(resources), "if '*' is present, must not specify other "
          + "resources without subresources"));
    }
  }

  /**
   * A label selector as apimachinery's {@code ValidateLabelSelector}: {@code matchLabels} keys qualified names and
   * values label values, each expression's operator with its values rule and a qualified-name key.
   *
   * @param v    the selector (null: nothing to check)
   * @param path its field path
   * @param errs receives the errors
   */
  public static void validateSelector(Object v, String path, List<FieldError> errs) {
    if (v == null) {
      return;
    }
    if (!(v instanceof JsonObject sel)) {
      errs.add(FieldError.invalid(path, v, "must be a label selector"));
      return;
    }
    if (sel.getValue("matchLabels") instanceof JsonObject ml) {
      for (String k : ml.fieldNames()) {
        List<String> kp = ObjectMetaValidator.qualifiedName(k);
        if (!kp.isEmpty()) {
          errs.add(FieldError.invalid(path + ".matchLabels", k, String.join("; ", kp)));
        }
        Object val = ml.getValue(k);
        List<String> vp = val instanceof String s ? ObjectMetaValidator.labelValue(s) : List.of("must be a string");
        if (!vp.isEmpty()) {
          errs.add(FieldError.invalid(path + ".matchLabels", val, String.join("; ", vp)));
        }
      }
    }
    if (sel.getValue("matchExpressions") instanceof JsonArray exprs) {
      for (int i = 0; i < exprs.size(); i++) {
        String p = path + ".matchExpressions[" + i + "]";
        if (!(exprs.getValue(i) instanceof JsonObject e)) {
          errs.add(FieldError.invalid(p, exprs.getValue(i), "must be an object"));
          continue;
        }
        String op = e.getValue("operator") instanceof String s ? s : "";
        JsonArray values = e.getValue("values") instanceof JsonArray a ? a : new JsonArray();
        switch (op) {
          case "In", "NotIn" -> {
            if (values.isEmpty()) {
              errs.add(FieldError.required(p + ".values", "must be specified when `operator` is 'In' or "
                  + "'NotIn'"));
            }
          }
          case "Exists", "DoesNotExist" -> {
            if (!values.isEmpty()) {
              errs.add(FieldError.forbidden(p + ".values", "may not be specified when `operator` is 'Exists' or "
                  + "'DoesNotExist'"));
            }
          }
          default -> errs.add(FieldError.invalid(p + ".operator", op, "not a valid selector operator"));
        }
        String key = e.getValue("key") instanceof String s ? s : "";
        List<String> kp = ObjectMetaValidator.qualifiedName(key);
        if (!kp.isEmpty()) {
          errs.add(FieldError.invalid(p + ".key", key, String.join("; ", kp)));
        }
      }
    }
  }

  /**
   * Validates a webhook {@code clientConfig} as apiserver's {@code pkg/util/webhook/validation.go}
   * ({@code ValidateWebhookURL} with https forced, {@code ValidateWebhookService}) plus a base64 {@code caBundle}.
   *
   * @param v    the clientConfig value
   * @param path its field path
   * @param errs receives the errors
   */
  public static void validateClientConfig(Object v, String path, List<FieldError> errs) {
    JsonObject cc = v instanceof JsonObject o ? o : new JsonObject();
    Object url = cc.getValue("url");
    Object svc = cc.getValue("service");
    if ((url == null) == (svc == null)) {
      errs.add(FieldError.required(path, "exactly one of url or service is required"));
      return;
    }
    if (url != null) {
      validateUrl(url instanceof String s ? s : "", path + ".url", errs);
    } else {
      JsonObject s = svc instanceof JsonObject o ? o : new JsonObject();
      if (!(s.getValue("name") instanceof String n) || n.isEmpty()) {
        errs.add(FieldError.required(path + ".service.name", "service name is required"));
      }
      if (!(s.getValue("namespace") instanceof String n) || n.isEmpty()) {
        errs.add(FieldError.required(path + ".service.namespace", "service namespace is required"));
      }
      Object port = s.getValue("port");
      if (port != null && (!(port instanceof Number n) || n.longValue() < 1 || n.longValue() > 65535)) {
        errs.add(FieldError.invalid(path + ".service.port", port, "port is not valid: must be between 1 and 65535, "
            + "inclusive"));
      }
      Object p = s.getValue("path");
      if (p != null) {
        validateServicePath(p instanceof String ps ? ps : String.valueOf(p), path + ".service.path", errs);
      }
    }
    Object ca = cc.getValue("caBundle");
    if (ca != null && !(ca instanceof String)) {
      errs.add(FieldError.invalid(path + ".caBundle", ca, "must be a base64 string"));
    } else if (ca instanceof String s && !s.isEmpty()) {
      try {
        java.util.Base64.getDecoder().decode(s);
      } catch (IllegalArgumentException e) {
        errs.add(FieldError.invalid(path + ".caBundle", s, "illegal base64 data"));
      }
    }
  }

  /**
   * {@code clientConfig.url} as apiserver's {@code util/webhook.ValidateWebhookURL} (with {@code forceHttps}): every
   * problem reported, each naming the offending part (scheme, host, user information, fragment, query).
   */
  static void validateUrl(String u, String field, List<FieldError> errs) {
    String form = "; desired format: https://host[/path]";
    URI uri;
    try {
      uri = new URI(u);
    } catch (URISyntaxException e) {
      errs.add(FieldError.required(field, "url must be a valid URL: " + e.getMessage() + form));
      return;
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme();
    if (!"https".equals(scheme)) {
      errs.add(FieldError.invalid(field, scheme, "'https' is the only allowed URL scheme" + form));
    }
    String authority = uri.getRawAuthority() == null ? "" : uri.getRawAuthority();
    String host = authority.substring(authority.lastIndexOf('@') + 1);
    if (host.isEmpty()) {
      errs.add(FieldError.invalid(field, host, "host must be provided" + form));
    }
    if (uri.getRawUserInfo() != null) {
      errs.add(FieldError.invalid(field, uri.getRawUserInfo(), "user information is not permitted in the URL"));
    }
    if (uri.getRawFragment() != null && !uri.getRawFragment().isEmpty()) {
      errs.add(FieldError.invalid(field, uri.getRawFragment(), "fragments are not permitted in the URL"));
    }
    if (uri.getRawQuery() != null && !uri.getRawQuery().isEmpty()) {
      errs.add(FieldError.invalid(field, uri.getRawQuery(), "query parameters are not permitted in the URL"));
    }
  }

  /** {@code clientConfig.service.path} as apiserver's {@code ValidateWebhookService}: DNS-1123 subdomain segments. */
  static void validateServicePath(String urlPath, String field, List<FieldError> errs) {
    if (urlPath.isEmpty() || urlPath.equals("/")) {
      return;
    }
    if (urlPath.equals("//")) {
      errs.add(FieldError.invalid(field, urlPath, "segment[0] may not be empty"));
      return;
    }
    if (!urlPath.startsWith("/")) {
      errs.add(FieldError.invalid(field, urlPath, "must start with a '/'"));
    }
    String check = urlPath.substring(1);
    if (check.endsWith("/")) {
      check = check.substring(0, check.length() - 1);
    }
    String[] steps = check.split("/", -1);
    for (int i = 0; i < steps.length; i++) {
      if (steps[i].isEmpty()) {
        errs.add(FieldError.invalid(field, urlPath, "segment[" + i + "] may not be empty"));
        continue;
      }
      for (String failure : ObjectMetaValidator.dns1123Subdomain(steps[i])) {
        errs.add(FieldError.invalid(field, urlPath, "segment[" + i + "]: " + failure));
      }
    }
  }

  private static void validateMatchConditions(Object v, String path, List<FieldError> errs) {
    if (v == null) {
      return;
    }
    if (!(v instanceof JsonArray conds)) {
      errs.add(FieldError.invalid(path, v, "must be a list"));
      return;
    }
    if (conds.size() > MAX_MATCH_CONDITIONS) {
      errs.add(FieldError.tooMany(path, conds.size(), MAX_MATCH_CONDITIONS));
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < conds.size(); i++) {
      String p = path + "[" + i + "]";
      if (!(conds.getValue(i) instanceof JsonObject c)) {
        errs.add(FieldError.invalid(p, conds.getValue(i), "must be an object"));
        continue;
      }
      String name = c.getValue("name") instanceof String s ? s : "";
      if (name.isEmpty()) {
        errs.add(FieldError.required(p + ".name", ""));
      } else {
        List<String> problems = ObjectMetaValidator.qualifiedName(name);
        if (!problems.isEmpty()) {
          errs.add(FieldError.invalid(p + ".name", name, String.join("; ", problems)));
        }
        if (!names.add(name)) {
          errs.add(FieldError.duplicate(p + ".name", name));
        }
      }
      String expr = c.getValue("expression") instanceof String s ? s : "";
      if (expr.isEmpty()) {
        errs.add(FieldError.required(p + ".expression", ""));
      } else {
        String problem = MatchConditions.compileError(expr);
        if (problem != null) {
          errs.add(FieldError.invalid(p + ".expression", expr, problem));
        }
      }
    }
  }
}
