package io.mvproxy.controllers;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Logger;

/**
 * The garbage collector ({@code pkg/controller/garbagecollector/garbagecollector.go}, {@code graph_builder.go}),
 * for custom resources and built-ins alike, acting through the node's API. Each sweep reads the fleet's discovery,
 * lists every resource with {@code list} and {@code delete} (events excluded, as upstream's ignored resources) and
 * builds the owner -> dependents graph by uid; then:
 * <ul>
 *   <li>a dependent whose owners are all absent is deleted (uid precondition) with the policy its own finalizers
 *   ask for ({@code orphan} -> Orphan, {@code foregroundDeletion} -> Foreground), else Background; one with a solid
 *   owner keeps living, its dangling and waiting references patched out; one whose only owners are being deleted in
 *   the foreground is deleted (Foreground when it has dependents itself);</li>
 *   <li>an owner deleted in the foreground loses {@code foregroundDeletion} once no dependent with
 *   {@code blockOwnerDeletion: true} remains; an owner deleted with Orphan gets its reference patched out of every
 *   dependent, then loses {@code orphan}; both only when every resource could be listed (else a dependent may be
 *   missing from the graph).</li>
 * </ul>
 * The rule of the mixed-version fleet: an owner is absent only when a node that serves its resource answers 404
 * for that name (a {@code NotFound} Status naming it) or the name has another uid. An owner whose group-version is
 * {@code Stale} or missing from discovery, or whose read answers 503 (or anything else), is UNKNOWN: its dependents
 * are kept, a {@code Warning} event {@value #UNKNOWN_REASON} on the dependent and
 * {@link GcObserver#ownerUnknown} say why, and the next sweep looks again. Differs from upstream: a periodic relist
 * instead of informers (owners and dependents are judged every sweep, not on events).
 *
 * <p>Without the Mixed Version Proxy ({@code UnknownVersionInteroperabilityProxy=false}) it applies upstream's rule
 * instead ({@code errors.IsNotFound} in {@code attemptToDeleteItem}): any 404 to the owner's GET makes it absent,
 * including the 404 of a server that does not serve the owner's resource, which is the harm the proxy prevents.
 */
public final class GarbageCollector {
  /** The finalizer of foreground deletion. */
  public static final String FOREGROUND = "foregroundDeletion";
  /** The finalizer of orphan deletion. */
  public static final String ORPHAN = "orphan";
  /** Event reason when an owner cannot be read and its dependent is kept. */
  public static final String UNKNOWN_REASON = "OwnerUnknown";
  /** Event reason of a cluster-scoped dependent naming a namespaced owner (upstream's). */
  public static final String INVALID_NAMESPACE_REASON = "OwnerRefInvalidNamespace";
  /** Event source component (upstream's). */
  public static final String COMPONENT = "garbage-collector-controller";
  private static final Logger LOG = Logger.getLogger(GarbageCollector.class.getName());
  private static final Set<String> IGNORED = Set.of("events", "events.events.k8s.io");

  /** One listed object. */
  private record Obj(ApiResource resource, String apiVersion, String kind, JsonObject metadata) {
    String uid() {
      return metadata.getString("uid", "");
    }

    String name() {
      return metadata.getString("name", "");
    }

    String namespace() {
      return metadata.getString("namespace", "");
    }

    String path() {
      return resource.objectPath(namespace(), name());
    }

    boolean deleting() {
      return metadata.getValue("deletionTimestamp") != null;
    }

    boolean hasFinalizer(String f) {
      return metadata.getJsonArray("finalizers", new JsonArray()).contains(f);
    }

    List<OwnerReference> owners() {
      return OwnerReference.of(metadata);
    }
  }

  /** The graph of one sweep. */
  private static final class Graph {
    final Map<String, Obj> byUid = new HashMap<>();
    final Map<String, List<Obj>> dependents = new HashMap<>();
    boolean complete = true;
  }

  private final Vertx vertx;
  private final ApiClient api;
  private final FleetDiscovery discovery;
  private final Duration period;
  private final GcObserver observer;
  private final Set<String> reported = new HashSet<>();
  private final boolean anyNotFound;
  private boolean running;
  private boolean sweeping;
  private long timer = -1;

