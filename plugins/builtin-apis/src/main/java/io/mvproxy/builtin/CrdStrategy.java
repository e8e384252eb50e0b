package io.mvproxy.builtin;

import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.mvproxy.api.storage.ResourceStorage;
import io.mvproxy.api.storage.StorageException;
import io.mvproxy.registry.impl.model.CrdConditions;
import io.mvproxy.registry.impl.model.ApiApproval;
import io.mvproxy.registry.impl.model.CrdParser;
import io.mvproxy.registry.impl.rest.CrdRequest;
import io.mvproxy.registry.impl.rest.ObjectRules;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The REST strategy of {@code apiextensions.k8s.io/v1} customresourcedefinitions, as
 * {@code apiextensions-apiserver/pkg/registry/customresourcedefinition/strategy.go} and {@code etcd.go}:
 * <ul>
 *   <li>create: validated by the one CRD validator ({@link CrdParser#parse}, what plugin manifests go through;
 *   422 Invalid with causes) on a worker thread ({@link #validateBlocking}: it compiles the CEL rules), {@code status}
 *   reset to {@code storedVersions: [<storage version>]};</li>
 *   <li>update and patch (apply included): validated again, {@code spec.group} and {@code spec.names.plural}
 *   immutable, {@code spec.scope} and {@code spec.names.kind} immutable once Established (422 {@code field is
 *   immutable}); the new storage version is added to {@code status.storedVersions};</li>
 *   <li>{@code status}: {@code storedVersions} checked ({@code ValidateCustomResourceDefinitionStoredVersions});</li>
 *   <li>DELETE: the first one sets {@code deletionTimestamp}, adds the {@value CrdConditions#CLEANUP_FINALIZER}
 *   finalizer and {@code Terminating=True InstanceDeletionPending} (the CRD stays until the node's finalizer
 *   controller has deleted its objects and removed the finalizer);</li>
 *   <li>a CRD a plugin provides (stored with {@value CrdObjects#SERVED_BY}, see {@link CrdObjects}) is read-only
 *   through the API: create, update, patch, status and delete answer {@code 409 Conflict} naming the nodes whose
 *   plugins serve it (the plugin wins; the API never serves a second definition of the name), and the annotation
 *   may not be set through the API ({@code 422}).</li>
 * </ul>
 */
final class CrdStrategy implements ObjectStrategy {
  private volatile ResourceStorage store;

  /** @param store the CRDs' storage (read to tell a plugin's CRD on create) */
  void useStore(ResourceStorage store) {
    this.store = store;
  }

  @Override
  public Future<Void> admitCreate(CrdRequest req, JsonObject obj) {
    ResourceStorage s = store;
    String name = obj.getJsonObject("metadata").getString("name");
    if (s == null || name == null) {
      return Future.succeededFuture();
    }
    return s.get(name).<Void>map(cur -> {
      refusePluginCrd(cur.object(), name, "create");
      return null;
    }).recover(t -> t instanceof StorageException se && se.storageCode() == StorageException.Code.NOT_FOUND
        ? Future.succeededFuture() : Future.failedFuture(t));
  }

  @Override
  public JsonObject prepareCreate(CrdRequest req, JsonObject obj) {
    refuseServedBy(obj);
    obj.put("status", new JsonObject());
    if (obj.getValue("spec") instanceof JsonObject spec) {
      io.mvproxy.registry.impl.conversion.CrdConversion.setDefaults(spec);
    }
    CrdConditions.addStorageVersion(obj);
    return obj;
  }

  /** @return true: a CRD is validated by parsing it, which compiles its CEL rules (on a worker thread) */
  @Override
  public boolean validatesBlocking() {
    return true;
  }

  /**
   * Validates a created or updated CRD ({@code ValidateCustomResourceDefinition} / {@code ...Update}) on a worker
   * thread: the one CRD validator ({@link CrdParser#parse}, which compiles the CEL rules), and on an update the
   * immutable fields and {@code status.storedVersions}, all causes in one 422. A {@code status} update is checked in
   * {@link #prepareUpdate}.
   *
   * @throws StatusException 422 Invalid with causes
   */
  @Override
  public void validateBlocking(CrdRequest req, JsonObject old, JsonObject next) {
    if (old == null) {
      List<JsonObject> approval = ApiApproval.problems(next, null);
      try {
        CrdParser.parseCreated(next);
      } catch (StatusException e) {
        throw approval.isEmpty() ? e : withCauses(e, approval);
      }
      if (!approval.isEmpty()) {
        throw StatusException.invalid(CrdParser.CRD_GVR, "CustomResourceDefinition", name(next),
            new JsonArray(new ArrayList<>(approval)));
      }
      return;
    }
    if ("status".equals(req.info().subresource())) {
      return;
    }
    String name = old.getJsonObject("metadata").getString("name");
    List<JsonObject> causes = new ArrayList<>();
    JsonObject spec = obj(next, "spec");
    JsonObject oldSpec = obj(old, "spec");
    immutable(causes, "spec.group", spec.getValue("group"), oldSpec.getValue("group"));
    immutable(causes, "spec.names.plural", obj(spec, "names").getValue("plural"),
        obj(oldSpec, "names").getValue("plural"));
    if (CrdConditions.isTrue(old, CrdConditions.ESTABLISHED)) {
      immutable(causes, "spec.scope", spec.getValue("scope"), oldSpec.getValue("scope"));
      immutable(causes, "spec.names.kind", obj(spec, "names").getValue("kind"),
          obj(oldSpec, "names").getValue("kind"));
    }
    try {
      CrdParser.parse(next);
    } catch (StatusException e) {
      JsonObject details = e.toStatus().getJsonObject("details");
      if (details != null && details.getValue("causes") instanceof JsonArray more) {
        more.forEach(c -> causes.add((JsonObject) c));
      } else {
        throw e;
      }
    }
    causes.addAll(CrdConditions.storedVersionProblems(next));
    causes.addAll(ApiApproval.problems(next, old));
    if (!causes.isEmpty()) {
      throw StatusException.invalid(CrdParser.CRD_GVR, "CustomResourceDefinition", name,
          new JsonArray(new ArrayList<>(causes)));
    }
  }

  @Override
  public JsonObject prepareUpdate(CrdRequest req, JsonObject old, JsonObject next) {
    String name = old.getJsonObject("metadata").getString("name");
    refusePluginCrd(old, name, "update");
    refuseServedBy(next);
    if ("status".equals(req.info().subresource())) {
      List<JsonObject> causes = CrdConditions.storedVersionProblems(next);
      if (!causes.isEmpty()) {
        throw StatusException.invalid(CrdParser.CRD_GVR, "CustomResourceDefinition", name,
            new JsonArray(new ArrayList<>(causes)));
      }
      return next;
    }
    CrdConditions.addStorageVersion(next);
    io.mvproxy.registry.impl.conversion.CrdConversion.setDefaults(obj(next, "spec"));
    return next;
  }

  @Override
  public JsonObject onDelete(CrdRequest req, JsonObject current) {
    JsonObject md = current.getJsonObject("metadata");
    refusePluginCrd(current, md.getString("name"), "delete");
    if (md.getValue("deletionTimestamp") != null) {
      return null;
    }
    JsonObject next = current.copy();
    JsonObject nmd = next.getJsonObject("metadata");
    nmd.put("deletionTimestamp", ObjectRules.now()).put("deletionGracePeriodSeconds", 0);
    JsonArray fin = nmd.getValue("finalizers") instanceof JsonArray a ? a : new JsonArray();
    if (!fin.contains(CrdConditions.CLEANUP_FINALIZER)) {
      fin.add(CrdConditions.CLEANUP_FINALIZER);
    }
    nmd.put("finalizers", fin);
    return CrdConditions.set(next, CrdConditions.TERMINATING, "True", "InstanceDeletionPending",
        "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon", ObjectRules.now());
  }

  /** @throws StatusException 409 Conflict when {@code stored} is a plugin's CRD */
  static void refusePluginCrd(JsonObject stored, String name, String verb) {
    if (!isPluginCrd(stored)) {
      return;
    }
    throw new StatusException(StatusReason.Conflict, "Operation cannot be fulfilled on "
        + "customresourcedefinitions.apiextensions.k8s.io \"" + name + "\": the CustomResourceDefinition is provided"
        + " by plugins of the nodes " + String.join(", ", CrdObjects.servedBy(stored).keySet())
        + " (annotation " + CrdObjects.SERVED_BY + "); change or remove the plugin jars instead of " + verb
        + " through the API", new JsonObject().put("name", name).put("group", "apiextensions.k8s.io")
        .put("kind", "customresourcedefinitions"));
  }

  /** @param stored a stored CRD @return true when a plugin provides it (it carries {@value CrdObjects#SERVED_BY}) */
  static boolean isPluginCrd(JsonObject stored) {
    JsonObject md = stored.getValue("metadata") instanceof JsonObject m ? m : new JsonObject();
    return md.getValue("annotations") instanceof JsonObject a && a.containsKey(CrdObjects.SERVED_BY);
  }

  private static void refuseServedBy(JsonObject obj) {
    if (isPluginCrd(obj)) {
      String name = obj.getJsonObject("metadata").getString("name", "");
      throw StatusException.invalid(CrdParser.CRD_GVR, "CustomResourceDefinition", name, new JsonArray()
          .add(new JsonObject().put("reason", "FieldValueForbidden").put("field", "metadata.annotations["
              + CrdObjects.SERVED_BY + "]").put("message", "Forbidden: set by the nodes for CustomResourceDefinitions"
              + " their plugins provide")));
    }
  }

  private static void immutable(List<JsonObject> causes, String field, Object now, Object before) {
    if (!Objects.equals(now, before)) {
      causes.add(new JsonObject().put("reason", "FieldValueInvalid").put("field", field)
          .put("message", "Invalid value: " + io.mvproxy.api.GoStrings.quote(now == null ? "" : String.valueOf(now))
              + ": field is immutable"));
    }
  }

  /**
   * @return the 422 {@code e} with {@code more} causes after its own (the API approval comes after the spec's and
   *     status's errors in {@code ValidateCustomResourceDefinition}); {@code e} itself when it has no causes
   */
  private static StatusException withCauses(StatusException e, List<JsonObject> more) {
    JsonObject details = e.toStatus().getJsonObject("details");
    if (details == null || !(details.getValue("causes") instanceof JsonArray causes)) {
      return e;
    }
    List<JsonObject> all = new ArrayList<>();
    causes.forEach(c -> all.add((JsonObject) c));
    all.addAll(more);
    return StatusException.invalid(CrdParser.CRD_GVR, "CustomResourceDefinition", details.getString("name", ""),
        new JsonArray(new ArrayList<>(all)));
  }

  private static String name(JsonObject crd) {
    return crd.getValue("metadata") instanceof JsonObject md && md.getValue("name") instanceof String n ? n : "";
  }

  private static JsonObject obj(JsonObject o, String key) {
    return o.getValue(key) instanceof JsonObject v ? v : new JsonObject();
  }
}
