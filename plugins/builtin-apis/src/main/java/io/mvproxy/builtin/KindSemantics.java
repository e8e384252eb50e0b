package io.mvproxy.builtin;

import io.mvproxy.builtin.proto.TimeFields;
import io.mvproxy.registry.impl.rest.CrdRequest;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.mvproxy.registry.impl.rest.PatchMeta;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * What a built-in kind's upstream strategy declares beyond its own rules: whether a PUT may leave out the
 * resourceVersion or create the object ({@link #UNCONDITIONAL_UPDATE}, {@link #CREATE_ON_UPDATE}), whether the server sets
 * {@code metadata.generation} (only kinds with spec semantics: the strategies of {@code ingresses} and
 * {@code customresourcedefinitions} set it, those of {@code pkg/registry/core/configmap}, {@code secret},
 * {@code namespace}, {@code serviceaccount}, {@code event}, {@code coordination/lease} and {@code rbac/*} never do),
 * and the strategic-merge-patch tags of its Go types ({@code k8s.io/api} {@code core/v1/types.go},
 * {@code rbac/v1/types.go}, {@code coordination/v1/types.go}, {@code admissionregistration/v1/types.go}; ObjectMeta's
 * for every kind): a built-in kind accepts
 * {@code application/strategic-merge-patch+json}, lists without tags (RBAC {@code rules} and {@code subjects},
 * {@code imagePullSecrets}, {@code spec.finalizers}) are replaced whole; and its time fields are read as Go's typed
 * decoder reads them ({@link #readTypedFields}).
 */
final class KindSemantics implements ObjectStrategy {
  /** Built-in resources whose upstream strategy sets generation 1 on create and bumps it on spec changes. */
  static final Set<String> SETS_GENERATION = Set.of("ingresses", "customresourcedefinitions",
      "validatingwebhookconfigurations", "mutatingwebhookconfigurations", "validatingadmissionpolicies",
      "validatingadmissionpolicybindings");
  /**
   * Built-in resources whose upstream strategy's {@code AllowUnconditionalUpdate} is true ({@code
   * pkg/registry/core/configmap}, {@code secret}, {@code namespace}, {@code serviceaccount}, {@code event} and
   * {@code rbac/*} strategy.go); Leases, CRDs, APIServices and the admission kinds require a resourceVersion.
   */
  static final Set<String> UNCONDITIONAL_UPDATE = Set.of("configmaps", "secrets", "namespaces", "serviceaccounts",
      "events", "roles", "clusterroles", "rolebindings", "clusterrolebindings");
  /**
   * Built-in resources whose upstream strategy's {@code AllowCreateOnUpdate} is true ({@code rbac/*},
   * {@code coordination/lease} and {@code core/event} strategy.go; both Event APIs share the core storage).
   */
  static final Set<String> CREATE_ON_UPDATE = Set.of("roles", "clusterroles", "rolebindings", "clusterrolebindings",
      "leases", "events");
  /** Per resource, the tagged fields of its type beyond ObjectMeta's: path to {@code strategy[:mergeKey]}. */
  static final Map<String, Map<String, String>> PATCH_TAGS = Map.of(
      // NamespaceStatus.Conditions: patchStrategy:"merge" patchMergeKey:"type"
      "namespaces", Map.of("status.conditions", "merge:type"),
      // ServiceAccount.Secrets: patchStrategy:"merge" patchMergeKey:"name"
      "serviceaccounts", Map.of("secrets", "merge:name"),
      // admissionregistration/v1 ValidatingWebhookConfiguration.Webhooks and ValidatingWebhook.MatchConditions (the
      // mutating ones alike): patchStrategy:"merge" patchMergeKey:"name"
      "validatingwebhookconfigurations", Map.of("webhooks", "merge:name", "webhooks.matchConditions", "merge:name"),
      "mutatingwebhookconfigurations", Map.of("webhooks", "merge:name", "webhooks.matchConditions", "merge:name"));
  private final String plural;
  private final PatchMeta patchMeta;

  /** @param plural the built-in resource */
  KindSemantics(String plural) {
    this.plural = plural;
    Map<String, String> tags = new HashMap<>(PatchMeta.OBJECT_META_TAGS);
    tags.putAll(PATCH_TAGS.getOrDefault(plural, Map.of()));
    this.patchMeta = PatchMeta.of(tags);
  }

  /** @return true: built-in kinds are decoded into typed objects (400 for a wrong JSON type in their fields) */
  @Override
  public boolean typedDecoding() {
    return true;
  }

  /**
   * The kind's {@code metav1.Time} / {@code metav1.MicroTime} fields, ObjectMeta's included, parsed as Go does and
   * rewritten in Go's output form ({@link TimeFields}).
   *
   * @return null, or Go's parse error ({@code parsing time "bad" as "2006-01-02T15:04:05Z07:00": cannot parse "bad"
   *     as "2006"}), answered as a 400 decoding error
   */
  @Override
  public String readTypedFields(CrdRequest req, JsonObject obj) {
    return TimeFields.normalize(req.crd().group(), req.crd().kind(), obj);
  }

  /** @return the kind's struct tags (ObjectMeta's plus {@link #PATCH_TAGS}) */
  @Override
  public PatchMeta strategicMergePatch() {
    return patchMeta;
  }

  /** @return true only for {@link #UNCONDITIONAL_UPDATE} */
  @Override
  public boolean allowUnconditionalUpdate() {
    return UNCONDITIONAL_UPDATE.contains(plural);
  }

  /** @return true only for {@link #CREATE_ON_UPDATE} */
  @Override
  public boolean allowCreateOnUpdate() {
    return CREATE_ON_UPDATE.contains(plural);
  }

  /** @return true only for {@link #SETS_GENERATION} */
  @Override
  public boolean setsGeneration() {
    return SETS_GENERATION.contains(plural);
  }
}
