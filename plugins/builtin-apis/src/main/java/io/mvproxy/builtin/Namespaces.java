package io.mvproxy.builtin;

import io.mvproxy.api.Gvr;
import io.mvproxy.api.NamespaceLifecycle;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.mvproxy.registry.impl.CrdApiSource;
import io.mvproxy.registry.impl.rest.CrdRequest;
import io.mvproxy.registry.impl.rest.ObjectRules;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.mvproxy.api.storage.WatchEvent;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Namespaces as kube-apiserver has them ({@code pkg/registry/core/namespace/storage/storage.go}, {@code strategy.go},
 * {@code admission/plugin/namespace/lifecycle/admission.go}): created Active with the {@code kubernetes} finalizer
 * and the {@code kubernetes.io/metadata.name} label; plain updates keep {@code spec.finalizers} and {@code status};
 * the {@code finalize} subresource (PUT) changes {@code spec.finalizers}, and a Terminating namespace is removed only
 * by the update that leaves both {@code spec.finalizers} and {@code metadata.finalizers} empty;
 * the first DELETE sets {@code deletionTimestamp} and phase {@code Terminating}; {@code default}, {@code kube-system}
 * and {@code kube-public} cannot be deleted; the four system namespaces exist from the start. Also the node's
 * {@link NamespaceLifecycle}: an in-memory index of phases fed by the namespaces' store, with a live read for a
 * namespace not (yet) in it.
 */
public final class Namespaces implements ObjectStrategy, NamespaceLifecycle {
  /** Created at start-up ({@code pkg/controlplane/controller.go}, and {@code default}). */
  public static final List<String> SYSTEM = List.of("default", "kube-system", "kube-public", "kube-node-lease");
  /** Namespaces that may not be deleted (lifecycle admission's immortal set). */
  public static final Set<String> IMMORTAL = Set.of("default", "kube-system", "kube-public");
  /** The finalizer the namespace controller removes when the namespace is empty. */
  public static final String FINALIZER = "kubernetes";
  /** KEP-2161 label. */
  public static final String NAME_LABEL = "kubernetes.io/metadata.name";
  private static final Gvr NAMESPACES = new Gvr("", "v1", "namespaces");

  /**
   * How long after a namespace's deletion this node reads the namespace itself for a create in it instead of
   * trusting its index ({@code lifecycle/admission.go forceLiveLookupTTL}, 30 s): the index learns of the deletion
   * from the store's watch, which can trail the DELETE's answer by a few milliseconds, and a create sent right after
   * it must see the namespace Terminating (or gone), not Active.
   */
  static final long FORCE_LIVE_LOOKUP_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
  private final Map<String, String> phases = new ConcurrentHashMap<>();
  /** Namespaces deleted through this node, to the {@link System#nanoTime} until which a create reads them live. */
  private final Map<String, Long> forceLiveLookup = new ConcurrentHashMap<>();
  private volatile CrdApiSource source;

  /**
   * Starts following the namespaces' store and creates the system namespaces.
   *
   * @param namespaces the namespaces source
   * @param vertx      runs the retries (a failed write, e.g. storage not ready while the fleet forms, is retried)
   * @return completes when the system namespaces exist
   */
  public Future<Void> start(CrdApiSource namespaces, io.vertx.core.Vertx vertx) {
    this.source = namespaces;
    namespaces.follow(this::apply);
    return StartRetry.run(vertx, "storing the system namespaces", () -> {
      Future<?> all = Future.succeededFuture();
      for (String n : SYSTEM) {
        all = all.compose(v -> namespaces.ensure(systemNamespace(n)).onSuccess(this::record));
      }
      return all;
    });
  }

  private void apply(WatchEvent e) {
    if (e.type() == WatchEvent.Type.DELETED) {
      phases.remove(name(e.object().object()));
    } else {
      record(e.object().object());
    }
  }

