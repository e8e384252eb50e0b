package io.mvproxy.node.config;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import io.mvproxy.storage.StorageConfig;

/**
 * Reads a node's JSON config file, applies {@code --flag=value} overrides (flags win), fills defaults and
 * validates every key. Keys are the camelCase forms of kube-apiserver flags ({@link ConfigKey}).
 */
public final class ConfigLoader {
  /** The only feature gate mvproxy knows (KEP-4020). */
  public static final String GATE = "UnknownVersionInteroperabilityProxy";

  private final Path baseDir;

  /** @param baseDir folder relative paths in the config are resolved against (the config file's folder) */
  public ConfigLoader(Path baseDir) {
    this.baseDir = baseDir;
  }

  /**
   * Loads a config.
   *
   * @param configFile the JSON file, or null for flags only
   * @param flags      {@code --flag=value} or {@code --flag value} arguments
   * @return the validated config
   * @throws ConfigException naming the key on any unknown key, bad value or missing file
   */
  public static NodeConfig load(Path configFile, List<String> flags) {
    Map<ConfigKey, Object> raw = new LinkedHashMap<>();
    Path base = Path.of("").toAbsolutePath();
    if (configFile != null) {
      JsonObject json;
      try {
        String text = Files.readString(configFile);
        rejectDuplicateKeys(configFile, text);
        json = new JsonObject(text);
      } catch (IOException e) {
        throw new ConfigException("--config: cannot read " + configFile + ": " + e.getMessage());
      } catch (DecodeException e) {
        throw new ConfigException("--config: " + configFile + " is not a JSON object: " + e.getMessage());
      }
      for (String k : json.fieldNames()) {
        ConfigKey key = ConfigKey.find(k);
        if (key == null || !key.json().equals(k)) {
          throw new ConfigException("unknown key \"" + k + "\" in " + configFile);
        }
        raw.put(key, json.getValue(k));
      }
      base = configFile.toAbsolutePath().getParent();
    }
    for (int i = 0; i < flags.size(); i++) {
      String f = flags.get(i);
      String name = f;
      String value;
      int eq = f.indexOf('=');
      if (eq > 0) {
        name = f.substring(0, eq);
        value = f.substring(eq + 1);
      } else if (i + 1 < flags.size() && !flags.get(i + 1).startsWith("--")) {
        value = flags.get(++i);
      } else {
        throw new ConfigException(f + ": a value is required");
      }
      ConfigKey key = ConfigKey.find(name);
      if (key == null || !key.flag().equals(name)) {
        throw new ConfigException("unknown flag " + name);
      }
      raw.put(key, value);
    }
    return new ConfigLoader(base).build(raw);
  }

