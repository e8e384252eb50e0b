package io.mvproxy.crd.rest;

import io.mvproxy.api.NamespaceLifecycle;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/** The NamespaceLifecycle check on create of a namespaced object (404 missing, 403 Terminating). */
public final class NamespaceAdmission implements ObjectStrategy {
  private final NamespaceLifecycle lifecycle;

  /** @param lifecycle the node's namespace lifecycle service */
  public NamespaceAdmission(NamespaceLifecycle lifecycle) {
    this.lifecycle = lifecycle;
  }

  @Override
  public Future<Void> admitCreate(CrdRequest req, JsonObject obj) {
    if (!req.crd().namespaced()) {
      return Future.succeededFuture();
    }
    return lifecycle.admitCreate(req.namespace(), req.gvr(),
        obj.getJsonObject("metadata", new JsonObject()).getString("name", ""));
  }
}
