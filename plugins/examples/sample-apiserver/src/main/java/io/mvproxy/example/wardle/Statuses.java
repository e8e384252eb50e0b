package io.mvproxy.example.wardle;

import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Kubernetes {@code metav1.Status} answers (apimachinery {@code pkg/api/errors/errors.go}). Stateless.
 */
public final class Statuses {
  private Statuses() {
  }

  /**
   * @param code    HTTP status code
   * @param reason  Status reason, e.g. {@code NotFound}
   * @param message human-readable message
   * @param details {@code details} object or null
   * @return a failure Status object
   */
  public static JsonObject failure(int code, String reason, String message, JsonObject details) {
    JsonObject s = new JsonObject().put("kind", "Status").put("apiVersion", "v1").put("metadata", new JsonObject())
        .put("status", "Failure").put("message", message).put("reason", reason);
    if (details != null) {
      s.put("details", details);
    }
    return s.put("code", code);
  }

  /**
   * @param name object name
   * @return {@code details} naming a flunder
   */
  public static JsonObject flunderDetails(String name) {
    return new JsonObject().put("name", name).put("group", WardleApi.GROUP).put("kind", WardleApi.RESOURCE);
  }

  /**
   * @param field   the invalid field, e.g. {@code metadata.name}
   * @param name    the object name
   * @param message the cause message
   * @return a 422 Invalid Status with one cause
   */
  public static JsonObject invalid(String field, String name, String message) {
    JsonObject d = flunderDetails(name).put("kind", WardleApi.KIND).put("causes", new JsonArray().add(
        new JsonObject().put("reason", "FieldValueInvalid").put("message", message).put("field", field)));
    return failure(422, "Invalid", WardleApi.KIND + "." + WardleApi.GROUP + " \"" + name + "\" is invalid: " + field
        + ": " + message, d);
  }

  /**
   * Writes a Status (its {@code code} is the HTTP status).
   *
   * @param resp   the response
   * @param status the Status object
   */
  public static void send(HttpServerResponse resp, JsonObject status) {
    if (resp.ended() || resp.closed()) {
      return;
    }
    resp.setStatusCode(status.getInteger("code", 500)).putHeader("Content-Type", "application/json")
        .end(status.encode());
  }
}