  /**
   * Validates raw values (strings, numbers, arrays, objects as found in JSON or flags).
   *
   * @param raw key to raw value; missing keys take their defaults
   * @return the config
   * @throws ConfigException naming the first bad key
   */
  public NodeConfig build(Map<ConfigKey, Object> raw) {
    Values v = new Values(raw);
    boolean gate = gates(v.raw(ConfigKey.FEATURE_GATES));
    int securePort = v.port(ConfigKey.SECURE_PORT);
    String bind = v.ip(ConfigKey.BIND_ADDRESS);
    String advertise = v.ip(ConfigKey.ADVERTISE_ADDRESS);
    if (advertise == null) {
      advertise = "0.0.0.0".equals(bind) || "::".equals(bind) ? "127.0.0.1" : bind;
    }
    String peerIp = v.ip(ConfigKey.PEER_ADVERTISE_IP);
    Integer peerPort = v.has(ConfigKey.PEER_ADVERTISE_PORT) ? v.port(ConfigKey.PEER_ADVERTISE_PORT) : null;
    Path peerCa = v.file(ConfigKey.PEER_CA_FILE);
    Path proxyCert = v.file(ConfigKey.PROXY_CLIENT_CERT_FILE);
    Path proxyKey = v.file(ConfigKey.PROXY_CLIENT_KEY_FILE);
    if (!gate) {
      for (ConfigKey k : List.of(ConfigKey.PEER_CA_FILE, ConfigKey.PEER_ADVERTISE_IP, ConfigKey.PEER_ADVERTISE_PORT)) {
        if (v.has(k)) {
          throw new ConfigException(k, "requires " + GATE + " feature to be turned on");
        }
      }
    }
    if (peerCa != null && (proxyCert == null || proxyKey == null)) {
      throw new ConfigException(proxyCert == null ? ConfigKey.PROXY_CLIENT_CERT_FILE : ConfigKey.PROXY_CLIENT_KEY_FILE,
          "required when " + ConfigKey.PEER_CA_FILE.flag() + " is set");
    }
    if ((proxyCert == null) != (proxyKey == null)) {
      throw new ConfigException(proxyCert == null ? ConfigKey.PROXY_CLIENT_CERT_FILE : ConfigKey.PROXY_CLIENT_KEY_FILE,
          "must be set together with its pair");
    }
    Path cert = v.file(ConfigKey.TLS_CERT_FILE);
    Path key = v.file(ConfigKey.TLS_PRIVATE_KEY_FILE);
    if (cert == null) {
      throw new ConfigException(ConfigKey.TLS_CERT_FILE, "required: mvproxy serves HTTPS only");
    }
    if (key == null) {
      throw new ConfigException(ConfigKey.TLS_PRIVATE_KEY_FILE, "required: mvproxy serves HTTPS only");
    }
    List<String> members = v.list(ConfigKey.CLUSTER_MEMBERS);
    for (String m : members) {
      int c = m.lastIndexOf(':');
      if (c <= 0 || !m.substring(c + 1).matches("\\d{1,5}") || Integer.parseInt(m.substring(c + 1)) > 65535) {
        throw new ConfigException(ConfigKey.CLUSTER_MEMBERS, "\"" + m + "\" is not host:port");
      }
    }
    String serverId = v.string(ConfigKey.SERVER_ID);
    if (serverId == null) {
      serverId = "mvproxy-" + hostName() + "-" + securePort;
    } else if (!serverId.matches("[A-Za-z0-9]([-A-Za-z0-9_.]{0,251}[A-Za-z0-9])?")) {
      throw new ConfigException(ConfigKey.SERVER_ID, "\"" + serverId + "\" must be 1-253 letters, digits, '-', '_' or '.'");
    }
    return new NodeConfig(serverId, bind, securePort, advertise, peerIp, peerPort, cert, key,
        v.file(ConfigKey.CLIENT_CA_FILE), v.file(ConfigKey.TOKEN_AUTH_FILE), peerCa, proxyCert, proxyKey,
        v.file(ConfigKey.REQUESTHEADER_CLIENT_CA_FILE), v.list(ConfigKey.REQUESTHEADER_ALLOWED_NAMES), gate,
        v.dir(ConfigKey.PLUGIN_DIR), v.string(ConfigKey.CLUSTER_NAME), v.ip(ConfigKey.CLUSTER_HOST),
        v.port(ConfigKey.CLUSTER_PORT), members, clusterSecretFile(v), Duration.ofSeconds(v.integer(ConfigKey.SHUTDOWN_GRACE_PERIOD_SECONDS)),
        v.map(ConfigKey.SERVICE_RESOLUTION), v.oneOf(ConfigKey.LOGGING_FORMAT, "text", "json"),
        authorizationModes(v.list(ConfigKey.AUTHORIZATION_MODE)),
        new NodeConfig.ServingLimits(v.duration(ConfigKey.REQUEST_TIMEOUT), v.integer(ConfigKey.MAX_REQUESTS_INFLIGHT),
            v.integer(ConfigKey.MAX_MUTATING_REQUESTS_INFLIGHT), ingressInstances(v),
            v.oneOf(ConfigKey.TLS_ENGINE, "jdk", "openssl"), http2MaxStreams(v), goawayChance(v),
            Boolean.parseBoolean(v.oneOf(ConfigKey.PEER_HTTP2, "true", "false"))), storage(v),
        Duration.ofSeconds(v.integer(ConfigKey.MEMBER_WAIT_SECONDS)), controllers(v, gate, proxyCert),
        serviceAccounts(v), audit(v), identityLease(v));
  }

