package io.mvproxy.builtin.proto;

import static io.mvproxy.builtin.proto.ProtoField.list;
import static io.mvproxy.builtin.proto.ProtoField.msg;
import static io.mvproxy.builtin.proto.ProtoField.msgs;
import static io.mvproxy.builtin.proto.ProtoField.of;

import io.mvproxy.builtin.proto.ProtoField.Type;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Field numbers of the built-in kinds mvproxy serves, as in the {@code generated.proto} files of
 * {@code k8s.io/apimachinery/pkg/apis/meta/v1}, {@code k8s.io/api/core/v1}, {@code rbac/v1},
 * {@code coordination/v1}, {@code events/v1}, {@code authorization/v1} and {@code authentication/v1}. Fields
 * not listed are skipped when decoding.
 */
final class ProtoSchemas {
  private static final Map<String, List<ProtoField>> MESSAGES = new HashMap<>();
  /** {@code group/Kind} (group {@code ""} for core) to top-level message name. */
  private static final Map<String, String> KINDS = new HashMap<>();

  static {
    m("ObjectMeta", of(1, "name", Type.STRING), of(2, "generateName", Type.STRING), of(3, "namespace", Type.STRING),
        of(4, "selfLink", Type.STRING), of(5, "uid", Type.STRING), of(6, "resourceVersion", Type.STRING),
        of(7, "generation", Type.INT), of(8, "creationTimestamp", Type.TIME), of(9, "deletionTimestamp", Type.TIME),
        of(10, "deletionGracePeriodSeconds", Type.INT), of(11, "labels", Type.MAP_STRING),
        of(12, "annotations", Type.MAP_STRING), msgs(13, "ownerReferences", "OwnerReference"),
        list(14, "finalizers", Type.STRING), msgs(17, "managedFields", "ManagedFieldsEntry"));
    m("OwnerReference", of(5, "apiVersion", Type.STRING), of(1, "kind", Type.STRING), of(3, "name", Type.STRING),
        of(4, "uid", Type.STRING), of(6, "controller", Type.BOOL), of(7, "blockOwnerDeletion", Type.BOOL));
    m("ManagedFieldsEntry", of(1, "manager", Type.STRING), of(2, "operation", Type.STRING),
        of(3, "apiVersion", Type.STRING), of(4, "time", Type.TIME), of(6, "fieldsType", Type.STRING),
        msg(7, "fieldsV1", "FieldsV1"), of(8, "subresource", Type.STRING));
    m("FieldsV1", of(1, "", Type.RAW_JSON));
    m("LabelSelector", of(1, "matchLabels", Type.MAP_STRING), msgs(2, "matchExpressions", "LabelSelectorRequirement"));
    m("LabelSelectorRequirement", of(1, "key", Type.STRING), of(2, "operator", Type.STRING),
        list(3, "values", Type.STRING));
    m("ObjectReference", of(1, "kind", Type.STRING), of(2, "namespace", Type.STRING), of(3, "name", Type.STRING),
        of(4, "uid", Type.STRING), of(5, "apiVersion", Type.STRING), of(6, "resourceVersion", Type.STRING),
        of(7, "fieldPath", Type.STRING));
    m("LocalObjectReference", of(1, "name", Type.STRING));
    // the body of a DELETE (every group version registers it: client-go sends the client's own group version)
    m("DeleteOptions", of(1, "gracePeriodSeconds", Type.INT), msg(2, "preconditions", "Preconditions"),
        of(3, "orphanDependents", Type.BOOL), of(4, "propagationPolicy", Type.STRING), list(5, "dryRun", Type.STRING),
        of(6, "ignoreStoreReadErrorWithClusterBreakingPotential", Type.BOOL));
    m("Preconditions", of(1, "uid", Type.STRING), of(2, "resourceVersion", Type.STRING));
    // core/v1
    k("", "Namespace", msg(1, "metadata", "ObjectMeta"), msg(2, "spec", "NamespaceSpec"),
        msg(3, "status", "NamespaceStatus"));
    m("NamespaceSpec", list(1, "finalizers", Type.STRING));
    m("NamespaceStatus", of(1, "phase", Type.STRING), msgs(2, "conditions", "NamespaceCondition"));
    m("NamespaceCondition", of(1, "type", Type.STRING), of(2, "status", Type.STRING),
        of(4, "lastTransitionTime", Type.TIME), of(5, "reason", Type.STRING), of(6, "message", Type.STRING));
    k("", "ConfigMap", msg(1, "metadata", "ObjectMeta"), of(2, "data", Type.MAP_STRING),
        of(3, "binaryData", Type.MAP_BYTES), of(4, "immutable", Type.BOOL));
    k("", "Secret", msg(1, "metadata", "ObjectMeta"), of(2, "data", Type.MAP_BYTES), of(3, "type", Type.STRING),
        of(4, "stringData", Type.MAP_STRING), of(5, "immutable", Type.BOOL));
    k("", "ServiceAccount", msg(1, "metadata", "ObjectMeta"), msgs(2, "secrets", "ObjectReference"),
        msgs(3, "imagePullSecrets", "LocalObjectReference"), of(4, "automountServiceAccountToken", Type.BOOL));
    k("", "Event", msg(1, "metadata", "ObjectMeta"), msg(2, "involvedObject", "ObjectReference"),
        of(3, "reason", Type.STRING), of(4, "message", Type.STRING), msg(5, "source", "EventSource"),
        of(6, "firstTimestamp", Type.TIME), of(7, "lastTimestamp", Type.TIME), of(8, "count", Type.INT),
        of(9, "type", Type.STRING), of(10, "eventTime", Type.MICROTIME), msg(11, "series", "EventSeries"),
        of(12, "action", Type.STRING), msg(13, "related", "ObjectReference"),
        of(14, "reportingComponent", Type.STRING), of(15, "reportingInstance", Type.STRING));
    m("EventSource", of(1, "component", Type.STRING), of(2, "host", Type.STRING));
    m("EventSeries", of(1, "count", Type.INT), of(2, "lastObservedTime", Type.MICROTIME));
    // events.k8s.io/v1
    k("events.k8s.io", "Event", msg(1, "metadata", "ObjectMeta"), of(2, "eventTime", Type.MICROTIME),
        msg(3, "series", "EventSeries"), of(4, "reportingController", Type.STRING),
        of(5, "reportingInstance", Type.STRING), of(6, "action", Type.STRING), of(7, "reason", Type.STRING),
        msg(8, "regarding", "ObjectReference"), msg(9, "related", "ObjectReference"), of(10, "note", Type.STRING),
        of(11, "type", Type.STRING), msg(12, "deprecatedSource", "EventSource"),
        of(13, "deprecatedFirstTimestamp", Type.TIME), of(14, "deprecatedLastTimestamp", Type.TIME),
        of(15, "deprecatedCount", Type.INT));
    // coordination.k8s.io/v1
    k("coordination.k8s.io", "Lease", msg(1, "metadata", "ObjectMeta"), msg(2, "spec", "LeaseSpec"));
    m("LeaseSpec", of(1, "holderIdentity", Type.STRING), of(2, "leaseDurationSeconds", Type.INT),
        of(3, "acquireTime", Type.MICROTIME), of(4, "renewTime", Type.MICROTIME), of(5, "leaseTransitions", Type.INT),
        of(6, "strategy", Type.STRING), of(7, "preferredHolder", Type.STRING));
    // rbac.authorization.k8s.io/v1
    String rbac = "rbac.authorization.k8s.io";
    k(rbac, "Role", msg(1, "metadata", "ObjectMeta"), msgs(2, "rules", "PolicyRule"));
    k(rbac, "ClusterRole", msg(1, "metadata", "ObjectMeta"), msgs(2, "rules", "PolicyRule"),
        msg(3, "aggregationRule", "AggregationRule"));
    m("PolicyRule", list(1, "verbs", Type.STRING), list(2, "apiGroups", Type.STRING), list(3, "resources", Type.STRING),
        list(4, "resourceNames", Type.STRING), list(5, "nonResourceURLs", Type.STRING));
    m("AggregationRule", msgs(1, "clusterRoleSelectors", "LabelSelector"));
    k(rbac, "RoleBinding", msg(1, "metadata", "ObjectMeta"), msgs(2, "subjects", "Subject"),
        msg(3, "roleRef", "RoleRef"));
    k(rbac, "ClusterRoleBinding", msg(1, "metadata", "ObjectMeta"), msgs(2, "subjects", "Subject"),
        msg(3, "roleRef", "RoleRef"));
    m("Subject", of(1, "kind", Type.STRING), of(2, "apiGroup", Type.STRING), of(3, "name", Type.STRING),
        of(4, "namespace", Type.STRING));
    m("RoleRef", of(1, "apiGroup", Type.STRING), of(2, "kind", Type.STRING), of(3, "name", Type.STRING));
    // authorization.k8s.io/v1
    String authz = "authorization.k8s.io";
    k(authz, "SelfSubjectAccessReview", msg(1, "metadata", "ObjectMeta"), msg(2, "spec", "SelfSubjectAccessReviewSpec"));
    m("SelfSubjectAccessReviewSpec", msg(1, "resourceAttributes", "ResourceAttributes"),
        msg(2, "nonResourceAttributes", "NonResourceAttributes"));
    m("ResourceAttributes", of(1, "namespace", Type.STRING), of(2, "verb", Type.STRING), of(3, "group", Type.STRING),
        of(4, "version", Type.STRING), of(5, "resource", Type.STRING), of(6, "subresource", Type.STRING),
        of(7, "name", Type.STRING));
    m("NonResourceAttributes", of(1, "path", Type.STRING), of(2, "verb", Type.STRING));
    k(authz, "SelfSubjectRulesReview", msg(1, "metadata", "ObjectMeta"), msg(2, "spec", "SelfSubjectRulesReviewSpec"));
    m("SelfSubjectRulesReviewSpec", of(1, "namespace", Type.STRING));
    k(authz, "SubjectAccessReview", msg(1, "metadata", "ObjectMeta"), msg(2, "spec", "SubjectAccessReviewSpec"));
    k(authz, "LocalSubjectAccessReview", msg(1, "metadata", "ObjectMeta"), msg(2, "spec", "SubjectAccessReviewSpec"));
    m("SubjectAccessReviewSpec", msg(1, "resourceAttributes", "ResourceAttributes"),
        msg(2, "nonResourceAttributes", "NonResourceAttributes"), of(3, "user", Type.STRING),
        list(4, "groups", Type.STRING), new ProtoField(5, "extra", Type.MAP_MESSAGE, "ExtraValue", false),
        of(6, "uid", Type.STRING));
    m("ExtraValue", list(1, "items", Type.STRING));
    // authentication.k8s.io/v1 and v1beta1
    String authn = "authentication.k8s.io";
    k(authn, "SelfSubjectReview", msg(1, "metadata", "ObjectMeta"));
    k(authn, "TokenReview", msg(1, "metadata", "ObjectMeta"), msg(2, "spec", "TokenReviewSpec"));
    m("TokenReviewSpec", of(1, "token", Type.STRING), list(2, "audiences", Type.STRING));
    k(authn, "TokenRequest", msg(1, "metadata", "ObjectMeta"), msg(2, "spec", "TokenRequestSpec"));
    m("TokenRequestSpec", list(1, "audiences", Type.STRING), of(4, "expirationSeconds", Type.INT),
        msg(3, "boundObjectRef", "BoundObjectReference"));
    m("BoundObjectReference", of(1, "kind", Type.STRING), of(2, "apiVersion", Type.STRING), of(3, "name", Type.STRING),
        of(4, "uid", Type.STRING));
  }

