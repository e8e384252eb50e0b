package io.mvproxy.storage;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import io.mvproxy.storage.encryption.EncryptionConfig;

/**
 * Storage settings, spelled as kube-apiserver's flags ({@code apiserver/pkg/server/options/etcd.go}).
 *
 * @param backend            {@code --storage-backend}: {@code etcd3} or {@code memory}
 * @param etcdServers        {@code --etcd-servers}: {@code scheme://host:port} URLs (etcd3 only)
 * @param etcdPrefix         {@code --etcd-prefix}: root of every key, default {@code /registry}
 * @param caFile             {@code --etcd-cafile}, or null (plain TCP)
 * @param certFile           {@code --etcd-certfile}, or null
 * @param keyFile            {@code --etcd-keyfile} (PKCS#8 PEM), or null
 * @param compactionInterval {@code --etcd-compaction-interval}; zero disables compaction
 * @param healthcheckTimeout {@code --etcd-healthcheck-timeout}: deadline of the health probe ({@code /livez/etcd})
 * @param readycheckTimeout  {@code --etcd-readycheck-timeout}: deadline of the readiness probe
 *                           ({@code /readyz/etcd-readiness})
 * @param requestTimeout     deadline of every storage call, kube-apiserver's {@code --request-timeout} (storage calls
 *                           run under the request's context upstream); 504 after it, never a hang
 * @param watchCacheSize     events each resource's watch cache keeps
 * @param encryptionFile     {@code --encryption-provider-config}, or null
 * @param encryption         that file parsed ({@link EncryptionConfig#load}), or null: no encryption at rest
 */
public record StorageConfig(String backend, List<String> etcdServers, String etcdPrefix, Path caFile, Path certFile,
                            Path keyFile, Duration compactionInterval, Duration healthcheckTimeout,
                            Duration readycheckTimeout, Duration requestTimeout, int watchCacheSize,
                            Path encryptionFile, EncryptionConfig encryption) {
  /** The etcd backend's name. */
  public static final String ETCD3 = "etcd3";
  /** The embedded backend's name. */
  public static final String MEMORY = "memory";
  /** Default {@code --etcd-prefix}. */
  public static final String DEFAULT_PREFIX = "/registry";
  /** Default deadline of a storage call: kube-apiserver's default {@code --request-timeout}, 60 s. */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(60);
  /** Default {@code --etcd-healthcheck-timeout} and {@code --etcd-readycheck-timeout}: 2 s. */
  public static final Duration DEFAULT_CHECK_TIMEOUT = Duration.ofSeconds(2);
  /** Default watch cache size per resource. */
  public static final int DEFAULT_WATCH_CACHE_SIZE = 1000;

  /** Settings without encryption at rest (the other components as the canonical constructor's). */
  public StorageConfig(String backend, List<String> etcdServers, String etcdPrefix, Path caFile, Path certFile,
                       Path keyFile, Duration compactionInterval, Duration healthcheckTimeout,
                       Duration readycheckTimeout, Duration requestTimeout, int watchCacheSize) {
    this(backend, etcdServers, etcdPrefix, caFile, certFile, keyFile, compactionInterval, healthcheckTimeout,
        readycheckTimeout, requestTimeout, watchCacheSize, null, null);
  }

  /**
   * @param file       the {@code --encryption-provider-config} file
   * @param parsed     that file parsed
   * @return a copy with encryption at rest
   */
  public StorageConfig withEncryption(Path file, EncryptionConfig parsed) {
    return new StorageConfig(backend, etcdServers, etcdPrefix, caFile, certFile, keyFile, compactionInterval,
        healthcheckTimeout, readycheckTimeout, requestTimeout, watchCacheSize, file, parsed);
  }

  /** @return the embedded default: memory backend, {@code /registry}, no compaction */
  public static StorageConfig memory() {
    return new StorageConfig(MEMORY, List.of(), DEFAULT_PREFIX, null, null, null, Duration.ZERO,
        DEFAULT_CHECK_TIMEOUT, DEFAULT_CHECK_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, DEFAULT_WATCH_CACHE_SIZE);
  }

  /**
   * @param servers etcd client URLs
   * @return etcd3 on {@code servers} with kube-apiserver's defaults (prefix {@code /registry}, compaction 5 min,
   *     health and readiness checks 2 s, storage calls bounded by 60 s)
   */
  public static StorageConfig etcd(List<String> servers) {
    return new StorageConfig(ETCD3, List.copyOf(servers), DEFAULT_PREFIX, null, null, null, Duration.ofMinutes(5),
        DEFAULT_CHECK_TIMEOUT, DEFAULT_CHECK_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, DEFAULT_WATCH_CACHE_SIZE);
  }

  /** @return a copy with another prefix */
  public StorageConfig withPrefix(String prefix) {
    return new StorageConfig(backend, etcdServers, prefix, caFile, certFile, keyFile, compactionInterval,
        healthcheckTimeout, readycheckTimeout, requestTimeout, watchCacheSize, encryptionFile, encryption);
  }

  /** @return a copy with another compaction interval */
  public StorageConfig withCompactionInterval(Duration d) {
    return new StorageConfig(backend, etcdServers, etcdPrefix, caFile, certFile, keyFile, d, healthcheckTimeout,
        readycheckTimeout, requestTimeout, watchCacheSize, encryptionFile, encryption);
  }

  /** @return a copy with another request timeout */
  public StorageConfig withRequestTimeout(Duration d) {
    return new StorageConfig(backend, etcdServers, etcdPrefix, caFile, certFile, keyFile, compactionInterval,
        healthcheckTimeout, readycheckTimeout, d, watchCacheSize, encryptionFile, encryption);
  }

  /** @return a copy with another watch cache size */
  public StorageConfig withWatchCacheSize(int n) {
    return new StorageConfig(backend, etcdServers, etcdPrefix, caFile, certFile, keyFile, compactionInterval,
        healthcheckTimeout, readycheckTimeout, requestTimeout, n, encryptionFile, encryption);
  }
}
