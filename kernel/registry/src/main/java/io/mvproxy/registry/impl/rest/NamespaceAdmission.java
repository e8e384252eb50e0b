package io.mvproxy.registry.impl.rest;

import io.mvproxy.api.NamespaceLifecycle;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/**
 * The NamespaceLifecycle check on create of a namespaced object (404 missing, 403 Terminating), as the upstream
 * admission plugin ({@code apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go}). The node's namespace
 * service is looked up on each request: the built-in kinds are created before the namespaces exist.
 */
public final class NamespaceAdmission implements ObjectStrategy {
  private final java.util.function.Supplier<NamespaceLifecycle> lifecycle;

  /** @param lifecycle supplies the node's namespace lifecycle service (null while a node has none: tests) */
  public NamespaceAdmission(java.util.function.Supplier<NamespaceLifecycle> lifecycle) {
    this.lifecycle = lifecycle;
  }

  @Override
  public Future<Void> admitCreate(CrdRequest req, JsonObject obj) {
    NamespaceLifecycle namespaces = lifecycle.get();
    if (!req.crd().namespaced() || namespaces == null) {
      return Future.succeededFuture();
    }
    return namespaces.admitCreate(req.namespace(), req.gvr(),
        obj.getJsonObject("metadata", new JsonObject()).getString("name", ""));
  }
}