  /**
   * @param vertx     the node's Vert.x
   * @param api       the client, authenticated as {@code system:serviceaccount:kube-system:generic-garbage-collector}
   * @param discovery the node's discovery through the API
   * @param period    time between sweeps
   * @param observer  metrics sink
   */
  public GarbageCollector(Vertx vertx, ApiClient api, FleetDiscovery discovery, Duration period,
                          GcObserver observer) {
    this(vertx, api, discovery, period, observer, false);
  }

  /**
   * @param vertx       the node's Vert.x
   * @param api         the client, authenticated as {@code system:serviceaccount:kube-system:generic-garbage-collector}
   * @param discovery   the node's discovery through the API
   * @param period      time between sweeps
   * @param observer    metrics sink
   * @param anyNotFound upstream's rule (any 404 for the owner makes it absent), for a fleet without the proxy
   */
  public GarbageCollector(Vertx vertx, ApiClient api, FleetDiscovery discovery, Duration period,
                          GcObserver observer, boolean anyNotFound) {
    this.anyNotFound = anyNotFound;
    this.vertx = vertx;
    this.api = api;
    this.discovery = discovery;
    this.period = period;
    this.observer = observer;
  }

  /** Starts sweeping (on the caller's context). */
  public void start() {
    running = true;
    schedule();
  }

  /** Stops after the sweep in flight. */
  public void stop() {
    running = false;
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
  }

  private void schedule() {
    if (running) {
      timer = vertx.setTimer(Math.max(1, period.toMillis()), t -> {
        if (sweeping) {
          schedule();
          return;
        }
        sweeping = true;
        sweep().onComplete(ar -> {
          sweeping = false;
          if (ar.failed()) {
            LOG.warning("garbage collector sweep failed: " + ar.cause());
          } else {
            observer.swept();
          }
          schedule();
        });
      });
    }
  }

  /** @return completes after one sweep (discovery, lists, decisions) */
  public Future<Void> sweep() {
    return discovery.discover().compose(d -> list(d).compose(g -> {
      List<Future<Void>> work = new ArrayList<>();
      for (Obj o : g.byUid.values()) {
        if (o.deleting() && o.hasFinalizer(FOREGROUND)) {
          work.add(foreground(o, g));
        } else if (o.deleting() && o.hasFinalizer(ORPHAN)) {
          work.add(orphan(o, g));
        }
      }
      Map<String, Future<ApiResponse>> reads = new HashMap<>();
      for (Obj o : g.byUid.values()) {
        if (!o.deleting() && !o.owners().isEmpty()) {
          work.add(judge(o, d, g, reads).recover(t -> {
            LOG.fine("garbage collector: " + o.path() + ": " + t);
            return Future.succeededFuture();
          }));
        }
      }
      return Future.join(work).mapEmpty();
    }));
  }

  private Future<Graph> list(Discovered d) {
    Graph g = new Graph();
    if (!d.failed().isEmpty()) {
      g.complete = false;
    }
    List<Future<Void>> lists = new ArrayList<>();
    for (ApiResource r : d.preferred(false, "list", "delete")) {
      if (IGNORED.contains(r.groupResource())) {
        continue;
      }
      lists.add(api.get(r.collectionPath(null)).map(resp -> {
        if (!resp.ok()) {
          g.complete = false;
          LOG.fine("garbage collector: cannot list " + r.gvrText() + ": " + resp.message());
          return null;
        }
        for (Object item : resp.items()) {
          JsonObject md = ((JsonObject) item).getJsonObject("metadata", new JsonObject());
          Obj o = new Obj(r, r.groupVersion(), r.kind(), md);
          g.byUid.put(o.uid(), o);
        }
        return null;
      }));
    }
    return Future.join(lists).map(v -> {
      for (Obj o : g.byUid.values()) {
        for (OwnerReference ref : o.owners()) {
          g.dependents.computeIfAbsent(ref.uid(), k -> new ArrayList<>()).add(o);
        }
      }
      return g;
    });
  }

