package io.mvproxy.registry;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.ApiSourceContext;
import io.mvproxy.registry.impl.CodeKinds;

/**
 * The entry point of the registry's public API: serves a kind a code plugin declares through the node's generic
 * REST registry, as kube-apiserver builds a {@code registry/generic/registry.Store} per built-in kind
 * ({@code staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go}).
 */
public final class Registry {
  private Registry() {
  }

  /**
   * Builds the API source of one kind, to return from an {@link io.mvproxy.api.ApiSourceProvider}. Its objects live in
   * the node's storage backend (memory or etcd3) under {@code <group>/<plural>}, shared by every node of the fleet
   * that serves the kind; requests for it on a node without the plugin are proxied to a node with it. It lists the
   * kind in discovery (group priority 1000, version priority 100, as a CRD), serves the OpenAPI v2/v3 of its schema,
   * and applies the NamespaceLifecycle check to namespaced kinds. It is not a CustomResourceDefinition: nothing is
   * published under {@code apiextensions.k8s.io}.
   *
   * @param definition the kind
   * @param strategy   its behaviour ({@link KindStrategy#NONE} for none)
   * @param context    the node's services, as given to the provider
   * @return the source, serving at once; its name is {@code kind/<plural>.<group>}
   * @throws io.mvproxy.api.StatusException 422 Invalid, with causes naming the {@code spec...} field, when the
   *     definition breaks a CustomResourceDefinition rule (the plugin is then FAILED with that message)
   */
  public static ApiSource serve(KindDefinition definition, KindStrategy strategy, ApiSourceContext context) {
    return CodeKinds.serve(definition.toCustomResourceDefinition(), strategy, context);
  }
}
