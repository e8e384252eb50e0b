package io.mvproxy.api;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * A failure that is answered with a Kubernetes {@code Status} object (api-surface.md, "Errors").
 * Throw it (or fail a future with it) from an {@link ApiSource}; the node renders it with {@link #toStatus()}.
 */
public class StatusException extends RuntimeException {
  private final StatusReason reason;
  private final JsonObject details;
  private final int retryAfterSeconds;
  private final int code;
  private final String reasonText;

  /**
   * @param reason  the Status reason (gives the HTTP code)
   * @param message the human-readable message
   * @param details the {@code details} object ({@code name}, {@code group}, {@code kind}, {@code causes}) or null
   */
  public StatusException(StatusReason reason, String message, JsonObject details) {
    this(reason, message, details, 0);
  }

  /**
   * @param reason            the Status reason
   * @param message           the message
   * @param details           the details or null
   * @param retryAfterSeconds seconds for {@code Retry-After} and {@code details.retryAfterSeconds}; 0 for none
   */
  public StatusException(StatusReason reason, String message, JsonObject details, int retryAfterSeconds) {
    super(message);
    this.reason = reason;
    this.details = details;
    this.retryAfterSeconds = retryAfterSeconds;
    this.code = reason.code();
    this.reasonText = null;
  }

  private StatusException(int code, String message) {
    this(code, message, null, null);
  }

  private StatusException(int code, String message, String reasonText, JsonObject details) {
    super(message);
    StatusReason known = null;
    for (StatusReason r : StatusReason.values()) {
      if (r.name().equals(reasonText) && r.code() == code) {
        known = r;
      }
    }
    this.reason = known;
    this.details = details;
    this.retryAfterSeconds = 0;
    this.code = code;
    this.reasonText = known == null ? reasonText : null;
  }

  /**
   * A Status made elsewhere, answered as is (e.g. an admission webhook's {@code result}, apiserver
   * {@code webhookerrors.ToStatusErr}).
   *
   * @param code       the HTTP status code
   * @param message    the message
   * @param reasonText the reason (any string; {@code ""} or null for none); a known one is also {@link #reason()}
   * @param details    the details or null
   * @return the exception
   */
  public static StatusException of(int code, String message, String reasonText, JsonObject details) {
    return new StatusException(code, message, reasonText == null || reasonText.isEmpty() ? null : reasonText,
        details);
  }

  /**
   * A Status with a code that has no Kubernetes reason (apimachinery's {@code StatusReasonUnknown}, omitted from
   * the JSON), e.g. {@code 414} and {@code 431} from the HTTP server.
   *
   * @param code    the HTTP status code
   * @param message the message
   * @return the exception; its {@link #reason()} is null
   */
  public static StatusException withoutReason(int code, String message) {
    return new StatusException(code, message);
  }

  /** @return the reason; null for {@link #withoutReason} */
  public StatusReason reason() {
    return reason;
  }

  /** @return the HTTP status code */
  public int code() {
    return code;
  }

  /** @return seconds to put in {@code Retry-After}, 0 for none */
  public int retryAfterSeconds() {
    return retryAfterSeconds;
  }

  /** @return the {@code Status} object to send */
  public JsonObject toStatus() {
    JsonObject d = details == null ? null : details.copy();
    if (retryAfterSeconds > 0) {
      d = d == null ? new JsonObject() : d;
      d.put("retryAfterSeconds", retryAfterSeconds);
    }
    JsonObject s = new JsonObject().put("kind", "Status").put("apiVersion", "v1").put("metadata", new JsonObject())
        .put("status", "Failure").put("message", getMessage());
    if (reason != null) {
      s.put("reason", reason.name());
    } else if (reasonText != null) {
      s.put("reason", reasonText);
    }
    if (d != null) {
      s.put("details", d);
    }
    return s.put("code", code);
  }

  /**
   * Ends the response with this Status through the node's one {@link StatusWriter} ({@code Retry-After} when set,
   * {@code ?pretty=true} honoured); resets the stream instead when the response head was already written (a failure
   * in the middle of a streamed answer); does nothing once ended.
   *
   * @param ctx the request
   */
  public void respond(io.vertx.ext.web.RoutingContext ctx) {
    StatusWriter.send(ctx, this);
  }

  /** 404 for a path or resource no node serves: "the server could not find the requested resource". */
  public static StatusException resourceNotFound() {
    return new StatusException(StatusReason.NotFound, "the server could not find the requested resource",
        new JsonObject());
  }

  /**
   * 405 for a method a route does not have: go-restful's {@code serviceErrorHandler} through
   * {@code NewGenericServerResponse(405, ...)} ({@code apiserver/pkg/server/handler.go}), empty details.
   */
  public static StatusException methodNotAllowed() {
    return new StatusException(StatusReason.MethodNotAllowed, "the server does not allow this method on the "
        + "requested resource", new JsonObject());
  }

  /**
   * 404 for a missing object.
   *
   * @param gvr  the resource
   * @param name the object name
   */
  public static StatusException notFound(Gvr gvr, String name) {
    return new StatusException(StatusReason.NotFound, gvr.groupResource() + " \"" + name + "\" not found",
        details(gvr, name));
  }

  /** 409 AlreadyExists for {@code gvr}/{@code name}. */
  public static StatusException alreadyExists(Gvr gvr, String name) {
    return new StatusException(StatusReason.AlreadyExists, gvr.groupResource() + " \"" + name + "\" already exists",
        details(gvr, name));
  }

  /**
   * 403 Forbidden for {@code gvr}/{@code name} ({@code errors.NewForbidden}): {@code <resource>.<group> "<name>" is
   * forbidden: <cause>}, the cause as given (an authorizer's reason, maybe empty).
   */
  public static StatusException forbidden(Gvr gvr, String name, String cause) {
    return new StatusException(StatusReason.Forbidden, gvr.groupResource() + " \"" + name + "\" is forbidden: "
        + cause, details(gvr, name));
  }

  /** 409 Conflict for a stale resourceVersion on {@code gvr}/{@code name}. */
  public static StatusException conflict(Gvr gvr, String name) {
    return new StatusException(StatusReason.Conflict, "Operation cannot be fulfilled on " + gvr.groupResource()
        + " \"" + name + "\": the object has been modified; please apply your changes to the latest version and "
        + "try again", details(gvr, name));
  }

  /**
   * 422 Invalid with field causes; the message is {@code errors.NewInvalid}'s: {@code <Kind>.<group> "<name>" is
   * invalid: <field>: <message>} (the name quoted as Go's {@code %q}), several (de-duplicated) causes in brackets
   * joined by {@code ", "}.
   *
   * @param gvr    the resource
   * @param kind   the object kind (e.g. {@code Widget})
   * @param name   the object name
   * @param causes array of {@code {reason, message, field}}
   */
  public static StatusException invalid(Gvr gvr, String kind, String name, JsonArray causes) {
    java.util.Set<String> errs = new java.util.LinkedHashSet<>();
    for (int i = 0; i < causes.size(); i++) {
      JsonObject c = causes.getJsonObject(i);
      errs.add(c.getString("field", "") + ": " + c.getString("message"));
    }
    String joined = String.join(", ", errs);
    String msg = kind + (gvr.group().isEmpty() ? "" : "." + gvr.group()) + " " + GoStrings.quote(name) + " is invalid"
        + (errs.isEmpty() ? ""
        : ": " + (errs.size() == 1 ? joined : "[" + joined + "]"));
    return new StatusException(StatusReason.Invalid, msg,
        details(gvr, name).put("kind", kind).put("causes", causes));
  }

  /**
   * 400 BadRequest with {@code message}; parser locations are shortened to {@code line L, column C} (Jackson's
   * {@code [Source: REDACTED ...]} says nothing useful to an API client).
   *
   * @param message what was wrong
   * @return the exception
   */
  public static StatusException badRequest(String message) {
    String m = message == null ? "bad request" : message
        .replaceAll("\\s*at \\[Source: [^;\\]]*; line: (\\d+), column: (\\d+)\\]", " at line $1, column $2")
        .replaceAll("\\s*\\(StreamReadFeature\\.[A-Z_]+ disabled\\)", "");
    return new StatusException(StatusReason.BadRequest, m, null);
  }

  /**
   * 500 InternalError as apimachinery's {@code NewInternalError}: message {@code Internal error occurred: <err>},
   * the error also as the single cause.
   *
   * @param t the failure
   * @return the exception
   */
  public static StatusException internal(Throwable t) {
    String m = t == null ? "unknown" : t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    return new StatusException(StatusReason.InternalError, "Internal error occurred: " + m,
        new JsonObject().put("causes", new JsonArray().add(new JsonObject().put("message", m))));
  }

  /**
   * 413 RequestEntityTooLarge as apiserver's {@code limitedReadBody}: {@code Request entity too large: limit is N}.
   *
   * @param limitBytes the limit, bytes
   * @return the exception
   */
  public static StatusException tooLarge(long limitBytes) {
    return new StatusException(StatusReason.RequestEntityTooLarge, "Request entity too large: limit is " + limitBytes,
        null);
  }

  /**
   * 415 UnsupportedMediaType as apiserver's {@code negotiation.NewUnsupportedMediaTypeError}.
   *
   * @param accepted the media types accepted, in order
   * @return the exception
   */
  public static StatusException unsupportedMediaType(java.util.List<String> accepted) {
    return new StatusException(StatusReason.UnsupportedMediaType,
        "the body of the request was in an unknown format - accepted media types include: "
            + String.join(", ", accepted), null);
  }

  /**
   * 406 NotAcceptable as apiserver's {@code negotiation.NewNotAcceptableError}.
   *
   * @param accepted the media types that can be produced
   * @return the exception
   */
  public static StatusException notAcceptable(java.util.List<String> accepted) {
    return new StatusException(StatusReason.NotAcceptable, "only the following media types are accepted: "
        + String.join(", ", accepted), null);
  }

  /** 503 ServiceUnavailable with {@code message} and a Retry-After of {@code seconds}. */
  public static StatusException unavailable(String message, int seconds) {
    return new StatusException(StatusReason.ServiceUnavailable, message, new JsonObject(), seconds);
  }

  private static JsonObject details(Gvr gvr, String name) {
    JsonObject d = new JsonObject().put("name", name);
    if (!gvr.group().isEmpty()) {
      d.put("group", gvr.group());
    }
    return d.put("kind", gvr.resource());
  }
}
