package io.mvproxy.node.plugin;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.storage.Preconditions;
import io.mvproxy.api.storage.ResourceStorage;
import io.mvproxy.api.storage.StorageException;
import io.mvproxy.node.plugin.ApiServiceVerticle.Served;
import io.mvproxy.node.routing.RoutingSnapshot;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

import static io.mvproxy.node.plugin.ApiServiceVerticle.SERVED_BY;
import static io.mvproxy.node.plugin.ApiServiceVerticle.isLocal;
import static io.mvproxy.node.plugin.ApiServiceVerticle.isPlugin;

/**
 * {@link ApiServiceVerticle}'s run of kube-aggregator's availability controller
 * ({@code pkg/controllers/status/remote/remote_available_controller.go}): each pass checks the backends of the
 * stored APIServices this node writes and writes {@code status.conditions[type=Available]} when it changed
 * ({@code Passed}, {@code ServiceNotFound}, {@code FailedDiscoveryCheck}; local APIServices {@code Available=True
 * Local}). The writer is the live node with the lowest server ID (for a plugin's APIService, the lowest live one
 * among the nodes whose plugins serve it). Runs on the verticle's context.
 */
final class ApiServiceAvailability {
  private static final Logger LOG = Logger.getLogger(ApiServiceVerticle.class.getName());

  private final PluginRegistry plugins;
  private final Supplier<RoutingSnapshot> routing;
  private final String serverId;
  private final ResourceStorage store;
  private final Map<String, Served> active;
  private final Supplier<Map<String, JsonObject>> stored;
  private final BooleanSupplier stopped;
  private final Set<String> checking = new HashSet<>();

  /**
   * @param plugins  this node's plugins (the sources of plugins' APIServices)
   * @param routing  this node's routing snapshot (the live peers)
   * @param serverId this node's server ID
   * @param store    the APIServices' storage ({@link ApiServiceVerticle#PREFIX})
   * @param active   the verticle's served API-created APIServices by name (read on its context)
   * @param stored   the stored APIServices by name as the verticle last saw them
   * @param stopped  true once the verticle stopped
   */
  ApiServiceAvailability(PluginRegistry plugins, Supplier<RoutingSnapshot> routing, String serverId,
                         ResourceStorage store, Map<String, Served> active, Supplier<Map<String, JsonObject>> stored,
                         BooleanSupplier stopped) {
    this.plugins = plugins;
    this.routing = routing;
    this.serverId = serverId;
    this.store = store;
    this.active = active;
    this.stored = stored;
    this.stopped = stopped;
  }

  /** @return the live server IDs (this node and the peers it routes to), sorted */
  private TreeSet<String> live() {
    TreeSet<String> out = new TreeSet<>(routing.get().peers().keySet());
    out.add(serverId);
    return out;
  }

  /**
   * Whether this node writes the Available condition of an APIService.
   *
   * @param o    the stored APIService
   * @param live the live server IDs, sorted
   * @param self this node's server ID
   * @return true for the lowest live server ID (a plugin's APIService: the lowest live one among its nodes)
   */
  static boolean writes(JsonObject o, TreeSet<String> live, String self) {
    if (!isPlugin(o)) {
      return self.equals(live.first());
    }
    TreeSet<String> nodes = new TreeSet<>();
    try {
      nodes.addAll(new JsonObject(o.getJsonObject("metadata").getJsonObject("annotations").getString(SERVED_BY))
          .fieldNames());
    } catch (RuntimeException e) {
      return false;
    }
    nodes.retainAll(live);
    return !nodes.isEmpty() && self.equals(nodes.first());
  }

