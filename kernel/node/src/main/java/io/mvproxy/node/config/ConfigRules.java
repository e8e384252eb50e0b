package io.mvproxy.node.config;

import io.mvproxy.storage.StorageConfig;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The validation half of {@link ConfigLoader}: one method per section of the config (storage, audit, controllers,
 * service accounts, serving limits, feature gates, identity lease), each checking the rules between its keys as
 * kube-apiserver's options validation does and returning the typed section; every failure is a
 * {@link ConfigException} naming the key.
 */
final class ConfigRules {
  private ConfigRules() {
  }

  /**
   * The {@code --identity-lease-*} keys, validated as kube-apiserver's {@code options/validation.go} (both positive,
   * with its texts).
   */
  static NodeConfig.IdentityLease identityLease(RawValues v) {
    int duration = v.integer(ConfigKey.IDENTITY_LEASE_DURATION_SECONDS);
    if (duration <= 0) {
      throw new ConfigException(ConfigKey.IDENTITY_LEASE_DURATION_SECONDS, "--identity-lease-duration-seconds "
          + "should be a positive number, but value '" + duration + "' provided");
    }
    int renew = v.integer(ConfigKey.IDENTITY_LEASE_RENEW_INTERVAL_SECONDS);
    if (renew <= 0) {
      throw new ConfigException(ConfigKey.IDENTITY_LEASE_RENEW_INTERVAL_SECONDS, "--identity-lease-renew-interval-"
          + "seconds should be a positive number, but value '" + renew + "' provided");
    }
    return new NodeConfig.IdentityLease(duration, renew);
  }

  /** The {@code --audit-*} keys; the policy file is read and validated here (a bad one stops the node). */
  static NodeConfig.Audit audit(RawValues v) {
    Path policyFile = v.file(ConfigKey.AUDIT_POLICY_FILE);
    io.mvproxy.node.audit.AuditPolicy policy = null;
    if (policyFile != null) {
      try {
        policy = io.mvproxy.node.audit.AuditPolicy.load(policyFile);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(ConfigKey.AUDIT_POLICY_FILE, e.getMessage());
      }
    }
    String path = v.string(ConfigKey.AUDIT_LOG_PATH);
    if (path != null && !"-".equals(path)) {
      path = v.baseDir().resolve(path).normalize().toString();
      if (Files.isDirectory(Path.of(path))) {
        throw new ConfigException(ConfigKey.AUDIT_LOG_PATH, "is a directory: " + path);
      }
    }
    int buffer = v.integer(ConfigKey.AUDIT_LOG_BATCH_BUFFER_SIZE);
    if (buffer < 1) {
      throw new ConfigException(ConfigKey.AUDIT_LOG_BATCH_BUFFER_SIZE, "must be at least 1");
    }
    Path webhookFile = v.file(ConfigKey.AUDIT_WEBHOOK_CONFIG_FILE);
    io.mvproxy.node.audit.AuditWebhookBackend.Kubeconfig webhook = null;
    if (webhookFile != null) {
      try {
        webhook = io.mvproxy.node.audit.AuditWebhookBackend.Kubeconfig.load(webhookFile);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(ConfigKey.AUDIT_WEBHOOK_CONFIG_FILE, e.getMessage());
      }
    }
    for (ConfigKey k : List.of(ConfigKey.AUDIT_WEBHOOK_BATCH_BUFFER_SIZE, ConfigKey.AUDIT_WEBHOOK_BATCH_MAX_SIZE)) {
      if (v.integer(k) < 1) {
        throw new ConfigException(k, "must be at least 1");
      }
    }
    return new NodeConfig.Audit(policyFile, policy, path, v.integer(ConfigKey.AUDIT_LOG_MAXAGE),
        v.integer(ConfigKey.AUDIT_LOG_MAXBACKUP), v.integer(ConfigKey.AUDIT_LOG_MAXSIZE), buffer, webhook,
        new NodeConfig.WebhookBatch(v.integer(ConfigKey.AUDIT_WEBHOOK_BATCH_BUFFER_SIZE),
            v.integer(ConfigKey.AUDIT_WEBHOOK_BATCH_MAX_SIZE), v.duration(ConfigKey.AUDIT_WEBHOOK_BATCH_MAX_WAIT),
            v.duration(ConfigKey.AUDIT_WEBHOOK_INITIAL_BACKOFF)));
  }

