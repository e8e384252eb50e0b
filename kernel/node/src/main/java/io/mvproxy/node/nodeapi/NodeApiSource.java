package io.mvproxy.node.nodeapi;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.Gvr;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.Freshness;
import io.mvproxy.api.discovery.ResponseKind;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.function.Supplier;

/**
 * mvproxy's own read-only API, served by every node under {@code mvproxy.io/v1alpha1}: {@code plugins} (this node's
 * plugin jars and their states: ACTIVE, FAILED with the error) and {@code apiservernodes} (every member of the fleet
 * with its server ID, version, address, plugins and served group-versions, so operators see the mixed-version state
 * from any node). Verbs get and list; Table output for kubectl; anything else 405.
 */
public final class NodeApiSource implements ApiSource {
  /** The group-version of mvproxy's own API. */
  public static final GroupVersion GV = new GroupVersion("mvproxy.io", "v1alpha1");
  private static final List<String> VERBS = List.of("get", "list");

  private final Supplier<List<JsonObject>> plugins;
  private final Supplier<List<JsonObject>> nodes;

  /**
   * @param plugins current Plugin objects of this node (full JSON objects)
   * @param nodes   current APIServerNode objects of the fleet
   */
  public NodeApiSource(Supplier<List<JsonObject>> plugins, Supplier<List<JsonObject>> nodes) {
    this.plugins = plugins;
    this.nodes = nodes;
  }

  @Override
  public String name() {
    return "builtin/mvproxy.io";
  }

  @Override
  public List<ServedGroupVersion> groupVersions() {
    return List.of(new ServedGroupVersion(GV, 1000, 100, List.of(
        resource("apiservernodes", "apiservernode", "APIServerNode", List.of("asn")),
        resource("plugins", "plugin", "Plugin", List.of("plg"))), Freshness.Current));
  }

  private static DiscoveryResource resource(String plural, String singular, String kind, List<String> shortNames) {
    return new DiscoveryResource(plural, singular, new ResponseKind(GV.group(), GV.version(), kind), false, VERBS,
        shortNames, List.of(), List.of(), null);
  }

  @Override
  public void handle(RoutingContext ctx, RequestInfo info, UserInfo user) {
    boolean isPlugins = info.resource().equals("plugins");
    Gvr gvr = info.gvr();
    if (!info.namespace().isEmpty() || !info.subresource().isEmpty()) {
      throw StatusException.resourceNotFound();
    }
    if (!info.verb().equals("get") && !info.verb().equals("list")) {
      throw new StatusException(StatusReason.MethodNotAllowed, info.verb() + " is not supported on "
          + gvr.groupResource() + ": it is read-only", null);
    }
    List<JsonObject> items = isPlugins ? plugins.get() : nodes.get();
    String kind = isPlugins ? "Plugin" : "APIServerNode";
    boolean table = String.valueOf(ctx.request().getHeader("Accept")).contains("as=Table");
    if (info.verb().equals("get")) {
      JsonObject obj = items.stream().filter(o -> info.name().equals(o.getJsonObject("metadata").getString("name")))
          .findFirst().orElseThrow(() -> StatusException.notFound(gvr, info.name()));
      send(ctx, table ? Tables.of(isPlugins, List.of(obj)) : obj);
      return;
    }
    JsonArray arr = new JsonArray();
    items.forEach(arr::add);
    send(ctx, table ? Tables.of(isPlugins, items) : new JsonObject().put("apiVersion", GV.apiVersion())
        .put("kind", kind + "List").put("metadata", new JsonObject().put("resourceVersion", "")).put("items", arr));
  }

  private static void send(RoutingContext ctx, JsonObject body) {
    ctx.response().putHeader("Content-Type", "application/json").end(body.encode());
  }
}