  private ProtoSchemas() {
  }

  private static void m(String name, ProtoField... fields) {
    MESSAGES.put(name, List.of(fields));
  }

  private static void k(String group, String kind, ProtoField... fields) {
    String name = (group.isEmpty() ? "core" : group) + "." + kind;
    m(name, fields);
    KINDS.put(group + "/" + kind, name);
  }

  /**
   * Scalar fields that Go's generated {@code Marshal} always writes, even when empty, but whose JSON tag is
   * {@code omitempty} on a non-pointer field: kube-apiserver decodes them to Go's zero value and never shows them, so
   * the JSON form leaves them out when they are {@code ""} or {@code 0} (kubectl 1.33 sends protobuf: a plain create
   * of a ConfigMap must not store {@code generateName: ""} or {@code generation: 0}).
   */
  private static final Map<String, java.util.Set<String>> OMIT_EMPTY = Map.ofEntries(
      Map.entry("ObjectMeta", java.util.Set.of("name", "generateName", "namespace", "selfLink", "uid",
          "resourceVersion", "generation")),
      Map.entry("ObjectReference", java.util.Set.of("kind", "namespace", "name", "uid", "apiVersion",
          "resourceVersion", "fieldPath")),
      Map.entry("LocalObjectReference", java.util.Set.of("name")),
      Map.entry("ManagedFieldsEntry", java.util.Set.of("manager", "operation", "apiVersion", "fieldsType",
          "subresource")),
      Map.entry("core.Secret", java.util.Set.of("type")),
      Map.entry("Subject", java.util.Set.of("apiGroup", "namespace")),
      Map.entry("core.Event", java.util.Set.of("reason", "message", "count", "type", "action")),
      Map.entry("EventSource", java.util.Set.of("component", "host")),
      Map.entry("ResourceAttributes", java.util.Set.of("namespace", "verb", "group", "version", "resource",
          "subresource", "name")),
      Map.entry("NonResourceAttributes", java.util.Set.of("path", "verb")),
      Map.entry("SubjectAccessReviewSpec", java.util.Set.of("user", "uid")),
      Map.entry("SelfSubjectRulesReviewSpec", java.util.Set.of("namespace")),
      Map.entry("TokenReviewSpec", java.util.Set.of("token")),
      Map.entry("BoundObjectReference", java.util.Set.of("kind", "apiVersion", "name", "uid")));

  /** @return the fields of message {@code name}, or null */
  static List<ProtoField> message(String name) {
    return MESSAGES.get(name);
  }

  /**
   * @param name a message name
   * @return the JSON names of its non-pointer {@code omitempty} scalars, left out when {@code ""} or {@code 0}
   *     (empty for messages not listed: their fields are kept as sent)
   */
  static java.util.Set<String> omitEmpty(String name) {
    return OMIT_EMPTY.getOrDefault(name, java.util.Set.of());
  }

  /**
   * @return the top-level message of a kind, or null when mvproxy does not decode it; {@code DeleteOptions} in any
   *     group (metav1's {@code AddToGroupVersion} registers it in every one)
   */
  static String kind(String group, String kind) {
    return "DeleteOptions".equals(kind) ? "DeleteOptions" : KINDS.get(group + "/" + kind);
  }
}
