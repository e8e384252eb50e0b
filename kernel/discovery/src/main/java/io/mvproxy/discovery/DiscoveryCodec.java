package io.mvproxy.discovery;

import io.mvproxy.api.discovery.DiscoveryGroup;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.DiscoverySubresource;
import io.mvproxy.api.discovery.DiscoveryVersion;
import io.mvproxy.api.discovery.Freshness;
import io.mvproxy.api.discovery.ResponseKind;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * Aggregated discovery JSON ({@code APIGroupDiscoveryList}, Kubernetes {@code k8s.io/api/apidiscovery/v2/types.go}
 * and {@code v2beta1}, same shape): writing and parsing (peers' documents arrive as JSON).
 *
 * <p>Written field order is fixed, so equal inputs give byte-identical output. {@code responseKind},
 * {@code singularResource}, {@code scope} and {@code verbs} are always written; empty {@code shortNames},
 * {@code categories} and {@code subresources} are omitted (Go {@code omitempty}); the core group's empty name is
 * omitted too, as Kubernetes does.
 */
public final class DiscoveryCodec {
  private DiscoveryCodec() {
  }

  /**
   * @param groups the groups, in emitted order
   * @param format {@link DiscoveryFormat#V2} or {@link DiscoveryFormat#V2BETA1}
   * @return the {@code APIGroupDiscoveryList} object
   * @throws IllegalArgumentException for {@link DiscoveryFormat#LEGACY}
   */
  public static JsonObject toJson(List<DiscoveryGroup> groups, DiscoveryFormat format) {
    if (!format.aggregated()) {
      throw new IllegalArgumentException("not an aggregated format: " + format);
    }
    JsonArray items = new JsonArray();
    for (DiscoveryGroup g : groups) {
      JsonObject meta = new JsonObject();
      if (!g.name().isEmpty()) {
        meta.put("name", g.name());
      }
      JsonArray versions = new JsonArray();
      g.versions().forEach(v -> versions.add(version(v)));
      items.add(new JsonObject().put("metadata", meta).put("versions", versions));
    }
    return new JsonObject().put("kind", DiscoveryFormat.LIST_KIND).put("apiVersion", format.apiVersion())
        .put("metadata", new JsonObject()).put("items", items);
  }

  /**
   * @param groups the groups, in emitted order
   * @param format an aggregated format
   * @return the compact JSON bytes of {@link #toJson}
   */
  public static Buffer encode(List<DiscoveryGroup> groups, DiscoveryFormat format) {
    return toJson(groups, format).toBuffer();
  }

  private static JsonObject version(DiscoveryVersion v) {
    JsonArray resources = new JsonArray();
    v.resources().forEach(r -> resources.add(resource(r)));
    return new JsonObject().put("version", v.version()).put("freshness", v.freshness().name())
        .put("resources", resources);
  }

  private static JsonObject resource(DiscoveryResource r) {
    JsonObject o = new JsonObject().put("resource", r.resource())
        .put("singularResource", r.singularResource() == null ? "" : r.singularResource())
        .put("scope", r.scope()).put("responseKind", kind(r.responseKind()))
        .put("verbs", new JsonArray(new ArrayList<>(r.verbs())));
    if (!r.shortNames().isEmpty()) {
      o.put("shortNames", new JsonArray(new ArrayList<>(r.shortNames())));
    }
    if (!r.categories().isEmpty()) {
      o.put("categories", new JsonArray(new ArrayList<>(r.categories())));
    }
    if (!r.subresources().isEmpty()) {
      JsonArray subs = new JsonArray();
      for (DiscoverySubresource s : r.subresources()) {
        subs.add(new JsonObject().put("subresource", s.subresource()).put("responseKind", kind(s.responseKind()))
            .put("verbs", new JsonArray(new ArrayList<>(s.verbs()))));
      }
      o.put("subresources", subs);
    }
    return o;
  }

  private static JsonObject kind(ResponseKind k) {
    return new JsonObject().put("group", k.group()).put("version", k.version()).put("kind", k.kind());
  }

  /**
   * Parses an aggregated document of either version. Lenient as client-go is: a missing {@code freshness} means
   * {@code Current}; resources and subresources without {@code responseKind} are dropped.
   *
   * @param body the JSON bytes of an {@code APIGroupDiscoveryList}
   * @return its groups, order kept ({@code storageVersionHash} null: aggregated discovery does not carry it)
   * @throws IllegalArgumentException when the body is not JSON or not an {@code APIGroupDiscoveryList}
   */
  public static List<DiscoveryGroup> decode(Buffer body) {
    JsonObject doc;
    try {
      doc = new JsonObject(body);
    } catch (DecodeException | ClassCastException e) {
      throw new IllegalArgumentException("discovery document is not a JSON object: " + e.getMessage(), e);
    }
    return fromJson(doc);
  }

  /**
   * @param doc an {@code APIGroupDiscoveryList} object
   * @return its groups, order kept
   * @throws IllegalArgumentException when it is not an {@code APIGroupDiscoveryList} or is malformed
   */
  public static List<DiscoveryGroup> fromJson(JsonObject doc) {
    if (!DiscoveryFormat.LIST_KIND.equals(doc.getValue("kind"))) {
      throw new IllegalArgumentException("not an APIGroupDiscoveryList: kind=" + doc.getValue("kind"));
    }
    try {
      List<DiscoveryGroup> groups = new ArrayList<>();
      for (JsonObject g : objects(doc.getJsonArray("items"))) {
        JsonObject meta = g.getJsonObject("metadata", new JsonObject());
        List<DiscoveryVersion> versions = new ArrayList<>();
        for (JsonObject v : objects(g.getJsonArray("versions"))) {
          versions.add(parseVersion(v));
        }
        groups.add(new DiscoveryGroup(meta.getString("name", ""), versions));
      }
      return groups;
    } catch (ClassCastException | NullPointerException e) {
      throw new IllegalArgumentException("malformed APIGroupDiscoveryList: " + e, e);
    }
  }

  private static DiscoveryVersion parseVersion(JsonObject v) {
    List<DiscoveryResource> resources = new ArrayList<>();
    for (JsonObject r : objects(v.getJsonArray("resources"))) {
      ResponseKind kind = parseKind(r.getJsonObject("responseKind"));
      if (kind == null) {
        continue;
      }
      List<DiscoverySubresource> subs = new ArrayList<>();
      for (JsonObject s : objects(r.getJsonArray("subresources"))) {
        ResponseKind sk = parseKind(s.getJsonObject("responseKind"));
        if (sk != null) {
          subs.add(new DiscoverySubresource(s.getString("subresource"), sk, strings(s.getJsonArray("verbs"))));
        }
      }
      resources.add(new DiscoveryResource(r.getString("resource"), r.getString("singularResource", ""), kind,
          "Namespaced".equals(r.getString("scope")), strings(r.getJsonArray("verbs")),
          strings(r.getJsonArray("shortNames")), strings(r.getJsonArray("categories")), subs, null));
    }
    Freshness f = "Stale".equals(v.getString("freshness")) ? Freshness.Stale : Freshness.Current;
    return new DiscoveryVersion(v.getString("version"), resources, f);
  }

  private static ResponseKind parseKind(JsonObject k) {
    return k == null ? null
        : new ResponseKind(k.getString("group", ""), k.getString("version", ""), k.getString("kind", ""));
  }

  private static List<JsonObject> objects(JsonArray a) {
    List<JsonObject> out = new ArrayList<>();
    if (a != null) {
      for (int i = 0; i < a.size(); i++) {
        out.add(a.getJsonObject(i));
      }
    }
    return out;
  }

  private static List<String> strings(JsonArray a) {
    List<String> out = new ArrayList<>();
    if (a != null) {
      for (int i = 0; i < a.size(); i++) {
        out.add(a.getString(i));
      }
    }
    return out;
  }
}
