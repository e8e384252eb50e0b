package io.mvproxy.authorization;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.mvproxy.api.authz.Attributes;
import io.vertx.core.json.JsonObject;

/**
 * The 403 answers of kube-apiserver ({@code endpoints/handlers/responsewriters/errors.go} {@code ForbiddenStatusError}
 * and apimachinery {@code errors.NewForbidden}), e.g. {@code widgets.demo.example.com "w1" is forbidden: User
 * "alice" cannot delete resource "widgets" in API group "demo.example.com" in the namespace "ns1"}.
 */
public final class Forbidden {
  private Forbidden() {
  }

  /**
   * @param a      the denied request
   * @param reason the authorizer's reason, appended as {@code ": <reason>"} when non-empty
   * @return a 403 Forbidden StatusException, {@code details {name, group, kind: <resource>}}
   */
  public static StatusException of(Attributes a, String reason) {
    String msg = sanitize(message(a));
    if (reason != null && !reason.isEmpty()) {
      msg = msg + ": " + reason;
    }
    return forbidden(a.resourceRequest() ? a.apiGroup() : "", a.resourceRequest() ? a.resource() : "", a.name(), msg);
  }

  /**
   * {@code errors.NewForbidden(groupResource, name, err)}.
   *
   * @param group    API group ({@code ""} for core)
   * @param resource plural resource ({@code ""} for a path)
   * @param name     object name or {@code ""}
   * @param cause    the explanation
   * @return the 403
   */
  public static StatusException forbidden(String group, String resource, String name, String cause) {
    String gr = group.isEmpty() ? resource : resource + "." + group;
    String message;
    if (gr.isEmpty()) {
      message = "forbidden: " + cause;
    } else if (name == null || name.isEmpty()) {
      message = gr + " is forbidden: " + cause;
    } else {
      message = gr + " \"" + name + "\" is forbidden: " + cause;
    }
    JsonObject details = new JsonObject();
    if (name != null && !name.isEmpty()) {
      details.put("name", name);
    }
    if (!group.isEmpty()) {
      details.put("group", group);
    }
    if (!resource.isEmpty()) {
      details.put("kind", resource);
    }
    return new StatusException(StatusReason.Forbidden, message, details);
  }

  /**
   * {@code forbiddenMessage}: {@code User "u" cannot <verb> resource "<r>[/<sub>]" in API group "<g>" in the
   * namespace "<ns>"} / {@code ... at the cluster scope}; paths: {@code User "u" cannot get path "/metrics"}.
   *
   * @param a the request
   * @return the text
   */
  public static String message(Attributes a) {
    String user = a.user() == null ? "" : a.user().name();
    if (!a.resourceRequest()) {
      return "User " + q(user) + " cannot " + a.verb() + " path " + q(a.path());
    }
    String resource = a.subresource().isEmpty() ? a.resource() : a.resource() + "/" + a.subresource();
    if (!a.namespace().isEmpty()) {
      return "User " + q(user) + " cannot " + a.verb() + " resource " + q(resource) + " in API group "
          + q(a.apiGroup()) + " in the namespace " + q(a.namespace());
    }
    return "User " + q(user) + " cannot " + a.verb() + " resource " + q(resource) + " in API group "
        + q(a.apiGroup()) + " at the cluster scope";
  }

  /** Go's {@code %q}. */
  static String q(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  private static String sanitize(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