  /** {@code attemptToDeleteItem} for a dependent that is not being deleted. */
  private Future<Void> judge(Obj o, Discovered d, Graph g, Map<String, Future<ApiResponse>> reads) {
    List<OwnerReference> refs = o.owners();
    List<Future<OwnerState>> states = new ArrayList<>();
    for (OwnerReference ref : refs) {
      states.add(classify(o, ref, d, g, reads));
    }
    return Future.all(states).compose(cf -> {
      List<OwnerReference> solid = new ArrayList<>();
      List<OwnerReference> gone = new ArrayList<>();
      boolean waiting = false;
      for (int i = 0; i < refs.size(); i++) {
        OwnerReference ref = refs.get(i);
        OwnerState s = states.get(i).result();
        if (s instanceof OwnerState.Unknown u) {
          observer.ownerUnknown(ref, u.reason());
          return report(o, ref, UNKNOWN_REASON, "owner " + ref.describe(o.namespace()) + " cannot be read: "
              + u.reason() + "; the dependent is kept until the owner can be read");
        }
        if (s instanceof OwnerState.InvalidNamespace) {
          return report(o, ref, INVALID_NAMESPACE_REASON, "ownerRef [" + ref.apiVersion() + "/" + ref.kind()
              + ", namespace: , name: " + ref.name() + ", uid: " + ref.uid() + "] does not exist in namespace \"\"");
        }
        if (s instanceof OwnerState.Solid) {
          solid.add(ref);
        } else {
          gone.add(ref);
          waiting |= s instanceof OwnerState.Waiting;
        }
      }
      forget(o);
      if (!solid.isEmpty()) {
        return gone.isEmpty() ? Future.succeededFuture() : removeReferences(o, gone);
      }
      String policy;
      if (waiting && g.dependents.containsKey(o.uid())) {
        policy = "Foreground";
      } else if (o.hasFinalizer(ORPHAN)) {
        policy = "Orphan";
      } else if (o.hasFinalizer(FOREGROUND)) {
        policy = "Foreground";
      } else {
        policy = "Background";
      }
      return delete(o, policy);
    });
  }

  private Future<OwnerState> classify(Obj o, OwnerReference ref, Discovered d, Graph g,
                                      Map<String, Future<ApiResponse>> reads) {
    java.util.Optional<ApiResource> res = d.resourceFor(ref.apiVersion(), ref.kind());
    if (res.isEmpty()) {
      String gv = ref.apiVersion();
      String why = d.failed().containsKey(gv) ? d.failed().get(gv)
          : "no matches for kind \"" + ref.kind() + "\" in version \"" + gv + "\"";
      return Future.succeededFuture(new OwnerState.Unknown(why));
    }
    ApiResource r = res.get();
    if (r.namespaced() && o.namespace().isEmpty()) {
      return Future.succeededFuture(new OwnerState.InvalidNamespace());
    }
    Obj seen = g.byUid.get(ref.uid());
    if (seen != null && seen.name().equals(ref.name()) && seen.resource().groupResource().equals(r.groupResource())) {
      boolean fg = seen.deleting() && seen.hasFinalizer(FOREGROUND);
      return Future.succeededFuture(fg ? new OwnerState.Waiting() : new OwnerState.Solid());
    }
    String path = r.objectPath(o.namespace(), ref.name());
    return reads.computeIfAbsent(path, api::get).map(resp -> OwnerState.of(resp, ref, anyNotFound));
  }

  private Future<Void> delete(Obj o, String policy) {
    JsonObject opts = new JsonObject().put("propagationPolicy", policy)
        .put("preconditions", new JsonObject().put("uid", o.uid()));
    return api.delete(o.path(), opts).map(r -> {
      if (r.ok()) {
        LOG.info("garbage collector: deleting " + o.path() + " (uid " + o.uid() + ", propagationPolicy "
            + policy + "): its owners are gone");
        observer.deleted(o.resource(), policy);
      } else if (!r.notFound()) {
        LOG.fine("garbage collector: delete " + o.path() + ": " + r.message());
      }
      return null;
    });
  }

  /** Patches the references to {@code owners} out of {@code o} (JSON patch with uid and resourceVersion tests). */
  private Future<Void> removeReferences(Obj o, List<OwnerReference> owners) {
    Set<String> drop = new HashSet<>();
    owners.forEach(r -> drop.add(r.uid()));
    JsonArray keep = new JsonArray();
    for (Object x : o.metadata().getJsonArray("ownerReferences", new JsonArray())) {
      if (!(x instanceof JsonObject ref) || !drop.contains(ref.getString("uid"))) {
        keep.add(x);
      }
    }
    return patch(o, "/metadata/ownerReferences", keep);
  }

