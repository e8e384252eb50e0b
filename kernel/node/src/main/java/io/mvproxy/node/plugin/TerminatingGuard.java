package io.mvproxy.node.plugin;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.ForwardingApiSource;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.StatusReason;
import io.mvproxy.api.StatusWriter;
import io.mvproxy.api.UserInfo;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The source of an API-created CRD: creates of its objects answer {@code 405 MethodNotAllowed} ({@code create
 * not allowed while custom resource definition is terminating}) once the CRD is being deleted, as
 * {@code customresource_handler.go}; once it is deleted ({@link #markGone}) creates, updates and patches answer
 * {@code 404} while the source drains; everything else is forwarded to the factory's source
 * ({@link ForwardingApiSource}) but the CRD capability.
 */
final class TerminatingGuard extends ForwardingApiSource {
  private final String crdName;
  private final Supplier<Set<String>> terminating;
  /** Verbs that may store an object (a patch may create one: server-side apply). */
  private static final Set<String> WRITES = Set.of("create", "update", "patch");
  private volatile boolean gone;

  /**
   * @param delegate    the factory's source of the CRD
   * @param crdName     the CRD's name
   * @param terminating the names of the stored CRDs being deleted now (read on request threads)
   */
  TerminatingGuard(ApiSource delegate, String crdName, Supplier<Set<String>> terminating) {
    super(delegate);
    this.crdName = crdName;
    this.terminating = terminating;
  }

  /**
   * Marks the CRD as deleted (no longer stored, or stored again under another uid): from now on this source, still
   * draining for peers whose view trails, refuses writes.
   */
  void markGone() {
    gone = true;
  }

  @Override
  public void handle(RoutingContext rc, RequestInfo info, UserInfo user) {
    if (gone && WRITES.contains(info.verb())) {
      // breakit: a create in the drain window after `kubectl delete crd` was stored (201), an object of a deleted
      // CRD that came back when a CRD of the name was created again; upstream's handler no longer finds the CRD
      // and its delegate answers 404
      StatusWriter.send(rc, StatusException.resourceNotFound());
      return;
    }
    if ("create".equals(info.verb()) && info.subresource().isEmpty() && terminating.get().contains(crdName)) {
      StatusWriter.send(rc, new StatusException(StatusReason.MethodNotAllowed,
          "create not allowed while custom resource definition is terminating", null));
      return;
    }
    super.handle(rc, info, user);
  }

  /**
   * Hidden on purpose: the CRD served here is the user's stored object, not a plugin's definition the node
   * publishes ({@code LocalSources} publishes the CRDs its plugins' sources offer, marking them as plugin CRDs).
   *
   * @return empty
   */
  @Override
  public java.util.Optional<JsonObject> customResourceDefinition() {
    return java.util.Optional.empty();
  }
}
