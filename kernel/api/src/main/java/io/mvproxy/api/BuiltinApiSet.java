package io.mvproxy.api;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.List;

/** A node's built-in API set, as made by its {@link BuiltinApiProvider}. */
public interface BuiltinApiSet {

  /** @return the built-in API sources, in a fixed order */
  List<ApiSource> sources();

  /** @return the node's NamespaceLifecycle admission (for every namespaced kind, built-in or custom) */
  NamespaceLifecycle namespaces();

  /** @return the node's dynamic admission (webhook configurations read from storage), or null for none */
  default io.mvproxy.api.admission.Admission admission() {
    return null;
  }

  /** @return completes when the system namespaces and the default RBAC policy are stored */
  Future<Void> started();

  /**
   * Publishes the CustomResourceDefinitions and APIServices this node's plugins serve
   * ({@link ApiSource#customResourceDefinition()}, {@link ApiSource#apiService()}) as {@code apiextensions.k8s.io/v1}
   * and {@code apiregistration.k8s.io/v1} objects, merged fleet-wide; the node calls it on every change of its
   * plugins.
   *
   * @param manifests the CRD and APIService manifests of the node's ACTIVE plugins (told apart by {@code kind})
   */
  void publishDefinitions(List<JsonObject> manifests);

  /** @return completes when the first {@link #publishDefinitions} was stored */
  Future<Void> definitionsPublished();
}
