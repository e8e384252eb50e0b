package io.mvproxy.builtin;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.authz.AccessControl;
import io.mvproxy.registry.impl.admission.WebhookConfigurations;
import io.mvproxy.registry.impl.rest.CrdRequest;
import io.mvproxy.registry.impl.rest.ObjectMetaValidator;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.mvproxy.registry.impl.schema.FieldError;
import io.mvproxy.registry.impl.schema.GoValues;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * The escalation checks of RBAC writes ({@code pkg/registry/rbac/*}/policybased/storage.go), the field rules of
 * {@code pkg/apis/rbac/validation/validation.go} beyond the schema ({@link #validate}) and the immutable
 * {@code roleRef} of bindings.
 */
public final class Rbac implements ObjectStrategy {
  private static final String GROUP = "rbac.authorization.k8s.io";
  private final AccessControl access;
  private final boolean binding;

  /**
   * @param access  the node's authorization
   * @param binding true for (Cluster)RoleBindings, false for (Cluster)Roles
   */
  public Rbac(AccessControl access, boolean binding) {
    this.access = access;
    this.binding = binding;
  }

  /**
   * RBAC names are path segments ({@code ValidateRBACName}: {@code path.IsValidPathSegmentName}), e.g.
   * {@code system:foo}.
   */
  @Override
  public java.util.List<String> nameProblems(String name) {
    return io.mvproxy.registry.impl.rest.ObjectMetaValidator.pathSegmentName(name);
  }

  /**
   * A {@code generateName} of an RBAC object: the name rule itself ({@code ValidateRBACName} ignores its
   * {@code prefix} flag: {@code path.IsValidPathSegmentName}, so {@code .} and {@code ..} are refused too).
   */
  @Override
  public java.util.List<String> prefixProblems(String prefix) {
    return io.mvproxy.registry.impl.rest.ObjectMetaValidator.pathSegmentName(prefix);
  }

  /** @return true: {@code ValidateRoleUpdate} and the other RBAC updates validate the whole object again */
  @Override
  public boolean validatesMetaOnUpdate() {
    return true;
  }

  /**
   * The escalation check, then the field rules ({@link #validate}), in the order of upstream's policybased
   * {@code storage.go Create}: {@code ConfirmNoEscalation} before {@code rest.BeforeCreate}'s validation.
   */
  @Override
  public Future<Void> admitCreate(CrdRequest req, JsonObject obj) {
    try {
      check(req, obj, null);
      req.failIfInvalid(obj, validate(obj, req.crd().namespaced()));
      return Future.succeededFuture();
    } catch (StatusException e) {
      return Future.failedFuture(e);
    }
  }

  /**
   * Sets the defaults of a binding as the typed decoder does ({@code rbac/v1/defaults.go}): {@code roleRef.apiGroup}
   * {@code rbac.authorization.k8s.io} when empty ({@code SetDefaults_RoleBinding}, {@code ..._ClusterRoleBinding}),
   * and a subject's empty {@code apiGroup} {@code rbac.authorization.k8s.io} for a {@code User} or {@code Group}
   * ({@code SetDefaults_Subject}; a {@code ServiceAccount}'s stays empty).
   */
  static JsonObject setDefaults(JsonObject obj) {
    if (obj.getValue("roleRef") == null) {
      obj.put("roleRef", new JsonObject()); // a struct value in Go: an absent roleRef is an empty one, then defaulted
    }
    if (obj.getValue("roleRef") instanceof JsonObject ref
        && (ref.getValue("apiGroup") == null || "".equals(ref.getValue("apiGroup")))) {
      ref.put("apiGroup", GROUP);
    }
    if (obj.getValue("subjects") instanceof JsonArray subjects) {
      for (Object s : subjects) {
        if (s instanceof JsonObject subject
            && (subject.getValue("apiGroup") == null || "".equals(subject.getValue("apiGroup")))
            && ("User".equals(subject.getValue("kind")) || "Group".equals(subject.getValue("kind")))) {
          subject.put("apiGroup", GROUP);
        }
      }
    }
    return obj;
  }

  /** @return true: core's {@code ValidateObjectMeta} checks this kind's finalizer names */
  @Override
  public boolean kubeFinalizerNames() {
    return true;
  }

  /** The field rules ({@link #validate}) of a defaulted copy ({@link ObjectStrategy#violations}). */
  @Override
  public JsonArray violations(CrdRequest req, JsonObject obj, JsonObject oldView) {
    JsonObject o = obj.copy();
    return FieldError.causes(validate(binding ? setDefaults(o) : o, req.crd().namespaced()));
  }

  @Override
  public JsonObject prepareCreate(CrdRequest req, JsonObject obj) {
    return binding ? setDefaults(obj) : obj;
  }

  /**
   * Defaults, the escalation check (upstream's {@code WrapUpdatedObjectInfo} in the policybased storage), then the
   * field rules and the immutable {@code roleRef} ({@code ValidateRoleBindingUpdate}).
   */
  @Override
  public JsonObject prepareUpdate(CrdRequest req, JsonObject old, JsonObject next) {
    if (binding) {
      setDefaults(next);
    }
    check(req, next, old);
    List<FieldError> errs = new ArrayList<>(validate(next, req.crd().namespaced()));
    JsonObject oldRef = old.getJsonObject("roleRef", new JsonObject());
    if (binding && !oldRef.equals(next.getJsonObject("roleRef"))) {
      errs.add(FieldError.invalid("roleRef", roleRefValue(next.getValue("roleRef")), "cannot change roleRef"));
    }
    req.failIfInvalid(next, errs);
    return next;
  }

  /**
   * The field rules of {@code pkg/apis/rbac/validation/validation.go} the schema does not express:
   * {@code ValidatePolicyRule} for each rule of a Role ({@code namespaced}) or ClusterRole (and its
   * {@code aggregationRule}'s selectors: at least one, each a valid label selector); for a binding, {@code roleRef} (apiGroup {@code
   * rbac.authorization.k8s.io}, kind {@code Role} or {@code ClusterRole}, a ClusterRoleBinding's only
   * {@code ClusterRole}, a path-segment name) and each subject ({@code ValidateRoleBindingSubject}: a name; a
   * ServiceAccount's a DNS subdomain, without apiGroup, with a namespace in a ClusterRoleBinding; a User's or Group's
   * apiGroup {@code rbac.authorization.k8s.io}; no other kind).
   *
   * @param obj        the object after defaulting ({@link #setDefaults})
   * @param namespaced true for Role and RoleBinding
   * @return the violations, in upstream's order
   */
  List<FieldError> validate(JsonObject obj, boolean namespaced) {
    List<FieldError> errs = new ArrayList<>();
    if (!binding) {
      JsonArray rules = obj.getValue("rules") instanceof JsonArray a ? a : new JsonArray();
      for (int i = 0; i < rules.size(); i++) {
        if (rules.getValue(i) instanceof JsonObject rule) {
          validateRule(rule, namespaced, "rules[" + i + "]", errs);
        }
      }
      if (obj.getValue("aggregationRule") instanceof JsonObject agg) {
        JsonArray selectors = agg.getValue("clusterRoleSelectors") instanceof JsonArray a ? a : new JsonArray();
        if (selectors.isEmpty()) {
          errs.add(FieldError.required("aggregationRule.clusterRoleSelectors",
              "at least one clusterRoleSelector required if aggregationRule is non-nil"));
        }
        for (int i = 0; i < selectors.size(); i++) {
          String path = "aggregationRule.clusterRoleSelectors[" + i + "]";
          int before = errs.size();
          WebhookConfigurations.validateSelector(selectors.getValue(i), path, errs);
          if (errs.size() > before) { // metav1.LabelSelectorAsSelector fails on the same selectors
            errs.add(FieldError.invalid(path, null, "invalid label selector."));
          }
        }
      }
      return errs;
    }
    JsonObject ref = obj.getValue("roleRef") instanceof JsonObject r ? r : new JsonObject();
    String apiGroup = str(ref, "apiGroup");
    if (!GROUP.equals(apiGroup)) {
      errs.add(FieldError.notSupported("roleRef.apiGroup", apiGroup, List.of(GROUP)));
    }
    String kind = str(ref, "kind");
    List<String> kinds = namespaced ? List.of("Role", "ClusterRole") : List.of("ClusterRole");
    if (!kinds.contains(kind)) {
      errs.add(FieldError.notSupported("roleRef.kind", kind, kinds));
    }
    String refName = str(ref, "name");
    if (refName.isEmpty()) {
      errs.add(FieldError.required("roleRef.name", ""));
    } else {
      for (String msg : ObjectMetaValidator.pathSegmentName(refName)) {
        errs.add(FieldError.invalid("roleRef.name", refName, msg));
      }
    }
    JsonArray subjects = obj.getValue("subjects") instanceof JsonArray a ? a : new JsonArray();
    for (int i = 0; i < subjects.size(); i++) {
      if (subjects.getValue(i) instanceof JsonObject subject) {
        validateSubject(subject, namespaced, "subjects[" + i + "]", errs);
      }
    }
    return errs;
  }

  /** {@code ValidatePolicyRule}. */
  private static void validateRule(JsonObject rule, boolean namespaced, String path, List<FieldError> errs) {
    if (size(rule, "verbs") == 0) {
      errs.add(FieldError.required(path + ".verbs", "verbs must contain at least one value"));
    }
    if (size(rule, "nonResourceURLs") > 0) {
      GoValues.Raw urls = stringSlice(rule.getJsonArray("nonResourceURLs"));
      if (namespaced) {
        errs.add(FieldError.invalid(path + ".nonResourceURLs", urls,
            "namespaced rules cannot apply to non-resource URLs"));
      }
      if (size(rule, "apiGroups") > 0 || size(rule, "resources") > 0 || size(rule, "resourceNames") > 0) {
        errs.add(FieldError.invalid(path + ".nonResourceURLs", urls,
            "rules cannot apply to both regular resources and non-resource URLs"));
      }
      return;
    }
    if (size(rule, "apiGroups") == 0) {
      errs.add(FieldError.required(path + ".apiGroups", "resource rules must supply at least one api group"));
    }
    if (size(rule, "resources") == 0) {
      errs.add(FieldError.required(path + ".resources", "resource rules must supply at least one resource"));
    }
  }

  /** {@code ValidateRoleBindingSubject}. */
  private static void validateSubject(JsonObject subject, boolean namespaced, String path, List<FieldError> errs) {
    String name = str(subject, "name");
    if (name.isEmpty()) {
      errs.add(FieldError.required(path + ".name", ""));
    }
    String apiGroup = str(subject, "apiGroup");
    String kind = str(subject, "kind");
    switch (kind) {
      case "ServiceAccount" -> {
        if (!name.isEmpty()) {
          for (String msg : ObjectMetaValidator.dns1123Subdomain(name)) {
            errs.add(FieldError.invalid(path + ".name", name, msg));
          }
        }
        if (!apiGroup.isEmpty()) {
          errs.add(FieldError.notSupported(path + ".apiGroup", apiGroup, List.of("")));
        }
        if (!namespaced && str(subject, "namespace").isEmpty()) {
          errs.add(FieldError.required(path + ".namespace", ""));
        }
      }
      case "User", "Group" -> {
        if (!GROUP.equals(apiGroup)) {
          errs.add(FieldError.notSupported(path + ".apiGroup", apiGroup, List.of(GROUP)));
        }
      }
      default -> errs.add(FieldError.notSupported(path + ".kind", kind, List.of("ServiceAccount", "User", "Group")));
    }
  }

  /** @return {@code %#v} of an {@code rbac.RoleRef}, as upstream shows a changed roleRef */
  static GoValues.Raw roleRefValue(Object roleRef) {
    JsonObject ref = roleRef instanceof JsonObject r ? r : new JsonObject();
    return new GoValues.Raw("rbac.RoleRef{APIGroup:" + GoValues.quote(str(ref, "apiGroup")) + ", Kind:"
        + GoValues.quote(str(ref, "kind")) + ", Name:" + GoValues.quote(str(ref, "name")) + "}");
  }

  /** @return {@code %#v} of a {@code []string} */
  private static GoValues.Raw stringSlice(JsonArray values) {
    StringBuilder sb = new StringBuilder("[]string{");
    for (int i = 0; i < values.size(); i++) {
      sb.append(i > 0 ? ", " : "").append(GoValues.quote(String.valueOf(values.getValue(i))));
    }
    return new GoValues.Raw(sb.append('}').toString());
  }

  private static String str(JsonObject o, String key) {
    return o.getValue(key) instanceof String v ? v : "";
  }

  private static int size(JsonObject o, String key) {
    return o.getValue(key) instanceof JsonArray a ? a.size() : 0;
  }

  private void check(CrdRequest req, JsonObject obj, JsonObject old) {
    String ns = req.crd().namespaced() ? req.namespace() : "";
    String name = obj.getJsonObject("metadata", new JsonObject()).getString("name", "");
    if (binding) {
      access.checkBindingWrite(req.user(), ns, name, obj.getJsonObject("roleRef", new JsonObject()));
    } else {
      access.checkRoleWrite(req.user(), ns, name, obj, old);
    }
  }
}
