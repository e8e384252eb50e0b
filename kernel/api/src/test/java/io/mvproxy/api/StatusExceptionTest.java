package io.mvproxy.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The Status objects of api-surface.md "Errors", field by field. */
@Tag("unit")
class StatusExceptionTest {
  static final Gvr WIDGETS = new Gvr("demo.mvproxy.io", "v1", "widgets");

  @Test
  void notFoundObject() {
    JsonObject s = StatusException.notFound(WIDGETS, "w1").toStatus();
    assertEquals(new JsonObject("""
        {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
         "message":"widgets.demo.mvproxy.io \\"w1\\" not found","reason":"NotFound",
         "details":{"name":"w1","group":"demo.mvproxy.io","kind":"widgets"},"code":404}"""), s);
  }

  @Test
  void methodNotAllowedAsGoRestful() {
    assertEquals(new JsonObject("""
        {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
         "message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed",
         "details":{},"code":405}"""), StatusException.methodNotAllowed().toStatus());
  }

  @Test
  void unknownResourceAndCoreGroup() {
    JsonObject s = StatusException.resourceNotFound().toStatus();
    assertEquals("the server could not find the requested resource", s.getString("message"));
    assertEquals(404, s.getInteger("code"));
    JsonObject pods = StatusException.alreadyExists(new Gvr("", "v1", "pods"), "p").toStatus();
    assertEquals("pods \"p\" already exists", pods.getString("message"));
    assertFalse(pods.getJsonObject("details").containsKey("group"));
    assertEquals(409, pods.getInteger("code"));
  }

  @Test
  void badRequestHidesParserInternals() {
    String m = StatusException.badRequest("Failed to decode:Unexpected character ('x' (code 120)) at [Source: "
        + "REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 2]").getMessage();
    assertEquals("Failed to decode:Unexpected character ('x' (code 120)) at line 1, column 2", m);
  }

  @Test
  void conflictInvalidAndUnavailable() {
    assertEquals("Operation cannot be fulfilled on widgets.demo.mvproxy.io \"w1\": the object has been modified; "
        + "please apply your changes to the latest version and try again",
        StatusException.conflict(WIDGETS, "w1").toStatus().getString("message"));
    JsonArray causes = new JsonArray().add(new JsonObject().put("reason", "FieldValueInvalid")
        .put("message", "Invalid value: -1").put("field", "spec.size"));
    JsonObject inv = StatusException.invalid(WIDGETS, "Widget", "w1", causes).toStatus();
    assertEquals(422, inv.getInteger("code"));
    assertEquals("Invalid", inv.getString("reason"));
    assertEquals("Widget.demo.mvproxy.io \"w1\" is invalid: spec.size: Invalid value: -1", inv.getString("message"));
    assertEquals(causes, inv.getJsonObject("details").getJsonArray("causes"));
    assertEquals("Widget.demo.mvproxy.io \"a\\\"b\\t\" is invalid: spec.size: Invalid value: -1",
        StatusException.invalid(WIDGETS, "Widget", "a\"b\t", causes).getMessage(), "errors.NewInvalid's %q");
    StatusException u = StatusException.unavailable("no peer", 3);
    assertEquals(503, u.code());
    assertEquals(3, u.toStatus().getJsonObject("details").getInteger("retryAfterSeconds"));
    assertEquals("ServiceUnavailable", u.toStatus().getString("reason"));
  }
}
