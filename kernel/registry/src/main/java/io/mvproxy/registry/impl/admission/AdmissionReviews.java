package io.mvproxy.registry.impl.admission;

import io.mvproxy.api.UserInfo;
import io.mvproxy.api.admission.Admission;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * The {@code admission.k8s.io/v1} AdmissionReview a webhook is sent and answers, as kube-apiserver's
 * {@code admission/plugin/webhook/request/admissionreview.go} ({@code CreateV1AdmissionReview},
 * {@code VerifyAdmissionResponse}).
 */
public final class AdmissionReviews {
  /** {@code apiVersion} of the reviews. */
  public static final String API_VERSION = "admission.k8s.io/v1";

  private AdmissionReviews() {
  }

  /**
   * A verified webhook answer.
   *
   * @param allowed  {@code response.allowed}
   * @param result   {@code response.status} (a Status object), or null
   * @param patch    the decoded JSONPatch operations of a mutating webhook, or null
   * @param warnings {@code response.warnings}
   * @param auditAnnotations {@code response.auditAnnotations} (string values only, as Go's
   *                         {@code map[string]string} decodes them)
   */
  public record Response(boolean allowed, JsonObject result, JsonArray patch, List<String> warnings,
                         java.util.Map<String, String> auditAnnotations) {
  }

  /**
   * @param uid     the request's uid (a new UUID per call)
   * @param a       the request
   * @param version the version the webhook is called with (the request's or an equivalent one)
   * @return the AdmissionReview to send, objects in {@code version}
   */
  public static JsonObject request(String uid, Admission.Attributes a, String version) {
    JsonObject req = new JsonObject().put("uid", uid)
        .put("kind", gvk(a.group(), version, a.kind()))
        .put("resource", gvr(a.group(), version, a.resource()));
    if (!a.subresource().isEmpty()) {
      req.put("subResource", a.subresource());
    }
    req.put("requestKind", gvk(a.group(), a.version(), a.kind()))
        .put("requestResource", gvr(a.group(), a.version(), a.resource()));
    if (!a.subresource().isEmpty()) {
      req.put("requestSubResource", a.subresource());
    }
    if (!a.name().isEmpty()) {
      req.put("name", a.name());
    }
    if (!a.namespace().isEmpty()) {
      req.put("namespace", a.namespace());
    }
    req.put("operation", a.operation()).put("userInfo", userInfo(a.user()));
    String apiVersion = a.group().isEmpty() ? version : a.group() + "/" + version;
    if (a.object() != null) {
      req.put("object", a.object().copy().put("apiVersion", apiVersion));
    }
    if (a.oldObject() != null) {
      req.put("oldObject", a.oldObject().copy().put("apiVersion", apiVersion));
    }
    req.put("dryRun", a.dryRun());
    if (a.options() != null) {
      req.put("options", a.options());
    }
    return new JsonObject().put("kind", "AdmissionReview").put("apiVersion", API_VERSION).put("request", req);
  }

  private static JsonObject gvk(String group, String version, String kind) {
    return new JsonObject().put("group", group).put("version", version).put("kind", kind);
  }

  private static JsonObject gvr(String group, String version, String resource) {
    return new JsonObject().put("group", group).put("version", version).put("resource", resource);
  }

  /** @return {@code authentication/v1} UserInfo: username, uid, groups, extra (empty fields left out) */
  static JsonObject userInfo(UserInfo u) {
    JsonObject o = new JsonObject();
    if (u == null) {
      return o;
    }
    o.put("username", u.name());
    if (!u.uid().isEmpty()) {
      o.put("uid", u.uid());
    }
    if (!u.groups().isEmpty()) {
      o.put("groups", new JsonArray(List.copyOf(u.groups())));
    }
    if (!u.extra().isEmpty()) {
      JsonObject extra = new JsonObject();
      for (Map.Entry<String, List<String>> e : u.extra().entrySet()) {
        extra.put(e.getKey(), new JsonArray(List.copyOf(e.getValue())));
      }
      o.put("extra", extra);
    }
    return o;
  }

