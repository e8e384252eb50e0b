package io.mvproxy.node.plugin;

import io.mvproxy.api.Gvr;
import io.mvproxy.node.plugin.ApiCrdVerticle.Served;
import io.mvproxy.node.routing.RoutingSnapshot;
import io.mvproxy.registry.impl.model.CrdConditions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static io.mvproxy.node.plugin.ApiCrdVerticle.now;

/**
 * The fleet-wide Established decision of {@link ApiCrdVerticle}'s establishing controller
 * ({@code apiextensions-apiserver/pkg/controller/establish}, with kube's HA wait of
 * {@code customresource_handler.go}): an API-created CRD whose names are accepted becomes
 * {@code Established=True InitialNamesAccepted} only once every live node serves it.
 */
final class CrdEstablishing {
  private final Map<String, Served> active;
  private final Supplier<RoutingSnapshot> routing;

  /**
   * @param active  the verticle's served API CRDs by name (read on its context)
   * @param routing this node's current routing snapshot
   */
  CrdEstablishing(Map<String, Served> active, Supplier<RoutingSnapshot> routing) {
    this.active = active;
    this.routing = routing;
  }

  /** @return the CRD Established when every live node serves it now and it was not yet, else null */
  JsonObject establishing(JsonObject crd) {
    if (!CrdConditions.isTrue(crd, CrdConditions.NAMES_ACCEPTED) || CrdConditions.isTrue(crd,
        CrdConditions.ESTABLISHED)) {
      return null;
    }
    String name = crd.getJsonObject("metadata").getString("name");
    if (!servedByFleet(crd, name)) {
      return null;
    }
    JsonObject next = crd.copy();
    CrdConditions.set(next, CrdConditions.ESTABLISHED, "True", "InitialNamesAccepted",
        "the initial names have been accepted", now());
    return next;
  }

  /**
   * How Established is detected: this node serves the current generation and its routing has it, the fleet's API
   * set is fully known (no member, record or discovery awaited), and every live peer's fetched discovery lists the
   * resource in every served version.
   */
  private boolean servedByFleet(JsonObject crd, String name) {
    Served mine = active.get(name);
    JsonObject md = crd.getJsonObject("metadata");
    if (mine == null || !mine.key().equals(md.getString("uid") + "/" + md.getValue("generation"))) {
      return false;
    }
    return servedByFleet(crd, routing.get());
  }

  /**
   * Whether every live node serves a CRD, as this node sees the fleet (the Established rule): the fleet's API set is
   * fully known ({@link RoutingSnapshot#ready()}, nothing awaited), this node routes every served version's resource
   * to a local source it publishes, and every live peer's discovery has been fetched and lists each of them.
   *
   * @param crd     the stored CRD ({@code spec.group}, {@code spec.names.plural}, {@code spec.versions})
   * @param routing this node's routing snapshot
   * @return true when every live node serves every served version
   */
  static boolean servedByFleet(JsonObject crd, RoutingSnapshot routing) {
    RoutingSnapshot r = routing;
    if (!r.ready() || !r.awaiting().isEmpty()) {
      return false;
    }
    JsonObject spec = crd.getJsonObject("spec");
    String group = spec.getString("group");
    String plural = spec.getJsonObject("names").getString("plural");
    List<Gvr> gvrs = new ArrayList<>();
    for (Object o : spec.getJsonArray("versions", new JsonArray())) {
      JsonObject v = (JsonObject) o;
      if (v.getBoolean("served", false)) {
        gvrs.add(new Gvr(group, v.getString("name"), plural));
      }
    }
    for (Gvr g : gvrs) {
      if (r.local().get(g) == null || !r.localCaps().serves(g, "")) {
        return false;
      }
      for (RoutingSnapshot.PeerEntry p : r.peers().values()) {
        if (!p.loaded() || !p.caps().serves(g, "")) {
          return false;
        }
      }
    }
    return !gvrs.isEmpty();
  }
}
