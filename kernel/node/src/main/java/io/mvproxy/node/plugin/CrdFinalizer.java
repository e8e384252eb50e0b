package io.mvproxy.node.plugin;

import io.mvproxy.api.ApiSourceContext;
import io.mvproxy.api.storage.ListOptions;
import io.mvproxy.api.storage.Preconditions;
import io.mvproxy.api.storage.ResourceStorage;
import io.mvproxy.api.storage.StorageException;
import io.mvproxy.api.storage.StoredObject;
import io.mvproxy.registry.impl.model.CrdConditions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

import static io.mvproxy.node.plugin.ApiCrdVerticle.INSTANCE_WAIT_MS;
import static io.mvproxy.node.plugin.ApiCrdVerticle.PASS_MS;
import static io.mvproxy.node.plugin.ApiCrdVerticle.now;

/**
 * {@link ApiCrdVerticle}'s finalizer controller for API-created CRDs
 * ({@code apiextensions-apiserver/pkg/controller/finalizer/crd_finalizer.go}): a deleted CRD's objects are deleted
 * (objects with finalizers get {@code deletionTimestamp} and are waited for, up to
 * {@link ApiCrdVerticle#INSTANCE_WAIT_MS} per round), then the {@code customresourcecleanup.apiextensions.k8s.io}
 * finalizer is removed and the CRD with it; {@code Terminating} conditions as upstream.
 */
final class CrdFinalizer {
  private static final Logger LOG = Logger.getLogger(ApiCrdVerticle.class.getName());

  private final Vertx vertx;
  private final ApiSourceContext ctx;
  private final ResourceStorage store;

  /**
   * @param vertx the verticle's Vert.x (timers)
   * @param ctx   node services (the storage of the CRDs' objects)
   * @param store the CRDs' storage ({@link ApiCrdVerticle#PREFIX})
   */
  CrdFinalizer(Vertx vertx, ApiSourceContext ctx, ResourceStorage store) {
    this.vertx = vertx;
    this.ctx = ctx;
    this.store = store;
  }

  /** The finalizer controller for one deleted CRD. */
  Future<Void> finalize(JsonObject crd) {
    String name = crd.getJsonObject("metadata").getString("name");
    String uid = crd.getJsonObject("metadata").getString("uid");
    boolean established = CrdConditions.isTrue(crd, CrdConditions.ESTABLISHED);
    JsonObject spec = crd.getJsonObject("spec");
    ResourceStorage objects = ctx.storage().resource(spec.getString("group") + "/"
        + spec.getJsonObject("names").getString("plural"));
    return updateStatus(name, uid, c -> CrdConditions.set(c, CrdConditions.TERMINATING, "True",
        "InstanceDeletionInProgress", "CustomResource deletion is in progress", now()))
        .compose(v -> !established ? Future.succeededFuture(new String[] {"False", "NeverEstablished",
            "resource was never established"}) : deleteInstances(objects).map(v2 -> new String[] {"False",
            "InstanceDeletionCompleted", "removed all instances"}))
        .recover(t -> {
          String[] failed = {"True", t instanceof IllegalStateException ? "InstanceDeletionCheck"
              : "InstanceDeletionFailed", t.getMessage()};
          return updateStatus(name, uid, c -> CrdConditions.set(c, CrdConditions.TERMINATING, failed[0], failed[1],
              failed[2], now())).compose(v -> Future.failedFuture(t));
        })
        .compose(cond -> store.guaranteedUpdate(name, new Preconditions(uid, null), cur -> {
          JsonObject c = cur.object().copy();
          CrdConditions.set(c, CrdConditions.TERMINATING, cond[0], cond[1], cond[2], now());
          JsonArray fin = c.getJsonObject("metadata").getJsonArray("finalizers", new JsonArray()).copy();
          fin.remove(CrdConditions.CLEANUP_FINALIZER);
          c.getJsonObject("metadata").put("finalizers", fin);
          return c;
        }))
        .compose(so -> {
          JsonArray fin = so.object().getJsonObject("metadata").getJsonArray("finalizers", new JsonArray());
          if (!fin.isEmpty()) {
            return Future.succeededFuture();
          }
          LOG.info("CustomResourceDefinition " + name + " finalized: its objects are deleted; removing it");
          return store.delete(name, new Preconditions(uid, null), null).<Void>mapEmpty();
        })
        .recover(t -> t instanceof StorageException se && (se.storageCode() == StorageException.Code.NOT_FOUND
            || se.storageCode() == StorageException.Code.CONFLICT) ? Future.succeededFuture()
            : Future.failedFuture(t));
  }