  /**
   * @param review   the webhook's answer
   * @param uid      the uid sent
   * @param mutating true for a mutating webhook
   * @return the verified response
   * @throws IllegalArgumentException with upstream's text when the answer is not a valid v1 AdmissionReview
   *     response ({@code expected response.uid="..", got ".."}, {@code webhook response was absent},
   *     {@code webhook returned response.patch but not response.patchType}, ...)
   */
  public static Response parse(JsonObject review, String uid, boolean mutating) {
    String av = review.getValue("apiVersion") instanceof String s ? s : "";
    String kind = review.getValue("kind") instanceof String s ? s : "";
    if (!API_VERSION.equals(av) || !"AdmissionReview".equals(kind)) {
      throw new IllegalArgumentException("expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, "
          + "got " + (av.isEmpty() ? "/" : av) + ", Kind=" + kind);
    }
    if (!(review.getValue("response") instanceof JsonObject resp)) {
      throw new IllegalArgumentException("webhook response was absent");
    }
    String got = resp.getValue("uid") instanceof String s ? s : "";
    if (!uid.equals(got)) {
      throw new IllegalArgumentException("expected response.uid=\"" + uid + "\", got \"" + got + "\"");
    }
    Object patchValue = resp.getValue("patch");
    Object patchType = resp.getValue("patchType");
    String patch = patchValue instanceof String s ? s : "";
    if (mutating && !patch.isEmpty() && patchType == null) {
      throw new IllegalArgumentException("webhook returned response.patch but not response.patchType");
    }
    if (mutating && patch.isEmpty() && patchType != null) {
      throw new IllegalArgumentException("webhook returned response.patchType but not response.patch");
    }
    if (!mutating && (!patch.isEmpty() || patchType != null)) {
      throw new IllegalArgumentException("validating webhook may not return response.patch or response.patchType");
    }
    JsonArray ops = null;
    if (!patch.isEmpty()) {
      if (!"JSONPatch".equals(patchType)) {
        throw new IllegalArgumentException("webhook returned invalid response.patchType of \"" + patchType + "\"");
      }
      try {
        ops = new JsonArray(new String(Base64.getDecoder().decode(patch), java.nio.charset.StandardCharsets.UTF_8));
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("cannot decode response.patch: " + e.getMessage());
      }
    }
    List<String> warnings = new java.util.ArrayList<>();
    if (resp.getValue("warnings") instanceof JsonArray w) {
      w.forEach(x -> warnings.add(String.valueOf(x)));
    }
    java.util.Map<String, String> annotations = new java.util.TreeMap<>();
    if (resp.getValue("auditAnnotations") instanceof JsonObject aa) {
      aa.forEach(e -> {
        if (e.getValue() instanceof String v) {
          annotations.put(e.getKey(), v);
        }
      });
    }
    Object allowed = resp.getValue("allowed");
    return new Response(Boolean.TRUE.equals(allowed), resp.getValue("status") instanceof JsonObject st ? st : null,
        ops, List.copyOf(warnings), java.util.Collections.unmodifiableMap(annotations));
  }

  /**
   * The error of a denial, as {@code webhookerrors.ToStatusErr}: code at least 400 (default 400), the webhook's
   * reason and details kept, message {@code admission webhook "NAME" denied the request: MESSAGE} (or its reason,
   * or {@code without explanation}).
   *
   * @param webhook the webhook's name
   * @param result  {@code response.status}, or null
   * @return the Status exception
   */
  public static io.mvproxy.api.StatusException denied(String webhook, JsonObject result) {
    JsonObject r = result == null ? new JsonObject() : result;
    int code = r.getValue("code") instanceof Number n ? n.intValue() : 0;
    code = code < 400 ? 400 : code;
    String deniedBy = "admission webhook \"" + webhook + "\" denied the request";
    String message = r.getValue("message") instanceof String m ? m : "";
    String reason = r.getValue("reason") instanceof String s ? s : "";
    String text = !message.isEmpty() ? deniedBy + ": " + message : !reason.isEmpty() ? deniedBy + ": " + reason
        : deniedBy + " without explanation";
    return io.mvproxy.api.StatusException.of(code, text, reason, r.getValue("details") instanceof JsonObject d
        ? d : null);
  }

  /**
   * The error of a failed call with {@code failurePolicy: Fail}, as {@code apierrors.NewInternalError} of
   * {@code ErrCallingWebhook}: 500 InternalError {@code Internal error occurred: failed calling webhook "NAME": ...}.
   *
   * @param webhook the webhook's name
   * @param reason  what failed ({@code failed to call webhook: ...}, {@code received invalid webhook response: ...})
   * @return the Status exception
   */
  public static io.mvproxy.api.StatusException callFailed(String webhook, String reason) {
    String err = "failed calling webhook \"" + webhook + "\": " + reason;
    return new io.mvproxy.api.StatusException(io.mvproxy.api.StatusReason.InternalError,
        "Internal error occurred: " + err, new JsonObject().put("causes", new JsonArray()
        .add(new JsonObject().put("message", err))));
  }
}
