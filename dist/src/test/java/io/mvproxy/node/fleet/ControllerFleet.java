package io.mvproxy.node.fleet;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Shared steps of the controller tests over a {@link FleetHarness}: the mixed layout (node-a "old" widgets, node-b
 * "new" widgets, node-c "new" widgets plus sprockets, a namespaced API only node-c serves), objects with owner
 * references, the Lease, the garbage collector's sweep counter.
 */
final class ControllerFleet {
  static final String LEASE = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/mvproxy-controller-manager";
  static final String JSON = "application/json";

  private final FleetHarness fleet;
  private final HttpsClient admin;

  ControllerFleet(FleetHarness fleet, HttpsClient admin) {
    this.fleet = fleet;
    this.admin = admin;
  }

  /** @return the sprockets CRD (only node-c serves it) */
  static Path sprockets() {
    try {
      return Path.of(ControllerFleet.class.getResource("/controllers/sprockets.yaml").toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** @param nodes the nodes to lay out, of node-a, node-b, node-c @return their plugins */
  static Map<String, Map<String, List<Path>>> layout(String... nodes) throws Exception {
    Map<String, Map<String, List<Path>>> all = FleetHarness.oldNewNew();
    all.get("node-c").put("sprockets", List.of(sprockets()));
    Map<String, Map<String, List<Path>>> out = new LinkedHashMap<>();
    for (String n : nodes) {
      out.put(n, all.get(n));
    }
    return out;
  }

  static String sprockets(String ns) {
    return "/apis/sprockets.mvproxy.io/v1/namespaces/" + ns + "/sprockets";
  }

  static String widgets(String ns) {
    return "/apis/demo.mvproxy.io/v1/namespaces/" + ns + "/widgets";
  }

  static String configmaps(String ns) {
    return "/api/v1/namespaces/" + ns + "/configmaps";
  }

  String url(String node) {
    return fleet.node(node).url();
  }

  HttpsClient.Resp send(String node, HttpMethod m, String path, JsonObject body) throws Exception {
    return admin.send(m, url(node), path, body == null ? Map.of() : Map.of("Content-Type", JSON),
        body == null ? null : body.encode());
  }

  int status(String node, String path) throws Exception {
    return admin.get(url(node), path).status();
  }

  /** Creates (201 expected) and returns the object. */
  JsonObject create(String node, String collection, JsonObject obj) throws Exception {
    HttpsClient.Resp r = send(node, HttpMethod.POST, collection, obj);
    if (r.status() != 201) {
      throw new AssertionError("create in " + collection + " through " + node + ": " + r.status() + " " + r.text());
    }
    return r.json();
  }

  void namespace(String node, String name) throws Exception {
    create(node, "/api/v1/namespaces", new JsonObject().put("apiVersion", "v1").put("kind", "Namespace")
        .put("metadata", new JsonObject().put("name", name)));
  }

  static JsonObject sprocket(String name) {
    return new JsonObject().put("apiVersion", "sprockets.mvproxy.io/v1").put("kind", "Sprocket")
        .put("metadata", new JsonObject().put("name", name)).put("spec", new JsonObject().put("teeth", 12));
  }

  static JsonObject widget(String name, JsonObject owner) {
    return owned(new JsonObject().put("apiVersion", "demo.mvproxy.io/v1").put("kind", "Widget")
        .put("metadata", new JsonObject().put("name", name)).put("spec", new JsonObject().put("color", "red")), owner);
  }

  static JsonObject configmap(String name, JsonObject owner) {
    return owned(new JsonObject().put("apiVersion", "v1").put("kind", "ConfigMap")
        .put("metadata", new JsonObject().put("name", name)).put("data", new JsonObject().put("k", "v")), owner);
  }

  /** Adds an ownerReference (blockOwnerDeletion true) to {@code owner}, unless it is null. */
  static JsonObject owned(JsonObject obj, JsonObject owner) {
    if (owner != null) {
      JsonObject md = owner.getJsonObject("metadata");
      obj.getJsonObject("metadata").put("ownerReferences", new JsonArray().add(new JsonObject()
          .put("apiVersion", owner.getString("apiVersion")).put("kind", owner.getString("kind"))
          .put("name", md.getString("name")).put("uid", md.getString("uid")).put("blockOwnerDeletion", true)));
    }
    return obj;
  }

  /** DELETE with a propagation policy (200/202 expected). */
  void delete(String node, String path, String policy) throws Exception {
    HttpsClient.Resp r = send(node, HttpMethod.DELETE, path, policy == null ? null
        : new JsonObject().put("kind", "DeleteOptions").put("apiVersion", "v1").put("propagationPolicy", policy));
    if (r.status() != 200 && r.status() != 202) {
      throw new AssertionError("delete " + path + " through " + node + ": " + r.status() + " " + r.text());
    }
  }

  /** @return the Lease's holder as read through {@code node} ({@code ""} when unset or unreadable) */
  String holder(String node) throws Exception {
    HttpsClient.Resp r = admin.get(url(node), LEASE);
    return r.status() == 200 ? r.json().getJsonObject("spec").getString("holderIdentity", "") : "";
  }

  /** @return {@code mvproxy_garbagecollector_sweeps_total} of a node (0 before its first sweep) */
  double sweeps(String node) throws Exception {
    return metric(node, "mvproxy_garbagecollector_sweeps_total");
  }

  /** @return the sum of a metric's samples on a node */
  double metric(String node, String name) throws Exception {
    double sum = 0;
    for (String line : admin.get(url(node), "/metrics").text().split("\n")) {
      if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  /** Waits until the leader finished {@code n} more garbage collector sweeps. */
  void awaitSweeps(String leader, int n) throws Exception {
    double start = sweeps(leader);
    FleetTest.await(n + " garbage collector sweeps on " + leader, 60_000, () -> sweeps(leader) >= start + n);
  }
}