  /** @return {@code --cluster-secret-file}, read once here so that a short or unreadable secret fails naming the key */
  static Path clusterSecretFile(RawValues v) {
    Path p = v.file(ConfigKey.CLUSTER_SECRET_FILE);
    if (p != null) {
      try {
        io.mvproxy.node.cluster.ClusterSecret.read(p);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(ConfigKey.CLUSTER_SECRET_FILE, e.getMessage());
      }
    }
    return p;
  }

  /** @return {@code --http2-max-streams-per-connection}, 0 meaning 100 (kube-apiserver's default); above 2^31-1 fails */
  static int http2MaxStreams(RawValues v) {
    int n = v.integer(ConfigKey.HTTP2_MAX_STREAMS_PER_CONNECTION);
    return n == 0 ? NodeConfig.ServingLimits.DEFAULT_HTTP2_MAX_STREAMS : n;
  }

  /**
   * @return {@code --goaway-chance}: a number between 0 and 0.02 (kube-apiserver's {@code server_run_options.go}:
   *     "--goaway-chance can not be less than 0 or greater than 0.02"); anything else fails naming the key
   */
  static double goawayChance(RawValues v) {
    Object o = v.raw(ConfigKey.GOAWAY_CHANCE);
    double d;
    try {
      d = o instanceof Number n ? n.doubleValue() : Double.parseDouble(String.valueOf(o).trim());
    } catch (NumberFormatException e) {
      throw new ConfigException(ConfigKey.GOAWAY_CHANCE, "\"" + o + "\" is not a number");
    }
    if (!(d >= 0 && d <= 0.02)) {
      throw new ConfigException(ConfigKey.GOAWAY_CHANCE, "can not be less than 0 or greater than 0.02, got " + o);
    }
    return d;
  }

  /** @return {@code --ingress-instances}, 0 meaning one per CPU core; negative or above 256 fails naming the key */
  static int ingressInstances(RawValues v) {
    int n = v.integer(ConfigKey.INGRESS_INSTANCES);
    if (n < 0 || n > 256) {
      throw new ConfigException(ConfigKey.INGRESS_INSTANCES, "must be between 0 (one per CPU core) and 256, got " + n);
    }
    return n == 0 ? NodeConfig.ServingLimits.defaultIngressInstances() : n;
  }

  /**
   * Validates the controller manager's keys as kube-controller-manager and client-go's {@code NewLeaderElector} do
   * ({@code leaseDuration must be greater than renewDeadline}, {@code renewDeadline must be greater than
   * retryPeriod*JitterFactor}).
   */
  static NodeConfig.Controllers controllers(RawValues v, boolean gate, Path proxyCert) {
    java.util.Set<String> enabled;
    try {
      enabled = io.mvproxy.controllers.ControllerSelection.enabled(v.list(ConfigKey.CONTROLLERS));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(ConfigKey.CONTROLLERS, e.getMessage());
    }
    boolean elect = Boolean.parseBoolean(v.oneOf(ConfigKey.LEADER_ELECT, "true", "false"));
    Duration lease = v.duration(ConfigKey.LEADER_ELECT_LEASE_DURATION);
    Duration renew = v.duration(ConfigKey.LEADER_ELECT_RENEW_DEADLINE);
    Duration retry = v.duration(ConfigKey.LEADER_ELECT_RETRY_PERIOD);
    if (lease.compareTo(renew) <= 0) {
      throw new ConfigException(ConfigKey.LEADER_ELECT_RENEW_DEADLINE, "leaseDuration must be greater than "
          + "renewDeadline");
    }
    if (renew.toNanos() <= retry.toNanos() * 1.2) {
      throw new ConfigException(ConfigKey.LEADER_ELECT_RETRY_PERIOD, "renewDeadline must be greater than "
          + "retryPeriod*JitterFactor");
    }
    Path ca = v.file(ConfigKey.CONTROLLERS_SERVER_CA_FILE);
    if (ca != null && gate) {
      throw new ConfigException(ConfigKey.CONTROLLERS_SERVER_CA_FILE, "only with " + ConfigLoader.GATE
          + "=false (with the proxy every node answers for the whole fleet)");
    }
    if (ca != null && proxyCert == null) {
      throw new ConfigException(ConfigKey.PROXY_CLIENT_CERT_FILE, "required when "
          + ConfigKey.CONTROLLERS_SERVER_CA_FILE.flag() + " is set");
    }
    return new NodeConfig.Controllers(enabled, elect, lease, renew, retry, ca);
  }

