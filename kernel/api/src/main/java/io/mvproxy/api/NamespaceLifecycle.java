package io.mvproxy.api;

import io.vertx.core.Future;

/**
 * The NamespaceLifecycle admission check every namespaced kind runs on create, custom resources included
 * ({@code apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go}), offered to API sources through
 * {@link ApiSourceContext#namespaceLifecycle()}.
 */
public interface NamespaceLifecycle {
  /**
   * @param namespace the namespace of the new object
   * @param gvr       its resource
   * @param name      its name ({@code ""} with generateName)
   * @return completes when the namespace exists and is Active; fails with a StatusException 404
   *     {@code namespaces "x" not found} when it does not exist, 403 {@code <resource> "<name>" is forbidden:
   *     unable to create new content in namespace x because it is being terminated} when it is Terminating
   */
  Future<Void> admitCreate(String namespace, Gvr gvr, String name);
}
