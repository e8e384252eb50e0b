package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.PrettyJson;
import io.mvproxy.api.StatusWriter;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * Writes JSON answers; maps failures to Kubernetes {@code Status} errors (apimachinery {@code pkg/api/errors/errors.go}),
 * which the node's one {@link StatusWriter} writes.
 */
public final class Responses {
  /** Content type of JSON answers. */
  public static final String JSON = "application/json";

  private Responses() {
  }

  /** Sends {@code body} with HTTP {@code code} as {@code application/json}. */
  public static void send(RoutingContext ctx, int code, JsonObject body) {
    send(ctx, code, body, JSON);
  }

  /**
   * Sends {@code body} with HTTP {@code code} and {@code contentType}, gzip-compressed when it is large and the client
   * accepts it ({@link io.mvproxy.api.ResponseCompression}).
   */
  public static void send(RoutingContext ctx, int code, JsonObject body, String contentType) {
    HttpServerResponse r = ctx.response();
    if (r.ended() || r.closed()) {
      return;
    }
    io.mvproxy.api.RequestScope scope = io.mvproxy.api.RequestScope.of(ctx);
    if (scope.auditing()) {
      if ("Status".equals(body.getString("kind"))) {
        scope.auditStatus(body);
      }
      scope.auditResponseObject(body);
    }
    r.setStatusCode(code).putHeader("Content-Type", contentType);
    io.mvproxy.api.ResponseCompression.end(ctx,
        io.mvproxy.api.BoolParam.of(ctx.request().getParam("pretty")) ? PrettyJson.encode(body) : body.toBuffer());
  }

  /**
   * Answers a failure of {@code req} as a {@code Status}; storage failures get the resource-specific text
   * ({@link io.mvproxy.api.storage.StorageException#forResource}: {@code widgets.example.com "w1" not found}).
   */
  public static void fail(CrdRequest req, Throwable t) {
    fail(req.ctx(), t instanceof io.mvproxy.api.storage.StorageException se
        ? se.forResource(req.gvr(), req.name().isEmpty() && se.key() != null ? lastSegment(se.key()) : req.name())
        : t);
  }

  private static String lastSegment(String key) {
    return key.substring(key.lastIndexOf('/') + 1);
  }

  /**
   * Answers a failure as a {@code Status} through the node's one {@link StatusWriter} ({@link #toStatus}); an
   * unexpected one (not a Status, answered 500) is logged once first ({@link StatusWriter#logUnexpected}).
   */
  public static void fail(RoutingContext ctx, Throwable t) {
    StatusException e = toStatus(t);
    StatusWriter.logUnexpected(ctx, t, e);
    StatusWriter.send(ctx, e);
  }

  /**
   * @return {@code t} as a StatusException: {@link StatusWriter#toStatus}, and 400 for a JSON value of the wrong type
   *     ({@code ClassCastException} from reading a body field)
   */
  public static StatusException toStatus(Throwable t) {
    if (t instanceof ClassCastException) {
      return StatusException.badRequest("the object provided is not valid JSON: " + t.getMessage());
    }
    return StatusWriter.toStatus(t);
  }

  /** A {@code Status} of success for an immediate delete (apiserver {@code registry/generic/registry/store.go}). */
  public static JsonObject deleted(CrdRequest req, String uid) {
    JsonObject details = new JsonObject().put("name", req.name()).put("group", req.crd().group())
        .put("kind", req.crd().plural());
    if (uid != null) {
      details.put("uid", uid);
    }
    return new JsonObject().put("kind", "Status").put("apiVersion", "v1").put("metadata", new JsonObject())
        .put("status", "Success").put("details", details);
  }
}