  /** The {@code --service-account-*} keys; the keys themselves are read (and checked) when the node starts. */
  static NodeConfig.ServiceAccounts serviceAccounts(RawValues v) {
    Path signing = v.file(ConfigKey.SERVICE_ACCOUNT_SIGNING_KEY_FILE);
    List<String> issuers = v.list(ConfigKey.SERVICE_ACCOUNT_ISSUER);
    if (signing != null && issuers.isEmpty()) {
      throw new ConfigException(ConfigKey.SERVICE_ACCOUNT_ISSUER, "required with "
          + ConfigKey.SERVICE_ACCOUNT_SIGNING_KEY_FILE.flag() + " (--service-account-signing-key-file and "
          + "--service-account-issuer are required flags)");
    }
    String jwks = v.string(ConfigKey.SERVICE_ACCOUNT_JWKS_URI);
    if (jwks != null && !jwks.isEmpty()) {
      // kube-apiserver's ServiceAccountAuthenticationOptions.Validate texts
      if (issuers.isEmpty()) {
        throw new ConfigException(ConfigKey.SERVICE_ACCOUNT_JWKS_URI, "service-account-jwks-uri requires "
            + "service-account-issuer");
      }
      java.net.URI u;
      try {
        u = new java.net.URI(jwks);
      } catch (java.net.URISyntaxException e) {
        throw new ConfigException(ConfigKey.SERVICE_ACCOUNT_JWKS_URI, "service-account-jwks-uri must be a valid URL: "
            + e.getMessage());
      }
      if (!"https".equals(u.getScheme())) {
        throw new ConfigException(ConfigKey.SERVICE_ACCOUNT_JWKS_URI, "service-account-jwks-uri requires https "
            + "scheme, parsed as: " + jwks);
      }
    }
    return new NodeConfig.ServiceAccounts(issuers, signing, v.file(ConfigKey.SERVICE_ACCOUNT_KEY_FILE),
        v.list(ConfigKey.API_AUDIENCES), v.durationOrZero(ConfigKey.SERVICE_ACCOUNT_MAX_TOKEN_EXPIRATION),
        jwks == null || jwks.isEmpty() ? null : jwks);
  }

  /** @return {@code --authorization-mode} as given, checked by {@code AuthorizerChain.validate} */
  static List<String> authorizationModes(List<String> modes) {
    try {
      io.mvproxy.authorization.AuthorizerChain.validate(modes);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(ConfigKey.AUTHORIZATION_MODE, e.getMessage());
    }
    return modes;
  }