  /**
   * The {@code --identity-lease-*} keys, validated as kube-apiserver's {@code options/validation.go} (both positive,
   * with its texts).
   */
  private static NodeConfig.IdentityLease identityLease(Values v) {
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
  private NodeConfig.Audit audit(Values v) {
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
      path = baseDir.resolve(path).normalize().toString();
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
  private static Path clusterSecretFile(Values v) {
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
  private static int http2MaxStreams(Values v) {
    int n = v.integer(ConfigKey.HTTP2_MAX_STREAMS_PER_CONNECTION);
    return n == 0 ? NodeConfig.ServingLimits.DEFAULT_HTTP2_MAX_STREAMS : n;
  }

  /**
   * @return {@code --goaway-chance}: a number between 0 and 0.02 (kube-apiserver's {@code server_run_options.go}:
   *     "--goaway-chance can not be less than 0 or greater than 0.02"); anything else fails naming the key
   */
  private static double goawayChance(Values v) {
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
  private static int ingressInstances(Values v) {
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
  private static NodeConfig.Controllers controllers(Values v, boolean gate, Path proxyCert) {
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
      throw new ConfigException(ConfigKey.CONTROLLERS_SERVER_CA_FILE, "only with " + GATE + "=false (with the "
          + "proxy every node answers for the whole fleet)");
    }
    if (ca != null && proxyCert == null) {
      throw new ConfigException(ConfigKey.PROXY_CLIENT_CERT_FILE, "required when "
          + ConfigKey.CONTROLLERS_SERVER_CA_FILE.flag() + " is set");
    }
    return new NodeConfig.Controllers(enabled, elect, lease, renew, retry, ca);
  }

  /** The {@code --service-account-*} keys; the keys themselves are read (and checked) when the node starts. */
  private static NodeConfig.ServiceAccounts serviceAccounts(Values v) {
    Path signing = v.file(ConfigKey.SERVICE_ACCOUNT_SIGNING_KEY_FILE);
    List<String> issuers = v.list(ConfigKey.SERVICE_ACCOUNT_ISSUER);
    if (signing != null && issuers.isEmpty()) {
      throw new ConfigException(ConfigKey.SERVICE_ACCOUNT_ISSUER, "required with "
          + ConfigKey.SERVICE_ACCOUNT_SIGNING_KEY_FILE.flag() + " (--service-account-signing-key-file and "
          + "--service-account-issuer are required flags)");
    }
    return new NodeConfig.ServiceAccounts(issuers, signing, v.file(ConfigKey.SERVICE_ACCOUNT_KEY_FILE),
        v.list(ConfigKey.API_AUDIENCES), v.durationOrZero(ConfigKey.SERVICE_ACCOUNT_MAX_TOKEN_EXPIRATION));
  }

  private static List<String> authorizationModes(List<String> modes) {
    try {
      io.mvproxy.authorization.AuthorizerChain.validate(modes);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(ConfigKey.AUTHORIZATION_MODE, e.getMessage());
    }
    return modes;
  }

  /** Validates the storage keys as kube-apiserver's {@code options/etcd.go} does. */
  private StorageConfig storage(Values v) {
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

  private static boolean gates(Object raw) {
    boolean on = true;
    if (raw instanceof JsonObject o) {
      for (String k : o.fieldNames()) {
        on = gate(k, String.valueOf(o.getValue(k)), on);
      }
      return on;
    }
    for (String pair : String.valueOf(raw).split(",")) {
      if (pair.isBlank()) {
        continue;
      }
      int eq = pair.indexOf('=');
      if (eq < 0) {
        throw new ConfigException(ConfigKey.FEATURE_GATES, "\"" + pair.trim() + "\" is not key=bool");
      }
      on = gate(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim(), on);
    }
    return on;
  }

  private static boolean gate(String name, String value, boolean current) {
    if (!GATE.equals(name)) {
      throw new ConfigException(ConfigKey.FEATURE_GATES, "unrecognized feature gate: " + name);
    }
    if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
      throw new ConfigException(ConfigKey.FEATURE_GATES, "invalid value of " + name + ": " + value);
    }
    return Boolean.parseBoolean(value.toLowerCase());
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName().toLowerCase().replaceAll("[^a-z0-9.-]", "-");
    } catch (IOException e) {
      return "localhost";
    }
  }

  /** Typed access to raw values with defaults; every failure names the key. */
  private final class Values {
    private final Map<ConfigKey, Object> raw;

    Values(Map<ConfigKey, Object> raw) {
      this.raw = raw;
    }

    boolean has(ConfigKey k) {
      Object o = raw.get(k);
      return o != null && !(o instanceof String s && s.isEmpty());
    }

    Object raw(ConfigKey k) {
      return has(k) ? raw.get(k) : k.defaultValue();
    }

    String string(ConfigKey k) {
      Object o = raw(k);
      if (o == null) {
        return null;
      }
      if (!(o instanceof String)) {
        throw new ConfigException(k, "must be a string");
      }
      return (String) o;
    }

    int integer(ConfigKey k) {
      Object o = raw(k);
      try {
        int i = o instanceof Number n ? n.intValue() : Integer.parseInt(String.valueOf(o).trim());
        if (i < 0) {
          throw new ConfigException(k, "must not be negative");
        }
        return i;
      } catch (NumberFormatException e) {
        throw new ConfigException(k, "\"" + o + "\" is not an integer");
      }
    }

    Duration duration(ConfigKey k) {
      Object o = raw(k);
      Duration d;
      if (o instanceof Number n) {
        d = Duration.ofMillis(Math.round(n.doubleValue() * 1000));
      } else {
        d = GoDuration.parse(String.valueOf(o).trim());
        if (d == null) {
          throw new ConfigException(k, "\"" + o + "\" is not a duration (e.g. 60s, 1m0s, 500ms)");
        }
      }
      if (d.isNegative() || d.isZero()) {
        throw new ConfigException(k, "must be positive");
      }
      return d;
    }

    int port(ConfigKey k) {
      int p = integer(k);
      if (p > 65535) {
        throw new ConfigException(k, p + " is not a port (0-65535)");
      }
      return p;
    }

    String ip(ConfigKey k) {
      String s = string(k);
      if (s == null) {
        return null;
      }
      if (!s.matches("[0-9.]+|[0-9a-fA-F:]*:[0-9a-fA-F:.]*")) {
        throw new ConfigException(k, "\"" + s + "\" is not an IP address");
      }
      try {
        InetAddress.getByName(s);
      } catch (IOException e) {
        throw new ConfigException(k, "\"" + s + "\" is not an IP address");
      }
      return s;
    }

    Path file(ConfigKey k) {
      String s = string(k);
      if (s == null) {
        return null;
      }
      Path p = baseDir.resolve(s).normalize();
      if (!Files.isRegularFile(p) || !Files.isReadable(p)) {
        throw new ConfigException(k, "file not found or not readable: " + p);
      }
      return p;
    }

    Path dir(ConfigKey k) {
      String s = string(k);
      Path p = baseDir.resolve(s).normalize();
      if (Files.exists(p) && !Files.isDirectory(p)) {
        throw new ConfigException(k, "not a directory: " + p);
      }
      return p;
    }

    /** A Go duration where {@code 0} means "off" (e.g. {@code --etcd-compaction-interval}). */
    Duration durationOrZero(ConfigKey k) {
      Object o = raw(k);
      if (o instanceof Number n && n.doubleValue() == 0 || "0".equals(String.valueOf(o).trim())) {
        return Duration.ZERO;
      }
      return duration(k);
    }

    String oneOf(ConfigKey k, String... allowed) {
      String s = string(k);
      for (String a : allowed) {
        if (a.equals(s)) {
          return s;
        }
      }
      throw new ConfigException(k, "\"" + s + "\" is not one of " + String.join(", ", allowed));
    }

    Map<String, String> map(ConfigKey k) {
      Object o = raw(k);
      Map<String, String> out = new LinkedHashMap<>();
      if (o instanceof JsonObject j) {
        j.forEach(e -> out.put(e.getKey(), String.valueOf(e.getValue())));
      } else if (o != null) {
        for (String pair : String.valueOf(o).split(",")) {
          if (pair.isBlank()) {
            continue;
          }
          int eq = pair.indexOf('=');
          if (eq <= 0) {
            throw new ConfigException(k, "\"" + pair.trim() + "\" is not key=value");
          }
          out.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
      }
      for (Map.Entry<String, String> e : out.entrySet()) {
        if (!e.getKey().matches("[a-z0-9.-]+/[a-z0-9.-]+:\\d{1,5}")) {
          throw new ConfigException(k, "\"" + e.getKey() + "\" is not namespace/name:port");
        }
        if (!e.getValue().matches("https?://[^/]+/?")) {
          throw new ConfigException(k, "\"" + e.getValue() + "\" is not an http(s)://host:port URL");
        }
      }
      return out;
    }

    List<String> list(ConfigKey k) {
      Object o = raw(k);
      List<String> out = new ArrayList<>();
      if (o instanceof JsonArray a) {
        for (Object e : a) {
          out.add(String.valueOf(e).trim());
        }
      } else if (o != null) {
        for (String s : String.valueOf(o).split(",")) {
          if (!s.isBlank()) {
            out.add(s.trim());
          }
        }
      }
      return List.copyOf(out);
    }
  }

  /** Fails naming the key when the config file sets one key twice (a JSON object would silently keep the last). */
  private static void rejectDuplicateKeys(Path configFile, String text) {
    com.fasterxml.jackson.core.JsonFactory f = com.fasterxml.jackson.core.JsonFactory.builder()
        .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
    try (com.fasterxml.jackson.core.JsonParser p = f.createParser(text)) {
      while (p.nextToken() != null) {
        // reading is the check
      }
    } catch (com.fasterxml.jackson.core.JsonParseException e) {
      if (e.getOriginalMessage().startsWith("Duplicate field")) {
        throw new ConfigException("--config: " + configFile + ": " + e.getOriginalMessage()
            .replace("Duplicate field", "key set twice:"));
      }
      // other syntax errors are reported by the JSON object decoding that follows
    } catch (IOException e) {
      throw new ConfigException("--config: cannot read " + configFile + ": " + e.getMessage());
    }
  }
}
