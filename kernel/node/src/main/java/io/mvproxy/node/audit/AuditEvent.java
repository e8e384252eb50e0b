package io.mvproxy.node.audit;

import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.UserInfo;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

/**
 * One request's audit record, rendered as an {@code audit.k8s.io/v1} {@code Event} per stage
 * ({@code pkg/apis/audit/v1/types.go}; filled as {@code apiserver/pkg/audit/request.go} does): kind, apiVersion,
 * level, auditID, stage, requestURI, verb, user, impersonatedUser, sourceIPs, userAgent, objectRef, responseStatus,
 * requestObject, responseObject, requestReceivedTimestamp, stageTimestamp (RFC 3339 with microseconds, UTC),
 * annotations. Empty fields are left out ({@code omitempty}). Confined to the request's event loop; every
 * {@link #render} returns a new object the caller may hand to another thread.
 */
public final class AuditEvent {
  private final AuditPolicy.Level level;
  private final String auditId;
  private final String requestUri;
  private final String verb;
  private final JsonObject user;
  private final UserInfo authenticated;
  private final List<String> sourceIps;
  private final String userAgent;
  private final JsonObject objectRef;
  private final String received;

  /**
   * @param level      the policy's level (above None)
   * @param auditId    the request's {@code Audit-ID}
   * @param requestUri path and query as sent
   * @param verb       Kubernetes verb (lower-case HTTP method for non-resource requests)
   * @param user       the authenticated user, or null (failed authentication: an empty {@code user})
   * @param sourceIps  X-Forwarded-For, X-Real-Ip and the peer address ({@link #sourceIps})
   * @param userAgent  User-Agent header or null
   * @param info       the request info (objectRef for resource requests)
   * @param received   when the request was received
   */
  public AuditEvent(AuditPolicy.Level level, String auditId, String requestUri, String verb, UserInfo user,
                    List<String> sourceIps, String userAgent, RequestInfo info, Instant received) {
    this.level = level;
    this.auditId = auditId;
    this.requestUri = requestUri;
    this.verb = verb;
    this.user = user(user);
    this.authenticated = user;
    this.sourceIps = List.copyOf(sourceIps);
    this.userAgent = userAgent;
    this.objectRef = info != null && info.resourceRequest() ? objectRef(info) : null;
    this.received = micro(received);
  }

  /** @return the user who authenticated (the event's {@code user}), or null */
  public UserInfo authenticated() {
    return authenticated;
  }

  /** @return the level */
  public AuditPolicy.Level level() {
    return level;
  }