  private void record(JsonObject ns) {
    if (ns != null) {
      phases.put(name(ns), phase(ns));
    }
  }

  static JsonObject systemNamespace(String name) {
    return new JsonObject().put("apiVersion", "v1").put("kind", "Namespace")
        .put("metadata", new JsonObject().put("name", name).put("labels", new JsonObject().put(NAME_LABEL, name)))
        .put("spec", new JsonObject().put("finalizers", new JsonArray().add(FINALIZER)))
        .put("status", new JsonObject().put("phase", "Active"));
  }

  /** Namespaces are selectable by {@code status.phase} ({@code pkg/registry/core/namespace/strategy.go}). */
  @Override
  public java.util.Map<String, String> selectableFields() {
    return java.util.Map.of("status.phase", "status.phase");
  }

  @Override
  public Future<Void> admitCreate(String namespace, Gvr gvr, String name) {
    String phase = phases.get(namespace);
    Long until = forceLiveLookup.get(namespace);
    boolean live = until != null && until - System.nanoTime() > 0;
    if (until != null && !live) {
      forceLiveLookup.remove(namespace, until);
    }
    if (phase != null && !live) {
      return check(namespace, phase, gvr, name);
    }
    CrdApiSource s = source;
    if (s == null) {
      return Future.failedFuture(notFound(namespace));
    }
    // not in the index yet (created through another node a moment ago), or deleted here a moment ago: read it, as
    // upstream's live lookup
    return s.get("", namespace).compose(ns -> ns == null ? Future.failedFuture(notFound(namespace))
        : check(namespace, phase(ns), gvr, name));
  }

  private static Future<Void> check(String namespace, String phase, Gvr gvr, String name) {
    if (!"Terminating".equals(phase)) {
      return Future.succeededFuture();
    }
    String gr = gvr.group().isEmpty() ? gvr.resource() : gvr.resource() + "." + gvr.group();
    JsonObject details = new JsonObject();
    if (!name.isEmpty()) {
      details.put("name", name);
    }
    if (!gvr.group().isEmpty()) {
      details.put("group", gvr.group());
    }
    details.put("kind", gvr.resource()).put("causes", new JsonArray().add(new JsonObject()
        .put("reason", "NamespaceTerminating").put("message", "namespace " + namespace + " is being terminated")
        .put("field", "metadata.namespace")));
    String msg = gr + (name.isEmpty() ? "" : " \"" + name + "\"") + " is forbidden: unable to create new content in "
        + "namespace " + namespace + " because it is being terminated";
    return Future.failedFuture(new StatusException(StatusReason.Forbidden, msg, details));
  }

  private static StatusException notFound(String namespace) {
    return StatusException.notFound(NAMESPACES, namespace);
  }

  /** A namespace name is a DNS-1123 label ({@code ValidateNamespaceName}), checked with the rest of ObjectMeta. */
  @Override
  public java.util.List<String> nameProblems(String name) {
    return io.mvproxy.registry.impl.rest.ObjectMetaValidator.dns1123Label(name);
  }

  /** @return true: core's {@code ValidateObjectMeta} checks this kind's finalizer names */
  @Override
  public boolean kubeFinalizerNames() {
    return true;
  }

  /** {@code ValidateNamespace}'s own rule: its {@code spec.finalizers} ({@link #specFinalizerErrors}). */
  @Override
  public JsonArray violations(CrdRequest req, JsonObject obj, JsonObject oldView) {
    return oldView == null ? io.mvproxy.registry.impl.schema.FieldError.causes(specFinalizerErrors(obj, false))
        : new JsonArray();
  }

