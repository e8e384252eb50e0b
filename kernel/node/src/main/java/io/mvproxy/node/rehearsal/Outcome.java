package io.mvproxy.node.rehearsal;

import io.vertx.core.json.JsonObject;

/**
 * How the rehearsal counts one client request's answer. A 404 is <b>false</b> when some node of the fleet served the
 * resource when the request was sent and the answer is the route's {@code NotFound} (a Status naming no object,
 * "the server could not find the requested resource"): the request landed on a node lacking the resource, which is
 * what the Mixed Version Proxy exists to prevent. A {@code NotFound} naming an object (storage's answer: the object
 * or its namespace is not there) is counted apart.
 */
public enum Outcome {
  /** 2xx. */
  OK("2xx"),
  /** 404 for a resource no node served yet (a true 404). */
  NOT_SERVED_YET("404, resource not served by any node yet"),
  /** The route's 404 for a resource some node served: a false 404. */
  FALSE_404("404, resource served by another node (false 404)"),
  /** 404 NotFound naming an object or its namespace (storage's answer). */
  OBJECT_NOT_FOUND("404 NotFound naming the object or its namespace"),
  /** 403 (e.g. a create in a namespace being terminated). */
  FORBIDDEN("403"),
  /** 409 Conflict / AlreadyExists. */
  CONFLICT("409"),
  /** 429 TooManyRequests. */
  TOO_MANY("429"),
  /** 503 ServiceUnavailable (e.g. the only server of a group-version is restarting: retry). */
  UNAVAILABLE("503"),
  /** Any other 4xx or 5xx. */
  OTHER_ERROR("other 4xx/5xx"),
  /** No HTTP answer (connection refused or reset, time-out). */
  NO_ANSWER("no answer (connection error, time-out)");

  private final String label;

  private static boolean namesObject(JsonObject body) {
    JsonObject details = body.getJsonObject("details");
    return details != null && details.getString("name") != null && !details.getString("name").isEmpty();
  }

  Outcome(String label) {
    this.label = label;
  }

  /** @return the report's row label */
  public String label() {
    return label;
  }

  /**
   * Classifies an answer.
   *
   * @param status the HTTP status (0: no answer)
   * @param body   the body (a Status for errors), may be empty
   * @param served whether some node served the resource when the request was sent
   * @return the outcome
   */
  public static Outcome of(int status, JsonObject body, boolean served) {
    if (status == 0) {
      return NO_ANSWER;
    }
    if (status < 300) {
      return OK;
    }
    return switch (status) {
      case 404 -> namesObject(body) ? OBJECT_NOT_FOUND : served ? FALSE_404 : NOT_SERVED_YET;
      case 403 -> FORBIDDEN;
      case 409 -> CONFLICT;
      case 429 -> TOO_MANY;
      case 503 -> UNAVAILABLE;
      default -> OTHER_ERROR;
    };
  }
}
