package io.mvproxy.example.clock;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.GroupVersion;
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
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code time.example.com/v1} {@code clocks}: a computed, read-only, cluster-scoped API written as an
 * {@link ApiSource} by hand (its sibling {@link Alarms} is a stored kind the node's registry serves). Each Clock is a time zone
 * ({@code metadata.name} = the zone ID lower-cased with {@code /} and {@code _} as {@code -}, e.g.
 * {@code europe-paris}); {@code status} holds the current time there. Verbs get and list (Table for kubectl);
 * other verbs 405, unknown clocks 404.
 */
public final class ClockSource implements ApiSource {
  static final GroupVersion GV = new GroupVersion("time.example.com", "v1");
  private static final ResponseKind KIND = new ResponseKind(GV.group(), GV.version(), "Clock");
  private final Map<String, ZoneId> zones = new TreeMap<>();

  /** Serves the clocks of a few well-known zones. */
  public ClockSource() {
    for (String z : List.of("UTC", "Europe/Paris", "America/New_York", "Asia/Tokyo", "Australia/Sydney")) {
      zones.put(z.toLowerCase().replace('/', '-').replace('_', '-'), ZoneId.of(z));
    }
  }

  @Override
  public String name() {
    return "code/clocks.time.example.com";
  }

  @Override
  public List<ServedGroupVersion> groupVersions() {
    return List.of(new ServedGroupVersion(GV, 1000, 100, List.of(new DiscoveryResource("clocks", "clock", KIND,
        false, List.of("get", "list"), List.of("clk"), List.of(), List.of(), null)), Freshness.Current));
  }

  @Override
  public void handle(RoutingContext ctx, RequestInfo info, UserInfo user) {
    if (!info.namespace().isEmpty() || !info.subresource().isEmpty()) {
      throw StatusException.resourceNotFound();
    }
    if (!"get".equals(info.verb()) && !"list".equals(info.verb())) {
      throw new StatusException(StatusReason.MethodNotAllowed, "clocks are read-only", null);
    }
    boolean table = String.valueOf(ctx.request().getHeader("Accept")).contains("as=Table");
    JsonArray items = new JsonArray();
    for (Map.Entry<String, ZoneId> z : zones.entrySet()) {
      if (info.name().isEmpty() || info.name().equals(z.getKey())) {
        items.add(clock(z.getKey(), z.getValue()));
      }
    }
    if (!info.name().isEmpty() && items.isEmpty()) {
      throw StatusException.notFound(info.gvr(), info.name());
    }
    JsonObject body = table ? table(items) : info.name().isEmpty()
        ? new JsonObject().put("apiVersion", GV.apiVersion()).put("kind", "ClockList")
        .put("metadata", new JsonObject().put("resourceVersion", "")).put("items", items)
        : items.getJsonObject(0);
    ctx.response().putHeader("Content-Type", "application/json").end(body.encode());
  }

  private static JsonObject clock(String name, ZoneId zone) {
    ZonedDateTime now = ZonedDateTime.now(zone);
    return new JsonObject().put("apiVersion", GV.apiVersion()).put("kind", "Clock")
        .put("metadata", new JsonObject().put("name", name))
        .put("spec", new JsonObject().put("timeZone", zone.getId()))
        .put("status", new JsonObject().put("time", now.format(DateTimeFormatter.ISO_OFFSET_DATE_TIME))
            .put("utcOffset", now.getOffset().getId()));
  }

  private static JsonObject table(JsonArray items) {
    JsonArray cols = new JsonArray();
    for (String c : List.of("Name", "Time Zone", "Time", "UTC Offset")) {
      cols.add(new JsonObject().put("name", c).put("type", "string").put("format", c.equals("Name") ? "name" : "")
          .put("description", c).put("priority", 0));
    }
    JsonArray rows = new JsonArray();
    for (Object o : items) {
      JsonObject c = (JsonObject) o;
      rows.add(new JsonObject().put("cells", new JsonArray().add(c.getJsonObject("metadata").getString("name"))
              .add(c.getJsonObject("spec").getString("timeZone")).add(c.getJsonObject("status").getString("time"))
              .add(c.getJsonObject("status").getString("utcOffset")))
          .put("object", new JsonObject().put("kind", "PartialObjectMetadata").put("apiVersion", "meta.k8s.io/v1")
              .put("metadata", c.getJsonObject("metadata"))));
    }
    return new JsonObject().put("kind", "Table").put("apiVersion", "meta.k8s.io/v1")
        .put("metadata", new JsonObject().put("resourceVersion", "")).put("columnDefinitions", cols)
        .put("rows", rows);
  }
}