  /** One pass of the availability controller over the stored APIServices this node writes. */
  void checkAvailability() {
    if (stopped.getAsBoolean() || store == null) {
      return;
    }
    TreeSet<String> live = live();
    Map<String, ApiSource> pluginSources = new HashMap<>();
    plugins.sources().forEach(s -> {
      if (s.name().startsWith("apiservice/")) {
        pluginSources.put(s.name().substring("apiservice/".length()), s);
      }
    });
    for (JsonObject o : stored.get().values()) {
      String name = o.getJsonObject("metadata").getString("name");
      if (!writes(o, live, serverId) || !checking.add(name)) {
        continue;
      }
      Future<JsonObject> cond;
      if (isLocal(o) && !isPlugin(o)) {
        cond = Future.succeededFuture(condition("True", "Local", "Local APIServices are always available"));
      } else {
        Served s = active.get(name);
        ApiSource src = isPlugin(o) ? pluginSources.get(name) : s == null ? null : s.source();
        if (src == null) {
          checking.remove(name);
          continue;
        }
        cond = src.refresh().transform(ar -> Future.succeededFuture(available(src)));
      }
      cond.compose(c -> writeCondition(o, c)).onComplete(ar -> {
        checking.remove(name);
        if (ar.failed() && !(ar.cause() instanceof StorageException)) {
          LOG.log(Level.FINE, "APIService " + name + " availability not written", ar.cause());
        }
      });
    }
  }

  /** @return the Available condition of a backend's source (Unknown Pending before its first check) */
  private static JsonObject available(ApiSource src) {
    for (Object c : src.status().getJsonArray("conditions", new JsonArray())) {
      if (c instanceof JsonObject j && "Available".equals(j.getString("type"))) {
        return j;
      }
    }
    return condition("Unknown", "Pending", "the discovery check has not completed yet");
  }

  /** @return an Available condition, {@code lastTransitionTime} now */
  private static JsonObject condition(String status, String reason, String message) {
    return new JsonObject().put("type", "Available").put("status", status).put("lastTransitionTime",
        Instant.now().truncatedTo(ChronoUnit.SECONDS).toString()).put("reason", reason).put("message", message);
  }

  /**
   * Writes the Available condition when its status, reason or message changed ({@code lastTransitionTime} moves only
   * with the status, as {@code SetAPIServiceCondition}).
   */
  private Future<Void> writeCondition(JsonObject seen, JsonObject cond) {
    Optional<JsonObject> cur = current(seen);
    if (cur.isPresent() && same(cur.get(), cond)) {
      return Future.succeededFuture();
    }
    String name = seen.getJsonObject("metadata").getString("name");
    String uid = seen.getJsonObject("metadata").getString("uid");
    return store.guaranteedUpdate(name, new Preconditions(uid, null), so -> {
      JsonObject next = so.object().copy();
      Optional<JsonObject> old = current(next);
      if (old.isPresent() && same(old.get(), cond)) {
        return so.object();
      }
      JsonObject c = cond.copy();
      if (old.isPresent() && old.get().getString("status", "").equals(c.getString("status"))) {
        c.put("lastTransitionTime", old.get().getString("lastTransitionTime"));
      }
      JsonObject status = next.getValue("status") instanceof JsonObject st ? st : new JsonObject();
      JsonArray conds = new JsonArray();
      status.getJsonArray("conditions", new JsonArray()).forEach(x -> {
        if (!(x instanceof JsonObject j && "Available".equals(j.getString("type")))) {
          conds.add(x);
        }
      });
      conds.add(c);
      next.put("status", status.put("conditions", conds));
      next.getJsonObject("metadata").remove("resourceVersion");
      return next;
    }).<Void>mapEmpty().onSuccess(v -> LOG.info("APIService " + name + " Available=" + cond.getString("status")
        + " (" + cond.getString("reason") + "): " + cond.getString("message")));
  }

  /** @return the APIService's Available condition, if any */
  private static Optional<JsonObject> current(JsonObject o) {
    JsonObject status = o.getValue("status") instanceof JsonObject st ? st : new JsonObject();
    for (Object x : status.getJsonArray("conditions", new JsonArray())) {
      if (x instanceof JsonObject j && "Available".equals(j.getString("type"))) {
        return Optional.of(j);
      }
    }
    return Optional.empty();
  }

  /** @return true when both conditions have the same status, reason and message */
  private static boolean same(JsonObject a, JsonObject b) {
    return a.getString("status", "").equals(b.getString("status")) && a.getString("reason", "").equals(
        b.getString("reason")) && a.getString("message", "").equals(b.getString("message"));
  }
}