  /**
   * Deletes every object of the resource (an object with finalizers gets {@code deletionTimestamp} and is waited
   * for), then waits until none is left, at most {@link ApiCrdVerticle#INSTANCE_WAIT_MS}.
   *
   * @return fails with IllegalStateException ({@code could not confirm zero CustomResources remaining}) when objects
   *     remain, or with the storage error ({@code could not list instances} / {@code could not issue all deletes})
   */
  private Future<Void> deleteInstances(ResourceStorage objects) {
    return objects.list(ListOptions.all("")).recover(t -> Future.failedFuture(
            new RuntimeException("could not list instances: " + t.getMessage(), t)))
        .compose(page -> {
          List<Future<?>> deletes = new ArrayList<>();
          for (StoredObject so : page.items()) {
            deletes.add(deleteOne(objects, so));
          }
          return Future.all(deletes).recover(t -> Future.failedFuture(
              new RuntimeException("could not issue all deletes: " + t.getMessage(), t)));
        })
        .compose(v -> waitEmpty(objects, System.currentTimeMillis() + INSTANCE_WAIT_MS));
  }

  /** Deletes one object, or marks it deleted when it has finalizers; gone or changed meanwhile is success. */
  private Future<Void> deleteOne(ResourceStorage objects, StoredObject so) {
    JsonObject md = so.object().getJsonObject("metadata");
    boolean finalizers = md.getValue("finalizers") instanceof JsonArray f && !f.isEmpty();
    Future<?> op;
    if (!finalizers) {
      op = objects.delete(so.key(), new Preconditions(so.uid(), null), null);
    } else if (md.getValue("deletionTimestamp") == null) {
      op = objects.guaranteedUpdate(so.key(), new Preconditions(so.uid(), null), cur -> {
        JsonObject c = cur.object().copy();
        c.getJsonObject("metadata").put("deletionTimestamp", now()).put("deletionGracePeriodSeconds", 0);
        return c;
      });
    } else {
      op = Future.succeededFuture();
    }
    return op.<Void>mapEmpty().recover(t -> t instanceof StorageException se
        && (se.storageCode() == StorageException.Code.NOT_FOUND || se.storageCode() == StorageException.Code.CONFLICT)
        ? Future.succeededFuture() : Future.failedFuture(t));
  }

  /** @return completes once the resource has no object; fails past the deadline (epoch ms) */
  private Future<Void> waitEmpty(ResourceStorage objects, long deadline) {
    return objects.count("").compose(n -> {
      if (n == 0) {
        return Future.succeededFuture();
      }
      if (System.currentTimeMillis() > deadline) {
        return Future.failedFuture(new IllegalStateException("could not confirm zero CustomResources remaining: "
            + n + " left"));
      }
      Promise<Void> p = Promise.promise();
      vertx.setTimer(PASS_MS, t -> waitEmpty(objects, deadline).onComplete(p));
      return p.future();
    });
  }

  /** A guaranteed update of the CRD (uid precondition) through {@code f}. */
  private Future<Void> updateStatus(String name, String uid, java.util.function.UnaryOperator<JsonObject> f) {
    return store.guaranteedUpdate(name, new Preconditions(uid, null), cur -> f.apply(cur.object().copy()))
        .mapEmpty();
  }
}
