package io.mvproxy.example.wardle;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The REST surface of {@code flunders} (kubernetes/sample-apiserver {@code pkg/registry/wardle/flunder}, served by
 * apiserver's generic handlers): get, list, create, delete and watch (newline-delimited JSON events, chunked), JSON
 * only, errors as {@code Status}. Created objects record their creator in {@link WardleApi#CREATED_BY} and
 * {@link WardleApi#CREATED_BY_GROUPS} annotations (the sample's "whoami").
 */
public final class FlunderHandlers {
  private static final Pattern DNS1123_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final String ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789";

  private final FlunderStore store;
  private final SecureRandom random = new SecureRandom();

  /** @param store where flunders live */
  public FlunderHandlers(FlunderStore store) {
    this.store = store;
  }

  /**
   * Mounts the routes under {@link WardleApi#PREFIX}: {@code /flunders} (list/watch all namespaces),
   * {@code /namespaces/:ns/flunders} (list, watch, create), {@code /namespaces/:ns/flunders/:name} (get, delete),
   * and the {@code /watch/...} forms. Other methods get 405, other paths 404.
   *
   * @param router the router
   */
  public void mount(Router router) {
    String p = WardleApi.PREFIX;
    router.route(p + "/namespaces/:ns/flunders").method(HttpMethod.POST).handler(BodyHandler.create(false)
        .setBodyLimit(3 * 1024 * 1024)).handler(this::create);
    router.get(p + "/namespaces/:ns/flunders").handler(ctx -> listOrWatch(ctx, ctx.pathParam("ns"), false));
    router.get(p + "/flunders").handler(ctx -> listOrWatch(ctx, "", false));
    router.get(p + "/watch/namespaces/:ns/flunders").handler(ctx -> listOrWatch(ctx, ctx.pathParam("ns"), true));
    router.get(p + "/watch/flunders").handler(ctx -> listOrWatch(ctx, "", true));
    router.get(p + "/namespaces/:ns/flunders/:name").handler(this::get);
    router.delete(p + "/namespaces/:ns/flunders/:name").handler(this::delete);
    router.route(p + "/*").handler(ctx -> {
      boolean known = ctx.request().path().matches(java.util.regex.Pattern.quote(p)
          + "(/watch)?(/namespaces/[^/]+)?/flunders(/[^/]+)?/?");
      Statuses.send(ctx.response(), known
          ? Statuses.failure(405, "MethodNotAllowed", "the server does not allow this method on the requested "
              + "resource", new JsonObject())
          : Statuses.failure(404, "NotFound", "the server could not find the requested resource",
              new JsonObject()));
    });
  }

  private void get(RoutingContext ctx) {
    JsonObject o = store.get(ctx.pathParam("ns"), ctx.pathParam("name"));
    if (o == null) {
      notFound(ctx, ctx.pathParam("name"));
      return;
    }
    json(ctx.response(), 200, o);
  }

  private void listOrWatch(RoutingContext ctx, String namespace, boolean watchPath) {
    String w = ctx.request().getParam("watch");
    if (watchPath || "true".equals(w) || "1".equals(w)) {
      watch(ctx, namespace);
      return;
    }
    JsonArray items = new JsonArray();
    String rv;
    synchronized (store) {
      store.list(namespace).forEach(items::add);
      rv = store.resourceVersion();
    }
    json(ctx.response(), 200, new JsonObject().put("kind", WardleApi.KIND + "List")
        .put("apiVersion", WardleApi.GROUP_VERSION).put("metadata", new JsonObject().put("resourceVersion", rv))
        .put("items", items));
  }

  private void watch(RoutingContext ctx, String namespace) {
    HttpServerResponse resp = ctx.response();
    resp.setChunked(true).putHeader("Content-Type", "application/json");
    Context context = Vertx.currentContext();
    String rv = ctx.request().getParam("resourceVersion");
    boolean replay = rv == null || rv.isEmpty() || "0".equals(rv);
    FlunderStore.Subscription sub = store.watch(namespace, replay, ev -> context.runOnContext(v -> {
      if (!resp.ended() && !resp.closed()) {
        resp.write(ev.encode() + "\n");
      }
    }));
    resp.closeHandler(v -> sub.cancel());
    resp.endHandler(v -> sub.cancel());
    resp.writeHead(); // send the head now so clients see the watch is established
    String timeout = ctx.request().getParam("timeoutSeconds");
    if (timeout != null && timeout.matches("\\d{1,6}") && Long.parseLong(timeout) > 0) {
      ctx.vertx().setTimer(Long.parseLong(timeout) * 1000, t -> {
        sub.cancel();
        if (!resp.ended() && !resp.closed()) {
          resp.end();
        }
      });
    }
  }

  private void create(RoutingContext ctx) {
    String ns = ctx.pathParam("ns");
    JsonObject obj;
    try {
      obj = ctx.body().asJsonObject();
    } catch (DecodeException | ClassCastException e) {
      Statuses.send(ctx.response(), Statuses.failure(400, "BadRequest", "the request body is not a JSON object: "
          + e.getMessage(), null));
      return;
    }
    if (obj == null) {
      Statuses.send(ctx.response(), Statuses.failure(400, "BadRequest", "the request body is empty", null));
      return;
    }
    String apiVersion = obj.getString("apiVersion", WardleApi.GROUP_VERSION);
    String kind = obj.getString("kind", WardleApi.KIND);
    if (!WardleApi.GROUP_VERSION.equals(apiVersion) || !WardleApi.KIND.equals(kind)) {
      Statuses.send(ctx.response(), Statuses.failure(400, "BadRequest", "the API version in the data ("
          + apiVersion + ") or kind (" + kind + ") does not match the expected " + WardleApi.GROUP_VERSION + " "
          + WardleApi.KIND, null));
      return;
    }
    JsonObject meta = obj.getValue("metadata") instanceof JsonObject m ? m : new JsonObject();
    if (meta.getString("namespace") != null && !meta.getString("namespace").equals(ns)) {
      Statuses.send(ctx.response(), Statuses.failure(400, "BadRequest", "the namespace of the provided object does "
          + "not match the namespace sent on the request", null));
      return;
    }
    String name = meta.getString("name", "");
    if (name.isEmpty() && !meta.getString("generateName", "").isEmpty()) {
      name = meta.getString("generateName") + suffix();
    }
    if (name.isEmpty()) {
      Statuses.send(ctx.response(), Statuses.invalid("metadata.name", "", "Required value: name or generateName is "
          + "required"));
      return;
    }
    if (name.length() > 253 || !DNS1123_SUBDOMAIN.matcher(name).matches()) {
      Statuses.send(ctx.response(), Statuses.invalid("metadata.name", name, "Invalid value: \"" + name
          + "\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
          + "and must start and end with an alphanumeric character"));
      return;
    }
    Caller caller = ctx.get(Caller.CONTEXT_KEY, Caller.ANONYMOUS);
    JsonObject annotations = meta.getValue("annotations") instanceof JsonObject a ? a : new JsonObject();
    annotations.put(WardleApi.CREATED_BY, caller.user())
        .put(WardleApi.CREATED_BY_GROUPS, String.join(",", caller.groups()));
    meta.put("name", name).put("namespace", ns).put("uid", UUID.randomUUID().toString())
        .put("creationTimestamp", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString())
        .put("annotations", annotations);
    meta.remove("resourceVersion");
    JsonObject full = new JsonObject().put("apiVersion", WardleApi.GROUP_VERSION).put("kind", WardleApi.KIND)
        .put("metadata", meta).put("spec", obj.getValue("spec") instanceof JsonObject sp ? sp : new JsonObject());
    obj.forEach(e -> {
      if (!full.containsKey(e.getKey())) {
        full.put(e.getKey(), e.getValue());
      }
    });
    JsonObject stored = store.create(full);
    if (stored == null) {
      Statuses.send(ctx.response(), Statuses.failure(409, "AlreadyExists", WardleApi.RESOURCE + "." + WardleApi.GROUP
          + " \"" + name + "\" already exists", Statuses.flunderDetails(name)));
      return;
    }
    json(ctx.response(), 201, stored);
  }

  private void delete(RoutingContext ctx) {
    String name = ctx.pathParam("name");
    JsonObject o = store.delete(ctx.pathParam("ns"), name);
    if (o == null) {
      notFound(ctx, name);
      return;
    }
    JsonObject details = Statuses.flunderDetails(name).put("uid", o.getJsonObject("metadata").getString("uid"));
    json(ctx.response(), 200, new JsonObject().put("kind", "Status").put("apiVersion", "v1")
        .put("metadata", new JsonObject()).put("status", "Success").put("details", details));
  }

  private static void notFound(RoutingContext ctx, String name) {
    Statuses.send(ctx.response(), Statuses.failure(404, "NotFound", WardleApi.RESOURCE + "." + WardleApi.GROUP
        + " \"" + name + "\" not found", Statuses.flunderDetails(name)));
  }

  private static void json(HttpServerResponse resp, int code, JsonObject body) {
    resp.setStatusCode(code).putHeader("Content-Type", "application/json").end(body.encode());
  }

  private String suffix() {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 5; i++) {
      b.append(ALPHANUMS.charAt(random.nextInt(ALPHANUMS.length())));
    }
    return b.toString();
  }
}
