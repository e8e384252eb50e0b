package io.mvproxy.registry.impl.model;

import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The API approval of CRDs in the Kubernetes community's protected groups ({@code k8s.io}, {@code *.k8s.io},
 * {@code kubernetes.io}, {@code *.kubernetes.io}): the annotation {@value #ANNOTATION} must hold a URL (approved) or a
 * reason starting with {@code unapproved} (bypassed). Follows apiextensions-apiserver {@code pkg/apihelpers/helpers.go}
 * ({@code IsProtectedCommunityGroup}, {@code GetAPIApprovalState}), {@code validation.go validateAPIApproval} and
 * {@code pkg/controller/apiapproval/apiapproval_controller.go} (the {@value #CONDITION} condition).
 */
public final class ApiApproval {
  /** The approval annotation ({@code apiextensionsv1.KubeAPIApprovedAnnotation}). */
  public static final String ANNOTATION = "api-approved.kubernetes.io";
  /** The condition the approval controller sets on CRDs of protected groups. */
  public static final String CONDITION = "KubernetesAPIApprovalPolicyConformant";
  private static final String FIELD = "metadata.annotations[" + ANNOTATION + "]";
  private static final String SEE = "see https://github.com/kubernetes/enhancements/pull/1111";

  /** The annotation's state, with the reason upstream gives for it. */
  public enum State {
    /** Set, but neither a URL nor {@code unapproved...}. */
    INVALID,
    /** A URL with a scheme and a host. */
    APPROVED,
    /** Starts with {@code unapproved}. */
    BYPASSED,
    /** Absent or empty. */
    MISSING
  }

  private ApiApproval() {
  }

  /** @param group a CRD's {@code spec.group} @return true for the protected community groups */
  public static boolean isProtectedGroup(String group) {
    return "k8s.io".equals(group) || group.endsWith(".k8s.io") || "kubernetes.io".equals(group)
        || group.endsWith(".kubernetes.io");
  }

  /** @param crd a CRD object @return the state of its approval annotation */
  public static State state(JsonObject crd) {
    String a = annotation(crd);
    if (a.isEmpty()) {
      return State.MISSING;
    }
    if (a.startsWith("unapproved")) {
      return State.BYPASSED;
    }
    try {
      // url.ParseRequestURI, then a scheme and a host
      // a server authority (host, numeric port), as Go's parser checks them: "https://x:abc" is no URL there
      java.net.URI u = new java.net.URI(a).parseServerAuthority();
      if (u.getScheme() != null && u.getHost() != null && !u.getHost().isEmpty()) {
        return State.APPROVED;
      }
    } catch (java.net.URISyntaxException e) {
      // INVALID below
    }
    return State.INVALID;
  }

  /** @return upstream's reason text for {@code s} (the annotation value quoted where upstream quotes it) */
  static String reason(State s, String annotation) {
    return switch (s) {
      case MISSING -> "protected groups must have approval annotation \"" + ANNOTATION + "\", " + SEE;
      case BYPASSED -> "not approved: " + io.mvproxy.api.GoStrings.quote(annotation);
      case APPROVED -> "approved in " + annotation;
      case INVALID -> "protected groups must have approval annotation \"" + ANNOTATION + "\" with either a URL or a "
          + "reason starting with \"unapproved\", " + SEE;
    };
  }

  /**
   * {@code validateAPIApproval}: a CRD of a protected group must be approved or bypassed, unless an update leaves the
   * state as it was.
   *
   * @param next the created or updated CRD
   * @param old  the stored CRD of an update, or null for a create
   * @return the field errors as Status causes (empty when fine): {@code FieldValueRequired} for a missing
   *     annotation, {@code FieldValueInvalid} for an invalid one, on {@code metadata.annotations[api-approved...]}
   */
  public static List<JsonObject> problems(JsonObject next, JsonObject old) {
    if (!isProtectedGroup(group(next))) {
      return List.of();
    }
    State now = state(next);
    if (old != null && state(old) == now) {
      return List.of();
    }
    String reason = reason(now, annotation(next));
    return switch (now) {
      case APPROVED, BYPASSED -> List.of();
      case MISSING -> List.of(new JsonObject().put("reason", "FieldValueRequired").put("message",
          "Required value: " + reason).put("field", FIELD));
      case INVALID -> List.of(new JsonObject().put("reason", "FieldValueInvalid").put("message", "Invalid value: "
          + io.mvproxy.api.GoStrings.quote(annotation(next)) + ": " + reason).put("field", FIELD));
    };
  }

  /**
   * The approval controller's pass over one CRD: for a protected group, {@value #CONDITION} {@code True
   * ApprovedAnnotation}, or {@code False} {@code UnapprovedAnnotation} / {@code MissingAnnotation} /
   * {@code InvalidAnnotation}, with the reason as message.
   *
   * @param crd a stored CRD
   * @param now RFC 3339 time for a new transition
   * @return a copy with the condition set when it changes, else null (also for other groups)
   */
  public static JsonObject condition(JsonObject crd, String now) {
    if (!isProtectedGroup(group(crd))) {
      return null;
    }
    State s = state(crd);
    String status = s == State.APPROVED ? "True" : "False";
    String reason = switch (s) {
      case APPROVED -> "ApprovedAnnotation";
      case BYPASSED -> "UnapprovedAnnotation";
      case MISSING -> "MissingAnnotation";
      case INVALID -> "InvalidAnnotation";
    };
    String message = reason(s, annotation(crd));
    JsonObject old = CrdConditions.find(crd, CONDITION);
    if (old != null && status.equals(old.getString("status")) && reason.equals(old.getString("reason"))
        && message.equals(old.getString("message"))) {
      return null;
    }
    return CrdConditions.set(crd.copy(), CONDITION, status, reason, message, now);
  }

  private static String group(JsonObject crd) {
    return crd.getValue("spec") instanceof JsonObject spec && spec.getValue("group") instanceof String g ? g : "";
  }

  private static String annotation(JsonObject crd) {
    return crd.getValue("metadata") instanceof JsonObject md && md.getValue("annotations") instanceof JsonObject a
        && a.getValue(ANNOTATION) instanceof String v ? v : "";
  }
}