  /**
   * {@code authentication.k8s.io/v1} UserInfo as the event's {@code user}: username, uid, groups, extra, empty ones
   * left out.
   *
   * @param u a user or null
   * @return the object ({@code {}} for null)
   */
  public static JsonObject user(UserInfo u) {
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
      new java.util.TreeMap<>(u.extra()).forEach((k, v) -> extra.put(k, new JsonArray(List.copyOf(v))));
      o.put("extra", extra);
    }
    return o;
  }

  private static JsonObject objectRef(RequestInfo info) {
    JsonObject o = new JsonObject().put("resource", info.resource());
    putIf(o, "namespace", info.namespace());
    putIf(o, "name", info.name());
    putIf(o, "apiGroup", info.group());
    putIf(o, "apiVersion", info.version());
    putIf(o, "subresource", info.subresource());
    return o;
  }

  private static void putIf(JsonObject o, String k, String v) {
    if (v != null && !v.isEmpty()) {
      o.put(k, v);
    }
  }

  /**
   * The client addresses as {@code utilnet.SourceIPs}: the X-Forwarded-For entries, then X-Real-Ip and the
   * connection's peer address when not already last.
   *
   * @param forwardedFor X-Forwarded-For header or null
   * @param realIp       X-Real-Ip header or null
   * @param remote       the connection's peer address or null
   * @return the addresses, in order
   */
  public static List<String> sourceIps(String forwardedFor, String realIp, String remote) {
    List<String> out = new java.util.ArrayList<>();
    if (forwardedFor != null) {
      for (String s : forwardedFor.split(",")) {
        String t = s.trim();
        if (isIp(t)) {
          out.add(t);
        }
      }
    }
    if (realIp != null && isIp(realIp.trim()) && !out.contains(realIp.trim())) {
      out.add(realIp.trim());
    }
    if (remote != null && (out.isEmpty() || !out.get(out.size() - 1).equals(remote))) {
      out.add(remote);
    }
    return out;
  }

  private static boolean isIp(String s) {
    return !s.isEmpty() && s.length() <= 45 && s.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == '.'
        || c == ':') && (s.indexOf(':') >= 0 || s.chars().filter(c -> c == '.').count() == 3);
  }

  /**
   * Renders the event at one stage.
   *
   * @param stage            the stage
   * @param stageTime        when it was reached ({@code RequestReceived}: the received time is used)
   * @param responseStatus   the {@code responseStatus} ({@link #status}), or null
   * @param impersonatedUser the identity the request ran as when it impersonated, or null
   * @param requestObject    the request body (levels Request and above), or null
   * @param responseObject   the response body (level RequestResponse), or null
   * @param annotations      the annotations (may be empty)
   * @return a new Event object
   */
  public JsonObject render(AuditPolicy.Stage stage, Instant stageTime, JsonObject responseStatus,
                           UserInfo impersonatedUser, JsonObject requestObject, JsonObject responseObject,
                           Map<String, String> annotations) {
    JsonObject e = new JsonObject().put("kind", "Event").put("apiVersion", "audit.k8s.io/v1")
        .put("level", level.name()).put("auditID", auditId).put("stage", stage.name())
        .put("requestURI", requestUri).put("verb", verb).put("user", user);
    if (impersonatedUser != null) {
      e.put("impersonatedUser", user(impersonatedUser));
    }
    if (!sourceIps.isEmpty()) {
      e.put("sourceIPs", new JsonArray(sourceIps));
    }
    if (userAgent != null && !userAgent.isEmpty()) {
      e.put("userAgent", userAgent);
    }
    if (objectRef != null) {
      e.put("objectRef", objectRef);
    }
    if (responseStatus != null) {
      e.put("responseStatus", responseStatus);
    }
    if (requestObject != null) {
      e.put("requestObject", requestObject);
    }
    if (responseObject != null) {
      e.put("responseObject", responseObject);
    }
    e.put("requestReceivedTimestamp", received);
    e.put("stageTimestamp", stage == AuditPolicy.Stage.RequestReceived ? received : micro(stageTime));
    if (!annotations.isEmpty()) {
      e.put("annotations", new JsonObject(new java.util.LinkedHashMap<>(annotations)));
    }
    return e;
  }

  /**
   * The event's {@code responseStatus} as {@code audit.LogResponseObject} and the filter set it: the bounded fields
   * of a {@code metav1.Status} answer (status, message, reason, details, code), else the code alone.
   *
   * @param code   the HTTP status
   * @param status the Status answered, or null
   * @return {@code {"metadata":{},...,"code":N}}
   */
  public static JsonObject status(int code, JsonObject status) {
    JsonObject s = new JsonObject().put("metadata", new JsonObject());
    if (status != null) {
      for (String k : new String[] {"status", "message", "reason", "details"}) {
        if (status.getValue(k) != null) {
          s.put(k, status.getValue(k));
        }
      }
    }
    return s.put("code", status != null && status.getValue("code") instanceof Number n ? n.intValue() : code);
  }

  /**
   * Drops {@code metadata.managedFields} from an object, or from every item of a list ({@code omitManagedFields}).
   *
   * @param o an object (changed in place)
   * @return {@code o}
   */
  public static JsonObject omitManagedFields(JsonObject o) {
    JsonObject md = o.getValue("metadata") instanceof JsonObject m ? m : null;
    if (md != null) {
      md.remove("managedFields");
    }
    if (o.getValue("items") instanceof JsonArray items) {
      for (Object it : items) {
        if (it instanceof JsonObject j && j.getValue("metadata") instanceof JsonObject m) {
          m.remove("managedFields");
        }
      }
    }
    return o;
  }

  /**
   * {@code metav1.MicroTime}'s format, RFC 3339 with microseconds in UTC ({@code 2006-01-02T15:04:05.000000Z}),
   * written by hand: {@code DateTimeFormatter} took about a microsecond per call on the request's event loop.
   *
   * @param t an instant (years 0-9999)
   * @return e.g. {@code 2026-12-04T18:18:29.450142Z}
   */
  public static String micro(Instant t) {
    java.time.LocalDateTime d = java.time.LocalDateTime.ofEpochSecond(t.getEpochSecond(), t.getNano(), ZoneOffset.UTC);
    char[] c = new char[27];
    digits(c, 0, d.getYear(), 4);
    c[4] = '-';
    digits(c, 5, d.getMonthValue(), 2);
    c[7] = '-';
    digits(c, 8, d.getDayOfMonth(), 2);
    c[10] = 'T';
    digits(c, 11, d.getHour(), 2);
    c[13] = ':';
    digits(c, 14, d.getMinute(), 2);
    c[16] = ':';
    digits(c, 17, d.getSecond(), 2);
    c[19] = '.';
    digits(c, 20, t.getNano() / 1000, 6);
    c[26] = 'Z';
    return new String(c);
  }

  private static void digits(char[] c, int at, int v, int n) {
    for (int i = at + n - 1; i >= at; i--) {
      c[i] = (char) ('0' + v % 10);
      v /= 10;
    }
  }
}
