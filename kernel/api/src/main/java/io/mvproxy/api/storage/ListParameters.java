package io.mvproxy.api.storage;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The resourceVersion-related parameters of a list or watch request, validated as kube-apiserver's
 * {@code apimachinery/pkg/apis/meta/internalversion/validation/validation.go} (ValidateListOptions,
 * validateWatchOptions): 422 Invalid on {@code ListOptions.meta.k8s.io ""} with one cause per violation.
 *
 * @param resourceVersion   {@code resourceVersion}, {@code ""} when absent
 * @param match             {@code resourceVersionMatch}
 * @param continueToken     {@code continue}, {@code ""} when absent
 * @param sendInitialEvents {@code sendInitialEvents}, null when absent
 */
public record ListParameters(String resourceVersion, ResourceVersionMatch match, String continueToken,
                             Boolean sendInitialEvents) {

  /**
   * @param param query parameter lookup (null when absent)
   * @param watch true for a watch request
   * @return the validated parameters
   * @throws StatusException 422 Invalid as kube-apiserver
   */
  public static ListParameters parse(Function<String, String> param, boolean watch) {
    String rv = nz(param.apply("resourceVersion"));
    String m = nz(param.apply("resourceVersionMatch"));
    String cont = nz(param.apply("continue"));
    String sie = param.apply("sendInitialEvents");
    Boolean send = sie == null ? null : io.mvproxy.api.BoolParam.of(sie);
    List<JsonObject> causes = new ArrayList<>();
    if (watch) {
      if (send != null && !"NotOlderThan".equals(m)) {
        causes.add(forbidden("resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to "
            + "NotOlderThan"));
      }
      if (!m.isEmpty()) {
        if (send == null) {
          causes.add(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless "
              + "sendInitialEvents is provided"));
        }
        if (!"NotOlderThan".equals(m)) {
          causes.add(notSupported("resourceVersionMatch", m, "\"NotOlderThan\""));
        }
        if (!cont.isEmpty()) {
          causes.add(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
        }
      }
    } else {
      if (!m.isEmpty()) {
        if (rv.isEmpty()) {
          causes.add(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is "
              + "provided"));
        }
        if (!cont.isEmpty()) {
          causes.add(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
        }
        if (!"Exact".equals(m) && !"NotOlderThan".equals(m)) {
          causes.add(notSupported("resourceVersionMatch", m, "\"Exact\", \"NotOlderThan\", \"\""));
        }
        if ("Exact".equals(m) && "0".equals(rv)) {
          causes.add(forbidden("resourceVersionMatch", "resourceVersionMatch \"exact\" is forbidden for "
              + "resourceVersion \"0\""));
        }
      }
      if (send != null) {
        causes.add(forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
      }
    }
    if (!causes.isEmpty()) {
      throw invalid(causes);
    }
    ResourceVersionMatch match = switch (m) {
      case "Exact" -> ResourceVersionMatch.EXACT;
      case "NotOlderThan" -> ResourceVersionMatch.NOT_OLDER_THAN;
      default -> ResourceVersionMatch.UNSET;
    };
    return new ListParameters(rv, match, cont, send);
  }

  /** @return true when the request asked for {@code sendInitialEvents=true} */
  public boolean initialEvents() {
    return Boolean.TRUE.equals(sendInitialEvents);
  }

  private static String nz(String s) {
    return s == null ? "" : s;
  }

  private static JsonObject forbidden(String field, String detail) {
    return new JsonObject().put("reason", "FieldValueForbidden").put("message", "Forbidden: " + detail)
        .put("field", field);
  }

  private static JsonObject notSupported(String field, String value, String supported) {
    return new JsonObject().put("reason", "FieldValueNotSupported")
        .put("message", "Unsupported value: \"" + value + "\": supported values: " + supported).put("field", field);
  }

  private static StatusException invalid(List<JsonObject> causes) {
    List<String> parts = causes.stream().map(c -> c.getString("field") + ": " + c.getString("message")).toList();
    String msg = "ListOptions.meta.k8s.io \"\" is invalid: "
        + (parts.size() == 1 ? parts.get(0) : "[" + String.join(", ", parts) + "]");
    return new StatusException(StatusReason.Invalid, msg, new JsonObject().put("group", "meta.k8s.io")
        .put("kind", "ListOptions").put("causes", new JsonArray(new ArrayList<>(causes))));
  }
}
