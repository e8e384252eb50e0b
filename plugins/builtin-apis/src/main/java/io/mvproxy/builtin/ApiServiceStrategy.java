package io.mvproxy.builtin;

import io.mvproxy.aggregated.ApiServiceValidation;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.mvproxy.api.storage.ResourceStorage;
import io.mvproxy.api.storage.StorageException;
import io.mvproxy.registry.impl.rest.CrdRequest;
import io.mvproxy.registry.impl.rest.ObjectStrategy;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The REST strategy of {@code apiregistration.k8s.io/v1} apiservices, as kube-aggregator's
 * {@code pkg/registry/apiservice/strategy.go}:
 * <ul>
 *   <li>create and update: validated by {@link ApiServiceValidation#parse(JsonObject, boolean)} (kube-aggregator's
 *   {@code ValidateAPIService}, the validator of plugin manifests; local APIServices allowed), 422 Invalid with
 *   causes; {@code spec.service.port} defaulted to 443 ({@code SetDefaults_ServiceReference}); {@code status} reset
 *   on create and kept on update (written through the {@code status} subresource);</li>
 *   <li>an APIService a plugin provides (stored with {@value ApiServiceObjects#SERVED_BY}, see
 *   {@link ApiServiceObjects}) is read-only through the API: create, update, patch, status and delete answer
 *   {@code 409 Conflict} naming the nodes whose plugins serve it (the plugin wins), and the annotation may not be
 *   set through the API ({@code 422});</li>
 *   <li>Table cells as kube-aggregator's printer ({@code pkg/registry/apiservice/etcd/etcd.go}): {@code Service}
 *   ({@code namespace/name} or {@code Local}), {@code Available} ({@code True}, {@code False (<reason>)},
 *   {@code Unknown}).</li>
 * </ul>
 */
final class ApiServiceStrategy implements ObjectStrategy {
  private volatile ResourceStorage store;

  /** @param store the APIServices' storage (read to tell a plugin's APIService on create) */
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
      refusePlugin(cur.object(), name, "create");
      return null;
    }).recover(t -> t instanceof StorageException se && se.storageCode() == StorageException.Code.NOT_FOUND
        ? Future.succeededFuture() : Future.failedFuture(t));
  }

  /**
   * The typed decoder's reading of {@code spec.caBundle} ({@code []byte}, omitempty): base64 ({@link GoBase64}) in
   * canonical form, an empty one left out (a create or update body; a patch result is checked by the validation).
   *
   * @throws StatusException 400 {@code APIService in version "v1" cannot be handled as a APIService: illegal base64
   *     data at input byte N}
   */
  @Override
  public JsonObject decodeBody(CrdRequest req, JsonObject obj) {
    if (obj.getValue("spec") instanceof JsonObject spec) {
      GoBase64.readOmitEmptyBytes(req, spec, "caBundle");
    }
    return obj;
  }

  @Override
  public JsonObject prepareCreate(CrdRequest req, JsonObject obj) {
    refuseServedBy(obj);
    obj.put("status", new JsonObject());
    defaults(obj);
    ApiServiceValidation.parse(obj, true);
    return obj;
  }

  @Override
  public JsonObject prepareUpdate(CrdRequest req, JsonObject old, JsonObject next) {
    String name = old.getJsonObject("metadata").getString("name");
    refusePlugin(old, name, "update");
    refuseServedBy(next);
    defaults(next);
    ApiServiceValidation.parse(next, true);
    return next;
  }

  @Override
  public JsonObject onDelete(CrdRequest req, JsonObject current) {
    refusePlugin(current, current.getJsonObject("metadata").getString("name"), "delete");
    return null;
  }

  @Override
  public Object tableCell(String column, JsonObject o, Object cell) {
    switch (column) {
      case "Service":
        return o.getJsonObject("spec", new JsonObject()).getValue("service") instanceof JsonObject svc
            ? svc.getString("namespace", "") + "/" + svc.getString("name", "") : "Local";
      case "Available":
        return available(o);
      default:
        return cell;
    }
  }

  /**
   * @param o an APIService
   * @return kube-aggregator's {@code AVAILABLE} cell: {@code True}, {@code <status> (<reason>)}, or {@code Unknown}
   *     when there is no Available condition
   */
  static String available(JsonObject o) {
    JsonObject status = o.getValue("status") instanceof JsonObject s ? s : new JsonObject();
    for (Object c : status.getJsonArray("conditions", new JsonArray())) {
      if (c instanceof JsonObject cond && "Available".equals(cond.getString("type"))) {
        return "True".equals(cond.getString("status")) ? "True"
            : cond.getString("status", "") + " (" + cond.getString("reason", "") + ")";
      }
    }
    return "Unknown";
  }

  /** kube-aggregator's defaulting: {@code spec.service.port} 443 when a service is set without one. */
  private static void defaults(JsonObject obj) {
    if (obj.getValue("spec") instanceof JsonObject spec && spec.getValue("service") instanceof JsonObject svc
        && svc.getValue("port") == null) {
      svc.put("port", ApiServiceValidation.DEFAULT_PORT);
    }
  }

  /** @throws StatusException 409 Conflict when {@code stored} is a plugin's APIService */
  static void refusePlugin(JsonObject stored, String name, String verb) {
    if (!ApiServiceObjects.isPlugin(stored)) {
      return;
    }
    throw new StatusException(StatusReason.Conflict, "Operation cannot be fulfilled on "
        + "apiservices.apiregistration.k8s.io \"" + name + "\": the APIService is provided by plugins of the nodes "
        + String.join(", ", CrdObjects.servedBy(stored).keySet()) + " (annotation " + ApiServiceObjects.SERVED_BY
        + "); change or remove the plugin jars instead of " + verb + " through the API",
        new JsonObject().put("name", name).put("group", "apiregistration.k8s.io").put("kind", "apiservices"));
  }

  private static void refuseServedBy(JsonObject obj) {
    if (ApiServiceObjects.isPlugin(obj)) {
      String name = obj.getJsonObject("metadata").getString("name", "");
      throw StatusException.invalid(ApiServiceValidation.APISERVICES, "APIService", name, new JsonArray()
          .add(new JsonObject().put("reason", "FieldValueForbidden").put("field", "metadata.annotations["
              + ApiServiceObjects.SERVED_BY + "]").put("message", "Forbidden: set by the nodes for APIServices"
              + " their plugins provide")));
    }
  }
}