  /**
   * {@code validateFinalizerName} of each {@code spec.finalizers} entry ({@code ValidateNamespace}: at
   * {@code spec.finalizers}; {@code ValidateNamespaceFinalizeUpdate}: at {@code spec.finalizers[i]}): a qualified
   * name, and with a domain unless standard ({@code kubernetes}, {@code orphan}, {@code foregroundDeletion}); a
   * namespace whose finalizer no controller removes would stay Terminating.
   */
  static List<io.mvproxy.registry.impl.schema.FieldError> specFinalizerErrors(JsonObject obj, boolean indexed) {
    List<io.mvproxy.registry.impl.schema.FieldError> errs = new java.util.ArrayList<>();
    JsonObject spec = obj.getValue("spec") instanceof JsonObject sp ? sp : new JsonObject();
    if (!(spec.getValue("finalizers") instanceof JsonArray fins)) {
      return errs;
    }
    for (int i = 0; i < fins.size(); i++) {
      if (!(fins.getValue(i) instanceof String f)) {
        continue;
      }
      String path = indexed ? "spec.finalizers[" + i + "]" : "spec.finalizers";
      for (String msg : io.mvproxy.registry.impl.rest.ObjectMetaValidator.qualifiedName(f)) {
        errs.add(io.mvproxy.registry.impl.schema.FieldError.invalid(path, f, msg));
      }
      if (!f.contains("/") && !Set.of("kubernetes", "orphan", "foregroundDeletion").contains(f)) {
        errs.add(io.mvproxy.registry.impl.schema.FieldError.invalid(path, f,
            "name is neither a standard finalizer name nor is it fully qualified"));
      }
    }
    return errs;
  }

  @Override
  public JsonObject prepareCreate(CrdRequest req, JsonObject obj) {
    req.failIfInvalid(obj, specFinalizerErrors(obj, false));
    JsonObject spec = obj.getJsonObject("spec");
    if (spec == null) {
      spec = new JsonObject();
      obj.put("spec", spec);
    }
    JsonArray fin = spec.getJsonArray("finalizers");
    if (fin == null) {
      fin = new JsonArray();
      spec.put("finalizers", fin);
    }
    if (!fin.contains(FINALIZER)) {
      fin.add(FINALIZER);
    }
    obj.put("status", new JsonObject().put("phase", "Active"));
    label(obj);
    return obj;
  }

  /** {@code namespaceStatusStrategy.PrepareForUpdate} resets only {@code spec}: labels set through /status stay. */
  @Override
  public boolean statusUpdatesMetadata() {
    return true;
  }

  /** @return false for {@code deletecollection}: namespace storage has no DeleteCollection upstream (405) */
  @Override
  public boolean allowsVerb(String verb) {
    return !"deletecollection".equals(verb);
  }

  @Override
  public boolean servesSubresource(String subresource, String verb) {
    return "finalize".equals(subresource) && "update".equals(verb);
  }

  /** A Terminating namespace goes only once {@code spec.finalizers} is empty too ({@code ShouldDeleteNamespaceDuringUpdate}). */
  @Override
  public boolean deleteDuringUpdate(JsonObject next) {
    return next.getJsonObject("spec", new JsonObject()).getJsonArray("finalizers", new JsonArray()).isEmpty();
  }

  @Override
  public JsonObject prepareUpdate(CrdRequest req, JsonObject old, JsonObject next) {
    if ("finalize".equals(req.info().subresource())) {
      // namespaceFinalizeStrategy: only spec.finalizers (and metadata) change
      req.failIfInvalid(next, specFinalizerErrors(next, true));
      next.put("spec", next.getJsonObject("spec", new JsonObject()));
      next.put("status", old.getJsonObject("status", new JsonObject()).copy());
      label(next);
      return next;
    }
    if ("status".equals(req.info().subresource())) {
      next.put("spec", old.getJsonObject("spec", new JsonObject()).copy());
      validatePhase(req, next);
    } else {
      next.put("spec", next.getJsonObject("spec", new JsonObject()));
      JsonArray fin = old.getJsonObject("spec", new JsonObject()).getJsonArray("finalizers");
      if (fin != null) {
        next.getJsonObject("spec").put("finalizers", fin.copy());
      } else {
        next.getJsonObject("spec").remove("finalizers");
      }
      next.put("status", old.getJsonObject("status", new JsonObject()).copy());
    }
    label(next);
    return next;
  }

