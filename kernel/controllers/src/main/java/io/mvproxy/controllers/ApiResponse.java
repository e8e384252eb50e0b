package io.mvproxy.controllers;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * One answer of the API: the HTTP status and the JSON body (an object, a list or a {@code Status}).
 *
 * @param status HTTP status code; 0 when no answer came (connection refused, time-out)
 * @param body   the decoded JSON body, or an empty object when the body was empty or not JSON
 * @param error  the transport error text when {@code status} is 0, else null
 */
public record ApiResponse(int status, JsonObject body, String error) {
  /** @return true for 2xx */
  public boolean ok() {
    return status >= 200 && status < 300;
  }

  /** @return true for 404 */
  public boolean notFound() {
    return status == 404;
  }

  /** @return the list's {@code items} (empty when absent) */
  public JsonArray items() {
    JsonArray a = body.getJsonArray("items");
    return a == null ? new JsonArray() : a;
  }

  /**
   * @return what went wrong, as client-go prints an API error: the Status {@code message}, else the transport
   *     error, else {@code the server responded with the status code N}
   */
  public String message() {
    if (status == 0) {
      return error;
    }
    String m = body.getString("message");
    return m != null && !m.isEmpty() ? m : "the server responded with the status code " + status;
  }
}
