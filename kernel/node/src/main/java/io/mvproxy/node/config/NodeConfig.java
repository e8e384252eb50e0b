package io.mvproxy.node.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A node's validated configuration (see {@link ConfigKey} for every key, its flag and default). Built by
 * {@link ConfigLoader}; immutable.
 *
 * @param serverId                  stable server ID
 * @param bindAddress               HTTPS listen IP
 * @param securePort                HTTPS port (0 = any free port)
 * @param advertiseAddress          IP advertised to peers when peer-advertise-ip/port are not both set
 * @param peerAdvertiseIp           peer-facing IP or null
 * @param peerAdvertisePort         peer-facing port or null
 * @param tlsCertFile               serving certificate
 * @param tlsPrivateKeyFile         serving key
 * @param clientCaFile              user client-certificate CA or null
 * @param tokenAuthFile             token CSV or null
 * @param peerCaFile                peer serving CA or null (null = local only, no proxy, no aggregation)
 * @param proxyClientCertFile       peer-hop client certificate or null
 * @param proxyClientKeyFile        peer-hop client key or null
 * @param requestheaderClientCaFile peer-hop CA or null
 * @param requestheaderAllowedNames allowed peer-hop CNs (empty = any)
 * @param peerProxyEnabled          feature gate UnknownVersionInteroperabilityProxy
 * @param pluginDir                 plugin folder
 * @param clusterName               Hazelcast cluster name
 * @param clusterHost               Hazelcast / event-bus interface
 * @param clusterPort               Hazelcast port
 * @param clusterMembers            host:port members to join
 * @param clusterSecretFile         the fleet's shared secret ({@code --cluster-secret-file}, checked at load) or null
 * @param shutdownGracePeriod       drain time on shutdown
 * @param serviceResolution         {@code namespace/name:port} to backend base URL, for APIService sources
 * @param loggingFormat             {@code text} or {@code json}
 * @param authorizationModes        {@code --authorization-mode} values in order (validated)
 * @param serving                   request time-out and in-flight limits of the ingress
 * @param storage                   the storage backend and its etcd settings ({@code --storage-backend}, {@code --etcd-*})
 * @param memberWait                longest time one awaited member holds 404 answers back (README "Routing rules")
 * @param controllers               the controller manager's settings ({@code --controllers}, {@code --leader-elect*},
 *                                  {@code --controllers-server-ca-file})
 * @param serviceAccounts           the service account token keys ({@code --service-account-*}, {@code --api-audiences})
 * @param audit                     the audit policy and log ({@code --audit-*})
 * @param identityLease             the apiserver identity Lease timings ({@code --identity-lease-*})
 * @param eventTtl                  {@code --event-ttl}: how long an Event is kept after its last write (zero: until
 *                                  deleted)
 * @param encryptionAutoReload      {@code --encryption-provider-config-automatic-reload}: the encryption configuration
 *                                  file is read again every minute and a changed, valid one put in force
 */