  /**
   * {@code ValidateNamespaceStatusUpdate} (pkg/apis/core/validation/validation.go): the phase of a status update is
   * {@code Active} (the v1 default when none is sent, and stored so) while there is no deletionTimestamp,
   * {@code Terminating} once there is one.
   *
   * @throws StatusException 422 {@code status.Phase: Invalid value: "X": may only be 'Active' if `deletionTimestamp`
   *                         is empty} (upstream's field path, capital P)
   */
  private static void validatePhase(CrdRequest req, JsonObject next) {
    Object p = next.getJsonObject("status", new JsonObject()).getValue("phase");
    String phase = p == null || "".equals(p) ? "Active" : String.valueOf(p);
    // SetDefaults_NamespaceStatus: an empty phase is stored as Active (then checked like any other)
    JsonObject status = next.getValue("status") instanceof JsonObject st ? st : new JsonObject();
    next.put("status", status.put("phase", phase));
    boolean deleting = next.getJsonObject("metadata").getValue("deletionTimestamp") != null;
    String want = deleting ? "Terminating" : "Active";
    if (!want.equals(phase)) {
      throw StatusException.invalid(req.gvr(), "Namespace", name(next), io.mvproxy.registry.impl.schema.FieldError
          .causes(List.of(io.mvproxy.registry.impl.schema.FieldError.invalid("status.Phase", phase, "may only be '"
              + want + "' if `deletionTimestamp` is " + (deleting ? "not empty" : "empty")))));
    }
  }

  @Override
  public JsonObject onDelete(CrdRequest req, JsonObject current) {
    String name = name(current);
    if (IMMORTAL.contains(name)) {
      throw new StatusException(StatusReason.Forbidden, "namespaces \"" + name + "\" is forbidden: this namespace "
          + "may not be deleted", new JsonObject().put("name", name).put("kind", "namespaces"));
    }
    // lifecycle admission on a namespace DELETE: creates in it read it live for a while (forceLiveLookupCache)
    long now = System.nanoTime();
    forceLiveLookup.values().removeIf(until -> until - now <= 0);
    forceLiveLookup.put(name, now + FORCE_LIVE_LOOKUP_NANOS);
    JsonArray fin = current.getJsonObject("spec", new JsonObject()).getJsonArray("finalizers", new JsonArray());
    if (fin.isEmpty()) {
      return null;
    }
    JsonObject md = current.getJsonObject("metadata");
    if (md.getValue("deletionTimestamp") != null) {
      throw new StatusException(StatusReason.Conflict, "Operation cannot be fulfilled on namespaces \"" + name
          + "\": The system is ensuring all content is removed from this namespace.  Upon completion, this namespace "
          + "will automatically be purged by the system.", new JsonObject().put("name", name).put("kind", "namespaces"));
    }
    JsonObject next = current.copy();
    next.getJsonObject("metadata").put("deletionTimestamp", ObjectRules.now()).put("deletionGracePeriodSeconds", 0);
    JsonObject status = next.getJsonObject("status", new JsonObject());
    next.put("status", status.put("phase", "Terminating"));
    return next;
  }

  private static void label(JsonObject obj) {
    JsonObject md = obj.getJsonObject("metadata");
    JsonObject labels = md.getJsonObject("labels");
    if (labels == null) {
      labels = new JsonObject();
      md.put("labels", labels);
    }
    labels.put(NAME_LABEL, md.getString("name", ""));
  }

  private static String name(JsonObject o) {
    return o.getJsonObject("metadata", new JsonObject()).getString("name", "");
  }

  private static String phase(JsonObject ns) {
    return ns.getJsonObject("status", new JsonObject()).getString("phase", "Active");
  }
}