  /** Validates the storage keys as kube-apiserver's {@code options/etcd.go} does. */
  static StorageConfig storage(RawValues v) {
    String backend = v.oneOf(ConfigKey.STORAGE_BACKEND, StorageConfig.ETCD3, StorageConfig.MEMORY);
    List<String> servers = v.list(ConfigKey.ETCD_SERVERS);
    for (String s : servers) {
      if (!s.matches("(http|https|unix|unixs)://[^/\\s]+/?")) {
        throw new ConfigException(ConfigKey.ETCD_SERVERS, "\"" + s + "\" is not a scheme://host:port URL");
      }
    }
    if (StorageConfig.ETCD3.equals(backend) && servers.isEmpty()) {
      throw new ConfigException(ConfigKey.ETCD_SERVERS, "must be specified with " + ConfigKey.STORAGE_BACKEND.flag()
          + "=etcd3");
    }
    String prefix = v.string(ConfigKey.ETCD_PREFIX);
    if (!prefix.startsWith("/") || prefix.length() > 1 && prefix.endsWith("/") || prefix.contains("//")
        || prefix.contains("/../") || prefix.endsWith("/..")) {
      throw new ConfigException(ConfigKey.ETCD_PREFIX, "\"" + prefix + "\" must be an absolute, clean key prefix "
          + "such as /registry");
    }
    Path ca = v.file(ConfigKey.ETCD_CAFILE);
    Path cert = v.file(ConfigKey.ETCD_CERTFILE);
    Path key = v.file(ConfigKey.ETCD_KEYFILE);
    if ((cert == null) != (key == null)) {
      throw new ConfigException(cert == null ? ConfigKey.ETCD_CERTFILE : ConfigKey.ETCD_KEYFILE,
          "must be set together with its pair");
    }
    Duration compaction = v.durationOrZero(ConfigKey.ETCD_COMPACTION_INTERVAL);
    Duration health = v.duration(ConfigKey.ETCD_HEALTHCHECK_TIMEOUT);
    Duration ready = v.duration(ConfigKey.ETCD_READYCHECK_TIMEOUT);
    // kube-apiserver runs storage calls under the request's context, bounded by --request-timeout
    StorageConfig out = new StorageConfig(backend, servers, prefix, ca, cert, key, compaction, health, ready,
        v.duration(ConfigKey.REQUEST_TIMEOUT), StorageConfig.DEFAULT_WATCH_CACHE_SIZE);
    Path enc = v.file(ConfigKey.ENCRYPTION_PROVIDER_CONFIG);
    if (enc != null) {
      try {
        out = out.withEncryption(enc, io.mvproxy.storage.encryption.EncryptionConfig.load(enc));
      } catch (IllegalArgumentException e) {
        throw new ConfigException(ConfigKey.ENCRYPTION_PROVIDER_CONFIG, e.getMessage());
      }
    }
    return out;
  }

  /**
   * The feature gates mvproxy knows (kube-apiserver's {@code --feature-gates} names), each on by default as upstream.
   *
   * @param proxy                  {@value ConfigLoader#GATE} (KEP-4020)
   * @param apiResponseCompression {@code APIResponseCompression}: large answers gzip-compressed for clients that
   *                               accept it (kube-apiserver's beta, on since 1.16)
   */
  record FeatureGates(boolean proxy, boolean apiResponseCompression) {
  }

  /** The gate of large answers' compression ({@link io.mvproxy.api.ResponseCompression}). */
  static final String COMPRESSION_GATE = "APIResponseCompression";

  /**
   * @return the gates from {@code --feature-gates} (JSON object or key=bool list), the unnamed ones at their defaults
   * @throws ConfigException naming {@code featureGates} on an unknown gate or a value other than true/false
   */
  static FeatureGates gates(Object raw) {
    java.util.Map<String, Boolean> on = new java.util.HashMap<>();
    if (raw instanceof JsonObject o) {
      for (String k : o.fieldNames()) {
        on.put(k, gate(k, String.valueOf(o.getValue(k))));
      }
    } else {
      for (String pair : String.valueOf(raw).split(",")) {
        if (pair.isBlank()) {
          continue;
        }
        int eq = pair.indexOf('=');
        if (eq < 0) {
          throw new ConfigException(ConfigKey.FEATURE_GATES, "\"" + pair.trim() + "\" is not key=bool");
        }
        on.put(pair.substring(0, eq).trim(), gate(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim()));
      }
    }
    return new FeatureGates(on.getOrDefault(ConfigLoader.GATE, true), on.getOrDefault(COMPRESSION_GATE, true));
  }

  /** @return one gate's value; fails on an unknown gate or a value other than true/false */
  static boolean gate(String name, String value) {
    if (!ConfigLoader.GATE.equals(name) && !COMPRESSION_GATE.equals(name)) {
      throw new ConfigException(ConfigKey.FEATURE_GATES, "unrecognized feature gate: " + name);
    }
    if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
      throw new ConfigException(ConfigKey.FEATURE_GATES, "invalid value of " + name + ": " + value);
    }
    return Boolean.parseBoolean(value.toLowerCase());
  }
}
