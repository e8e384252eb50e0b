package io.mvproxy.api.storage;

import io.vertx.core.Future;

/**
 * A node's storage: one fleet-wide, strictly increasing revision (the {@code resourceVersion} of every object, list
 * and watch event) and one {@link ResourceStorage} per resource key prefix. Backends: {@code etcd3} (a real etcd
 * cluster, kube-apiserver's layout) and {@code memory} (Hazelcast maps, volatile). Implemented in
 * {@code kernel/storage}; offered to plugins through {@link io.mvproxy.api.ApiSourceContext#storage()}.
 */
public interface Storage {

  /**
   * The storage of one resource. Keys of its objects are relative to {@code resourcePrefix}: {@code <ns>/<name>} for
   * namespaced resources, {@code <name>} for cluster-scoped ones. The backend prepends its own prefix
   * ({@code --etcd-prefix}, default {@code /registry}). Calls with the same prefix return the same instance, so
   * every watch of a resource on this node shares one storage watch.
   *
   * @param resourcePrefix the resource's key prefix without leading or trailing {@code /}, as kube-apiserver's
   *                       storage factory chooses it: {@code <group>/<plural>} for custom resources
   *                       ({@code demo.example.com/widgets}), the lower-cased resource for core built-ins
   *                       ({@code namespaces}, {@code configmaps}); see storage.md section 2
   * @return the resource's storage
   * @throws IllegalArgumentException when the prefix is empty or has empty, {@code .} or {@code ..} segments
   */
  ResourceStorage resource(String resourcePrefix);

  /**
   * The storage of one resource whose group resource is known, which chooses its encryption at rest
   * ({@code --encryption-provider-config} names group resources, e.g. {@code secrets},
   * {@code widgets.demo.mvproxy.io}). The first call for a prefix decides its group resource.
   *
   * @param resourcePrefix as {@link #resource(String)}
   * @param group          the API group ({@code ""} for core)
   * @param resource       the plural resource
   * @return the resource's storage
   * @throws IllegalArgumentException as {@link #resource(String)}
   */
  default ResourceStorage resource(String resourcePrefix, String group, String resource) {
    return resource(resourcePrefix);
  }

  /**
   * @return the current revision of the whole store (a quorum read); fails with a {@link StorageException}
   *     503/504 when the backend is unreachable
   */
  Future<Long> currentRevision();

  /** @return the backend name: {@code etcd3} or {@code memory} ({@code --storage-backend}) */
  String backend();

  /**
   * @return true when the last health probe of the backend succeeded (the {@code etcd} check of {@code /readyz}
   *     and {@code /livez}); never blocks
   */
  boolean healthy();
}
