package io.mvproxy.storage;

import com.hazelcast.core.HazelcastInstance;
import io.mvproxy.api.storage.ResourceStorage;
import io.mvproxy.api.storage.Storage;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.mvproxy.storage.encryption.EncryptionConfig;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A node's {@link Storage}: one {@link Backend} chosen by {@code --storage-backend} and one {@link ObjectStore} (with
 * its {@link WatchCache}) per resource prefix, shared by every API source of the node. With an
 * {@link EncryptionConfig} ({@code --encryption-provider-config}) each resource's values are encrypted at rest by the
 * providers configured for its group resource, on either backend.
 */
public final class NodeStorage implements Storage {
  private final Vertx vertx;
  private final Backend backend;
  private final StorageConfig config;
  /** The encryption at rest in force; replaced by {@link #reloadEncryption}. */
  private volatile EncryptionConfig encryption;
  private final Map<String, ObjectStore> stores = new ConcurrentHashMap<>();
  /** The group resource of each opened store, for the transformers of a reloaded configuration. */
  private final Map<String, EncryptionConfig.GroupResource> groupResources = new ConcurrentHashMap<>();

  /**
   * @param vertx   the node's Vert.x
   * @param backend the backend
   * @param config  settings (prefix, watch cache size, encryption at rest)
   */
  public NodeStorage(Vertx vertx, Backend backend, StorageConfig config) {
    this(vertx, backend, config, config.encryption());
  }

  /**
   * @param vertx      the node's Vert.x
   * @param backend    the backend
   * @param config     settings (prefix, watch cache size)
   * @param encryption encryption at rest, or null for none
   */
  public NodeStorage(Vertx vertx, Backend backend, StorageConfig config, EncryptionConfig encryption) {
    this.vertx = vertx;
    this.backend = backend;
    this.config = config;
    this.encryption = encryption;
  }

  /**
   * Builds the storage of {@code config}.
   *
   * @param vertx  the node's Vert.x
   * @param hz     the node's Hazelcast member (memory backend), may be null for etcd3
   * @param config settings
   * @return the storage (etcd connections are dialled lazily: an unreachable etcd does not stop the node)
   * @throws IllegalArgumentException for an unknown backend or unusable TLS files
   */
  public static NodeStorage create(Vertx vertx, HazelcastInstance hz, StorageConfig config) {
    return create(vertx, hz, config, config.encryption());
  }

  /**
   * Builds the storage of {@code config} with encryption at rest.
   *
   * @param vertx      the node's Vert.x
   * @param hz         the node's Hazelcast member (memory backend), may be null for etcd3
   * @param config     settings
   * @param encryption the parsed {@code --encryption-provider-config}, or null for none
   * @return the storage
   * @throws IllegalArgumentException for an unknown backend or unusable TLS files
   */
  public static NodeStorage create(Vertx vertx, HazelcastInstance hz, StorageConfig config,
                                   EncryptionConfig encryption) {
    Backend b = switch (config.backend()) {
      case StorageConfig.ETCD3 -> EtcdBackend.connect(vertx, config);
      case StorageConfig.MEMORY -> new MemoryBackend(vertx, hz, config);
      default -> throw new IllegalArgumentException("unknown storage backend " + config.backend());
    };
    return new NodeStorage(vertx, b, config, encryption);
  }

  /**
   * {@inheritDoc} The group resource is taken from the prefix: {@code <group>/<plural>}, or a core resource.
   */
  @Override
  public ResourceStorage resource(String resourcePrefix) {
    int slash = resourcePrefix == null ? -1 : resourcePrefix.lastIndexOf('/');
    return slash < 0 ? resource(resourcePrefix, "", resourcePrefix)
        : resource(resourcePrefix, resourcePrefix.substring(0, slash), resourcePrefix.substring(slash + 1));
  }

  @Override
  public ResourceStorage resource(String resourcePrefix, String group, String resource) {
    if (resourcePrefix == null || resourcePrefix.isEmpty() || resourcePrefix.startsWith("/")
        || resourcePrefix.endsWith("/")) {
      throw new IllegalArgumentException("invalid resource prefix \"" + resourcePrefix + "\"");
    }
    Keys.checkRelative(resourcePrefix, false);
    ObjectStore open = stores.get(resourcePrefix);
    if (open != null) {
      return open;
    }
    synchronized (this) {  // a reload in progress sets every opened store, this one included
      return stores.computeIfAbsent(resourcePrefix, p -> {
        groupResources.put(p, new EncryptionConfig.GroupResource(group, resource));
        EncryptionConfig enc = encryption;
        return new ObjectStore(vertx, backend, config.etcdPrefix(), p, config.watchCacheSize(),
            enc == null ? null : enc.transformerFor(group, resource));
      });
    }
  }

  /**
   * Puts another encryption configuration in force ({@code --encryption-provider-config-automatic-reload}, as
   * kube-apiserver's {@code DynamicEncryptionConfigContent}): every opened resource and those opened later write with
   * its first provider and read with all of its providers. A value written with a key the new configuration lacks
   * no longer reads (500), as upstream.
   *
   * @param next the new configuration, or null for none
   */
  public synchronized void reloadEncryption(EncryptionConfig next) {
    encryption = next;
    for (Map.Entry<String, ObjectStore> e : stores.entrySet()) {
      EncryptionConfig.GroupResource gr = groupResources.get(e.getKey());
      e.getValue().useTransformer(next == null || gr == null ? null : next.transformerFor(gr.group(), gr.resource()));
    }
  }

  /** @return the encryption configuration in force, or null for none */
  public EncryptionConfig encryption() {
    return encryption;
  }

  /** @return the store of a prefix already opened, or null (tests, metrics) */
  public ObjectStore opened(String resourcePrefix) {
    return stores.get(resourcePrefix);
  }

  @Override
  public Future<Long> currentRevision() {
    return backend.currentRevision();
  }

  @Override
  public String backend() {
    return backend.name();
  }

  @Override
  public boolean healthy() {
    return backend.healthy();
  }

  /** @return the backend's readiness ({@code /readyz/etcd-readiness}: answered within the readiness deadline) */
  public boolean ready() {
    return backend.ready();
  }

  /** @return backend watches open now across all resources (one per watched resource plus lagging clients) */
  public int backendWatches() {
    return stores.values().stream().mapToInt(s -> s.cache().backendWatches()).sum();
  }

  /** Ends every watch and closes the backend. @return completes when closed */
  public Future<Void> close() {
    stores.values().forEach(s -> s.cache().close());
    return backend.close();
  }
}