public record NodeConfig(String serverId, String bindAddress, int securePort, String advertiseAddress,
                         String peerAdvertiseIp, Integer peerAdvertisePort, Path tlsCertFile,
                         Path tlsPrivateKeyFile, Path clientCaFile, Path tokenAuthFile, Path peerCaFile,
                         Path proxyClientCertFile, Path proxyClientKeyFile, Path requestheaderClientCaFile,
                         List<String> requestheaderAllowedNames, boolean peerProxyEnabled, Path pluginDir,
                         String clusterName, String clusterHost, int clusterPort, List<String> clusterMembers,
                         Path clusterSecretFile,
                         Duration shutdownGracePeriod, java.util.Map<String, String> serviceResolution,
                         String loggingFormat, List<String> authorizationModes, ServingLimits serving,
                         io.mvproxy.storage.StorageConfig storage,
                         Duration memberWait, Controllers controllers,
                         ServiceAccounts serviceAccounts, Audit audit, IdentityLease identityLease,
                         Duration eventTtl, boolean encryptionAutoReload) {

  /**
   * The apiserver identity Lease timings, as kube-apiserver's flags of the same names
   * ({@code pkg/controlplane/apiserver/server.go}: {@code IdentityLeaseDurationSeconds},
   * {@code IdentityLeaseRenewIntervalPeriod}).
   *
   * @param durationSeconds      {@code --identity-lease-duration-seconds}: the Lease's {@code leaseDurationSeconds}
   *                             and the garbage collector's period (positive)
   * @param renewIntervalSeconds {@code --identity-lease-renew-interval-seconds}: time between renewals (positive)
   */
  public record IdentityLease(int durationSeconds, int renewIntervalSeconds) {
  }

  /**
   * The audit settings, as kube-apiserver's {@code --audit-*} flags.
   *
   * @param policyFile  {@code --audit-policy-file} or null
   * @param policy      the policy read from it (validated), or null
   * @param logPath     {@code --audit-log-path} ({@code -} = stdout) or null
   * @param maxAgeDays  {@code --audit-log-maxage}
   * @param maxBackups  {@code --audit-log-maxbackup}
   * @param maxSizeMb   {@code --audit-log-maxsize} (0 = 100)
   * @param bufferSize  {@code --audit-log-batch-buffer-size}
   * @param webhook     the {@code --audit-webhook-config-file} kubeconfig, or null
   * @param webhookBatch the webhook's batching and retry settings
   */
  public record Audit(Path policyFile, io.mvproxy.node.audit.AuditPolicy policy, String logPath, int maxAgeDays,
                      int maxBackups, int maxSizeMb, int bufferSize,
                      io.mvproxy.node.audit.AuditWebhookBackend.Kubeconfig webhook, WebhookBatch webhookBatch) {
    /** @return true when events are recorded: a policy and a backend */
    public boolean enabled() {
      return policy != null && (logPath != null || webhook != null);
    }
  }

  /**
   * The audit webhook's batch mode settings.
   *
   * @param bufferSize     {@code --audit-webhook-batch-buffer-size}
   * @param maxBatchSize   {@code --audit-webhook-batch-max-size}
   * @param maxWait        {@code --audit-webhook-batch-max-wait}
   * @param initialBackoff {@code --audit-webhook-initial-backoff}
   */
  public record WebhookBatch(int bufferSize, int maxBatchSize, Duration maxWait, Duration initialBackoff) {
  }

  /**
   * The controller manager's settings, as kube-controller-manager's flags.
   *
   * @param enabled       enabled controllers (canonical names of {@code io.mvproxy.controllers.ControllerSelection})
   * @param leaderElect   {@code --leader-elect}
   * @param leaseDuration {@code --leader-elect-lease-duration}
   * @param renewDeadline {@code --leader-elect-renew-deadline}
   * @param retryPeriod   {@code --leader-elect-retry-period}
   * @param serverCaFile  with the gate off: CA of the other nodes' serving certificates (requests spread over the
   *                      fleet), or null
   */
  public record Controllers(java.util.Set<String> enabled, boolean leaderElect, Duration leaseDuration,
                            Duration renewDeadline, Duration retryPeriod, Path serverCaFile) {
    /** Copies the set. */
    public Controllers {
      enabled = java.util.Collections.unmodifiableSet(new java.util.LinkedHashSet<>(enabled));
    }
  }

  /**
   * Service account token settings, as kube-apiserver's flags.
   *
   * @param issuers        {@code --service-account-issuer} values (empty: no service account tokens)
   * @param signingKeyFile {@code --service-account-signing-key-file} or null
   * @param keyFile        {@code --service-account-key-file} or null
   * @param apiAudiences   {@code --api-audiences} (empty: the issuers)
   * @param maxExpiration  {@code --service-account-max-token-expiration} (zero: no limit)
   * @param jwksUri        {@code --service-account-jwks-uri} (an https URL) or null
   */
  public record ServiceAccounts(List<String> issuers, Path signingKeyFile, Path keyFile, List<String> apiAudiences,
                                Duration maxExpiration, String jwksUri) {
    /** None configured. */
    public static final ServiceAccounts NONE = new ServiceAccounts(List.of(), null, null, List.of(), Duration.ZERO,
        null);

    /** Copies the lists. */
    public ServiceAccounts {
      issuers = List.copyOf(issuers);
      apiAudiences = List.copyOf(apiAudiences);
    }
  }

  /**
   * The ingress's request limits (kube-apiserver's {@code --request-timeout}, {@code --max-requests-inflight},
   * {@code --max-mutating-requests-inflight}).
   *
   * @param requestTimeout        deadline of non-long-running requests (504 Timeout after it)
   * @param maxRequestsInflight   non-mutating requests in flight before 429 (0 = no limit)
   * @param maxMutatingInflight   mutating requests in flight before 429 (0 = no limit)
   * @param ingressInstances      HTTPS ingress verticle instances, each on its own event loop (at least 1)
   * @param tlsEngine             {@code --tls-engine}: {@code auto}, {@code jdk} or {@code openssl}
   * @param http2MaxStreams       HTTP/2 concurrent streams per connection (at least 1)
   * @param goawayChance          {@code --goaway-chance}, 0..0.02
   * @param peerHttp2             {@code --peer-http2}: the peer hop offers h2 through ALPN
   * @param nativeTransport       {@code --native-transport}: Netty's epoll transport where it loads
   * @param responseCompression   feature gate {@code APIResponseCompression}: answers over 128 KiB gzip-compressed for
   *                              clients that accept it ({@link io.mvproxy.api.ResponseCompression})
   */
  public record ServingLimits(Duration requestTimeout, int maxRequestsInflight, int maxMutatingInflight,
                              int ingressInstances, String tlsEngine, int http2MaxStreams, double goawayChance,
                              boolean peerHttp2, boolean nativeTransport, boolean responseCompression) {
    /** kube-apiserver's {@code --http2-max-streams-per-connection} default (what 0 means). */
    public static final int DEFAULT_HTTP2_MAX_STREAMS = 100;
    /**
     * kube-apiserver's defaults: 1m0s, 400, 200; one ingress per CPU core; JDK TLS, 100 streams, no GOAWAY chance;
     * an HTTP/1.1 peer hop; Java NIO; compression of large answers.
     */
    public static final ServingLimits DEFAULTS = new ServingLimits(Duration.ofMinutes(1), 400, 200,
        defaultIngressInstances(), "auto", DEFAULT_HTTP2_MAX_STREAMS, 0, false, false, true);

    /** @return the CPU cores this JVM may use (Vert.x's default event-loop count is twice that) */
    public static int defaultIngressInstances() {
      return Math.max(1, Runtime.getRuntime().availableProcessors());
    }
  }

  /** Copies the map. */
  public NodeConfig {
    serviceResolution = java.util.Map.copyOf(serviceResolution);
    authorizationModes = List.copyOf(authorizationModes);
  }

  /** @return true when peers are proxied to and aggregated: gate on and {@code --peer-ca-file} set */
  public boolean peersEnabled() {
    return peerProxyEnabled && peerCaFile != null;
  }

  /**
   * The host peers use to reach this node: {@code --peer-advertise-ip} when both peer-advertise flags are set,
   * else {@code --advertise-address} (peer.go in kube-apiserver).
   *
   * @return an IP literal
   */
  public String peerHost() {
    return peerAdvertiseIp != null && peerAdvertisePort != null ? peerAdvertiseIp : advertiseAddress;
  }

  /**
   * @param actualSecurePort the port the HTTPS server really bound (differs from securePort when it is 0)
   * @return the port peers use: {@code --peer-advertise-port} when both peer-advertise flags are set
   */
  public int peerPort(int actualSecurePort) {
    return peerAdvertiseIp != null && peerAdvertisePort != null ? peerAdvertisePort : actualSecurePort;
  }
}