  private Future<Void> patch(Obj o, String field, JsonArray value) {
    JsonArray ops = new JsonArray()
        .add(new JsonObject().put("op", "test").put("path", "/metadata/uid").put("value", o.uid()))
        .add(new JsonObject().put("op", "test").put("path", "/metadata/resourceVersion")
            .put("value", o.metadata().getString("resourceVersion")))
        .add(new JsonObject().put("op", value.isEmpty() ? "remove" : "replace").put("path", field));
    if (!value.isEmpty()) {
      ops.getJsonObject(2).put("value", value);
    }
    return api.patch(o.path(), ApiClient.JSON_PATCH, Buffer.buffer(ops.encode())).compose(r -> r.ok()
        || r.notFound() ? Future.succeededFuture() : Future.failedFuture("patch " + o.path() + ": " + r.message()));
  }

  /** {@code processDeletingDependentsItem}: drop {@code foregroundDeletion} once no blocking dependent is left. */
  private Future<Void> foreground(Obj owner, Graph g) {
    boolean blocked = false;
    for (Obj dep : g.dependents.getOrDefault(owner.uid(), List.of())) {
      for (OwnerReference ref : dep.owners()) {
        blocked |= ref.uid().equals(owner.uid()) && ref.blockOwnerDeletion();
      }
    }
    if (blocked || !g.complete) {
      return Future.succeededFuture();
    }
    return removeFinalizer(owner, FOREGROUND);
  }

  /** {@code attemptToOrphan}: remove the owner's reference from every dependent, then the {@code orphan} finalizer. */
  private Future<Void> orphan(Obj owner, Graph g) {
    List<Future<Void>> fs = new ArrayList<>();
    for (Obj dep : g.dependents.getOrDefault(owner.uid(), List.of())) {
      fs.add(removeReferences(dep, dep.owners().stream().filter(r -> r.uid().equals(owner.uid())).toList()));
    }
    return Future.all(fs).compose(v -> g.complete ? removeFinalizer(owner, ORPHAN) : Future.succeededFuture());
  }

  private Future<Void> removeFinalizer(Obj o, String finalizer) {
    JsonArray left = new JsonArray();
    o.metadata().getJsonArray("finalizers", new JsonArray()).forEach(f -> {
      if (!finalizer.equals(f)) {
        left.add(f);
      }
    });
    return patch(o, "/metadata/finalizers", left).onSuccess(v -> LOG.info("garbage collector: removed "
        + finalizer + " from " + o.path()));
  }

  private void forget(Obj o) {
    reported.removeIf(k -> k.startsWith(o.uid() + "/"));
  }

  /** Records a Warning event on the dependent, once per dependent, owner and reason until it resolves. */
  private Future<Void> report(Obj o, OwnerReference ref, String reason, String message) {
    String key = o.uid() + "/" + ref.uid() + "/" + reason;
    if (!reported.add(key)) {
      return Future.succeededFuture();
    }
    LOG.warning("garbage collector: " + o.path() + ": " + message);
    String ns = o.namespace().isEmpty() ? "default" : o.namespace();
    String now = MicroTime.seconds(Instant.now());
    JsonObject involved = new JsonObject().put("kind", o.kind()).put("apiVersion", o.apiVersion())
        .put("name", o.name()).put("uid", o.uid()).put("resourceVersion", o.metadata().getString("resourceVersion"));
    if (!o.namespace().isEmpty()) {
      involved.put("namespace", o.namespace());
    }
    JsonObject event = new JsonObject().put("apiVersion", "v1").put("kind", "Event")
        .put("metadata", new JsonObject().put("name", o.name() + "." + Long.toHexString(System.nanoTime()))
            .put("namespace", ns))
        .put("involvedObject", involved).put("reason", reason).put("message", message).put("type", "Warning")
        .put("source", new JsonObject().put("component", COMPONENT)).put("firstTimestamp", now)
        .put("lastTimestamp", now).put("count", 1).put("reportingComponent", COMPONENT);
    return api.create("/api/v1/namespaces/" + ns + "/events", event).map(r -> {
      if (!r.ok()) {
        LOG.fine("garbage collector: event not recorded: " + r.message());
      }
      return null;
    });
  }

  /** @return the sorted set of unknown-owner reports outstanding (dependent uid/owner uid/reason), for tests */
  Set<String> reported() {
    return new java.util.TreeSet<>(reported);
  }

}
