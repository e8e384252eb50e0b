package io.mvproxy.node.config;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Reads a node's JSON config file, applies {@code --flag=value} overrides (flags win), fills defaults and
 * validates every key. Keys are the camelCase forms of kube-apiserver flags ({@link ConfigKey}). File loading and
 * flag parsing live in {@link ConfigSources}, typed parsing of one value in {@link RawValues}, the rules between
 * keys of one section in {@link ConfigRules}; this class assembles the {@link NodeConfig}.
 */
public final class ConfigLoader {
  /** The feature gate of the mixed version proxy (KEP-4020). */
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
    ConfigSources.Raw raw = ConfigSources.read(configFile, flags);
    return new ConfigLoader(raw.baseDir()).build(raw.values());
  }

  /**
   * Validates raw values (strings, numbers, arrays, objects as found in JSON or flags).
   *
   * @param raw key to raw value; missing keys take their defaults
   * @return the config
   * @throws ConfigException naming the first bad key
   */
  public NodeConfig build(Map<ConfigKey, Object> raw) {
    RawValues v = new RawValues(raw, baseDir);
    ConfigRules.FeatureGates gates = ConfigRules.gates(v.raw(ConfigKey.FEATURE_GATES));
    boolean gate = gates.proxy();
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
        v.port(ConfigKey.CLUSTER_PORT), members, ConfigRules.clusterSecretFile(v), Duration.ofSeconds(v.integer(ConfigKey.SHUTDOWN_GRACE_PERIOD_SECONDS)),
        v.map(ConfigKey.SERVICE_RESOLUTION), v.oneOf(ConfigKey.LOGGING_FORMAT, "text", "json"),
        ConfigRules.authorizationModes(v.list(ConfigKey.AUTHORIZATION_MODE)),
        new NodeConfig.ServingLimits(v.duration(ConfigKey.REQUEST_TIMEOUT), v.integer(ConfigKey.MAX_REQUESTS_INFLIGHT),
            v.integer(ConfigKey.MAX_MUTATING_REQUESTS_INFLIGHT), ConfigRules.ingressInstances(v),
            v.oneOf(ConfigKey.TLS_ENGINE, "auto", "jdk", "openssl"), ConfigRules.http2MaxStreams(v), ConfigRules.goawayChance(v),
            v.bool(ConfigKey.PEER_HTTP2),
            v.bool(ConfigKey.NATIVE_TRANSPORT),
            gates.apiResponseCompression()), ConfigRules.storage(v),
        Duration.ofSeconds(v.integer(ConfigKey.MEMBER_WAIT_SECONDS)), ConfigRules.controllers(v, gate, proxyCert),
        ConfigRules.serviceAccounts(v), ConfigRules.audit(v), ConfigRules.identityLease(v),
        v.durationOrZero(ConfigKey.EVENT_TTL), encryptionAutoReload(v));
  }

  /** @return {@code --encryption-provider-config-automatic-reload}, which needs {@code --encryption-provider-config} */
  private static boolean encryptionAutoReload(RawValues v) {
    boolean on = v.bool(ConfigKey.ENCRYPTION_PROVIDER_CONFIG_AUTOMATIC_RELOAD);
    if (on && !v.has(ConfigKey.ENCRYPTION_PROVIDER_CONFIG)) {
      throw new ConfigException(ConfigKey.ENCRYPTION_PROVIDER_CONFIG_AUTOMATIC_RELOAD,
          "--encryption-provider-config-automatic-reload must be set with --encryption-provider-config");
    }
    return on;
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName().toLowerCase().replaceAll("[^a-z0-9.-]", "-");
    } catch (IOException e) {
      return "localhost";
    }
  }
}
