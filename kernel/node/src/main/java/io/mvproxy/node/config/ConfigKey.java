package io.mvproxy.node.config;

/**
 * Every configuration key of a node: its JSON key (camelCase), the kube-apiserver style flag, its type, default
 * and meaning. This table drives flag parsing, validation, {@code serve --help} and the README reference.
 */
public enum ConfigKey {
  SERVER_ID("serverId", Type.STRING, null, "Stable identity of this node in the fleet (default: mvproxy-<host>-<securePort>)."),
  BIND_ADDRESS("bindAddress", Type.IP, "0.0.0.0", "IP address the HTTPS server listens on."),
  SECURE_PORT("securePort", Type.PORT, "6443", "HTTPS port (0 = any free port)."),
  ADVERTISE_ADDRESS("advertiseAddress", Type.IP, null, "IP advertised to peers when peer-advertise-ip/port are not both set (default: bind address, or 127.0.0.1 when binding all interfaces)."),
  PEER_ADVERTISE_IP("peerAdvertiseIp", Type.IP, null, "IP peers use to reach this node for proxied requests (needs peer-advertise-port)."),
  PEER_ADVERTISE_PORT("peerAdvertisePort", Type.PORT, null, "Port peers use to reach this node (needs peer-advertise-ip)."),
  TLS_CERT_FILE("tlsCertFile", Type.FILE, null, "PEM serving certificate (required)."),
  TLS_PRIVATE_KEY_FILE("tlsPrivateKeyFile", Type.FILE, null, "PEM private key of the serving certificate (required)."),
  CLIENT_CA_FILE("clientCaFile", Type.FILE, null, "CA bundle that verifies user client certificates (user = CN, groups = O)."),
  TOKEN_AUTH_FILE("tokenAuthFile", Type.FILE, null, "Static token file, CSV: token,user,uid,\"group1,group2\"."),
  SERVICE_ACCOUNT_ISSUER("serviceAccountIssuer", Type.LIST, "", "Issuer (iss) of service account tokens; the first is written into new tokens, every one is accepted. Required with the signing key; the same on every node of a fleet."),
  SERVICE_ACCOUNT_SIGNING_KEY_FILE("serviceAccountSigningKeyFile", Type.FILE, null, "PEM RSA or ECDSA private key signing service account tokens (TokenRequest, kubectl create token); give every node of a fleet the same key."),
  SERVICE_ACCOUNT_KEY_FILE("serviceAccountKeyFile", Type.FILE, null, "PEM public keys, certificates or private keys verifying service account tokens (several keys in one file for rotation; default: the signing key's public key)."),
  SERVICE_ACCOUNT_MAX_TOKEN_EXPIRATION("serviceAccountMaxTokenExpiration", Type.DURATION, "0", "Longest validity of an issued service account token: longer requests are shortened with a warning; between 1h and 2^32 s, 0 = no limit."),
  SERVICE_ACCOUNT_JWKS_URI("serviceAccountJwksUri", Type.STRING, null, "https URL written as jwks_uri into the service account issuer discovery document (/.well-known/openid-configuration; default: https://<advertise address>:<secure port>/openid/v1/jwks)."),
  API_AUDIENCES("apiAudiences", Type.LIST, "", "Audiences a service account token must carry one of to authenticate here, and the default audiences of a TokenRequest (default: the service account issuers)."),
  PEER_CA_FILE("peerCaFile", Type.FILE, null, "CA bundle that verifies peers' serving certificates; without it the node neither proxies nor aggregates peers."),
  PROXY_CLIENT_CERT_FILE("proxyClientCertFile", Type.FILE, null, "Client certificate this node presents on peer hops (required with peer-ca-file)."),
  PROXY_CLIENT_KEY_FILE("proxyClientKeyFile", Type.FILE, null, "Private key of proxy-client-cert-file (required with peer-ca-file)."),
  REQUESTHEADER_CLIENT_CA_FILE("requestheaderClientCaFile", Type.FILE, null, "CA bundle that verifies peer-hop client certificates; X-Remote-* headers are believed only from them."),
  REQUESTHEADER_ALLOWED_NAMES("requestheaderAllowedNames", Type.LIST, "", "Common names allowed on peer-hop client certificates (empty = any certificate of that CA)."),
  AUTHORIZATION_MODE("authorizationMode", Type.LIST, "RBAC", "Ordered list of authorization modes: RBAC, AlwaysAllow (development only), AlwaysDeny; system:masters is always allowed."),
  FEATURE_GATES("featureGates", Type.GATES, "UnknownVersionInteroperabilityProxy=true", "Feature gates, key=bool pairs: UnknownVersionInteroperabilityProxy (the peer proxy) and APIResponseCompression (answers over 128 KiB gzip-compressed for clients that accept gzip), both on by default."),
  PLUGIN_DIR("pluginDir", Type.DIR, "plugins", "Folder of plugin jars loaded at start-up."),
  CLUSTER_NAME("clusterName", Type.STRING, "mvproxy", "Hazelcast cluster name; nodes with the same name form one fleet."),
  CLUSTER_HOST("clusterHost", Type.IP, "127.0.0.1", "Interface the Hazelcast member and the event bus (mutual TLS) bind to; Hazelcast there is unauthenticated: reachable by fleet members only."),
  CLUSTER_PORT("clusterPort", Type.PORT, "5701", "Hazelcast member port (the next free port is taken when busy); firewall it to fleet members: whoever reaches it joins the cluster."),
  CLUSTER_MEMBERS("clusterMembers", Type.LIST, "", "Comma-separated host:port of members to join (default: clusterHost:5701-5703)."),
  CLUSTER_SECRET_FILE("clusterSecretFile", Type.FILE, null, "File holding the fleet's shared secret (at least 32 bytes; bin/mvproxy pki writes cluster-secret), the same on every node (several lines during a rotation: the first proves, any is accepted): a Hazelcast connection is then accepted only from a cluster-members address that proves it holds the secret (HMAC-SHA256 challenge/response). Without it the Hazelcast port is open to anyone who reaches it."),
  SERVICE_RESOLUTION("serviceResolution", Type.MAP, "", "Where APIService backends live: namespace/name:port=https://host:port pairs (JSON object or comma list)."),
  LOGGING_FORMAT("loggingFormat", Type.STRING, "text", "Log format: text or json (one JSON object per line), as kube-apiserver's --logging-format."),
  SHUTDOWN_GRACE_PERIOD_SECONDS("shutdownGracePeriodSeconds", Type.INT, "10", "Seconds in-flight requests may take to finish on shutdown."),
  EVENT_TTL("eventTtl", Type.DURATION, "1h0m0s", "How long an Event is kept after its last write, as kube-apiserver's --event-ttl (each node deletes the Events it saw written that long ago); 0 keeps Events until deleted; a Go duration (1h, 90m) or seconds."),
  REQUEST_TIMEOUT("requestTimeout", Type.DURATION, "1m0s", "Longest time a non-long-running request may take before it is answered 504 Timeout (watches exempt), as kube-apiserver's --request-timeout; also the deadline of every storage call; a Go duration (60s, 1m0s) or seconds."),
  MAX_REQUESTS_INFLIGHT("maxRequestsInflight", Type.INT, "400", "Most non-mutating requests (get, list) in flight at once; beyond it 429 with Retry-After (watches not counted, system:masters exempt); 0 = no limit. As kube-apiserver's --max-requests-inflight."),
  MAX_MUTATING_REQUESTS_INFLIGHT("maxMutatingRequestsInflight", Type.INT, "200", "Most mutating requests in flight at once; beyond it 429 with Retry-After; 0 = no limit. As kube-apiserver's --max-mutating-requests-inflight."),
  INGRESS_INSTANCES("ingressInstances", Type.INT, "0", "HTTPS ingress instances, one per event loop, each with its own peer clients (0 = one per CPU core, as Vert.x event loops)."),
  TLS_ENGINE("tlsEngine", Type.STRING, "auto", "TLS implementation of the HTTPS server and the peer-hop client: auto (openssl where it loads, else jdk; the start-up log names the one chosen), jdk (the JDK's JSSE) or openssl (BoringSSL through netty-tcnative, shipped for linux-x86_64; fails at start-up where it cannot load). Measured side by side (bench/compare), openssl accepts 2.3x the new TLS connections per second of jdk and takes about a third off the peer hop's CPU per request. Session resumption (session cache, TLS 1.3 tickets) either way."),
  HTTP2_MAX_STREAMS_PER_CONNECTION("http2MaxStreamsPerConnection", Type.INT, "0", "Most concurrent HTTP/2 streams a client may open on one connection (SETTINGS_MAX_CONCURRENT_STREAMS); 0 = 100, as kube-apiserver's --http2-max-streams-per-connection."),
  PEER_HTTP2("peerHttp2", Type.BOOL, "false", "Whether the peer hop offers HTTP/2 through ALPN (h2, falling back to http/1.1 per peer that does not offer it), as kube-apiserver's peer proxy does through Go's transport: short requests multiplexed on a few connections per peer (another one opened when a connection's stream limit is reached), watches on their own connections, PING health checks every 30 s (15 s to answer). false: HTTP/1.1 keep-alive pools."),
  NATIVE_TRANSPORT("nativeTransport", Type.BOOL, "false", "true: Vert.x on Netty's native epoll transport where it loads (linux-x86_64; elsewhere the node logs that it runs on NIO and goes on), for every socket of the node (ingress, peer hop, event bus). false: Java NIO. Opt-in: measured side by side with bench/compare (NATIVE_TRANSPORT=true|false)."),
  GOAWAY_CHANCE("goawayChance", Type.STRING, "0", "Probability (0..0.02) that an HTTP/2 request which is not long-running is answered with a GOAWAY on its connection, so clients reconnect and spread over a fleet behind a load balancer; in-flight requests finish. As kube-apiserver's --goaway-chance."),
  STORAGE_BACKEND("storageBackend", Type.STRING, "memory", "Where objects live: etcd3 (a real etcd cluster, durable) or memory (the fleet's Hazelcast memory, volatile; the embedded default)."),
  ETCD_SERVERS("etcdServers", Type.LIST, "", "Comma-separated etcd client URLs (scheme://host:port); required with storage-backend=etcd3."),
  ETCD_PREFIX("etcdPrefix", Type.STRING, "/registry", "Prefix of every etcd key (objects at <prefix>/<group>/<plural>/<namespace>/<name>)."),
  ETCD_CAFILE("etcdCafile", Type.FILE, null, "CA bundle that verifies etcd's serving certificates (TLS to etcd)."),
  ETCD_CERTFILE("etcdCertfile", Type.FILE, null, "Client certificate presented to etcd (needs etcd-keyfile)."),
  ETCD_KEYFILE("etcdKeyfile", Type.FILE, null, "PKCS#8 PEM key of etcd-certfile."),
  ETCD_COMPACTION_INTERVAL("etcdCompactionInterval", Type.DURATION, "5m", "Interval of fleet-wide etcd compaction, coordinated through etcd's compact_rev_key (0 disables)."),
  ETCD_HEALTHCHECK_TIMEOUT("etcdHealthcheckTimeout", Type.DURATION, "2s", "Deadline of the etcd health probe behind /livez/etcd and /readyz/etcd."),
  ETCD_READYCHECK_TIMEOUT("etcdReadycheckTimeout", Type.DURATION, "2s", "Deadline of the etcd readiness probe behind /readyz/etcd-readiness."),
  ENCRYPTION_PROVIDER_CONFIG("encryptionProviderConfig", Type.FILE, null, "EncryptionConfiguration file (apiserver.config.k8s.io/v1, YAML or JSON): encryption at rest of the resources it names, on either storage backend; providers aesgcm, aescbc, secretbox, identity (kms is not supported); the first provider writes, all read. Give every node of a fleet the same file."),
  ENCRYPTION_PROVIDER_CONFIG_AUTOMATIC_RELOAD("encryptionProviderConfigAutomaticReload", Type.BOOL, "false", "Whether the encryption-provider-config file is read again every minute and a changed, valid one put in force without a restart, as kube-apiserver's flag of that name (an invalid one is logged and counted, the configuration in force stays); requires encryption-provider-config."),
  MEMBER_WAIT_SECONDS("memberWaitSeconds", Type.INT, "60", "Longest time (s) one awaited member (in cluster-members but not joined, joined but not yet published, or published but its discovery not fetched) holds 404 answers back: until then a resource no known node serves gets 503 + Retry-After."),
  CONTROLLERS("controllers", Type.LIST, "*", "Controllers the node's controller manager runs, as kube-controller-manager's --controllers: '*' every controller (namespace-controller, garbage-collector-controller, serviceaccount-controller), 'name' one, '-name' not that one (aliases namespace, garbagecollector, serviceaccount); empty: none, and no leader election."),
  LEADER_ELECT("leaderElect", Type.STRING, "true", "true: the controllers run only on the node holding the Lease kube-system/mvproxy-controller-manager; false: on every node, as kube-controller-manager's --leader-elect."),
  LEADER_ELECT_LEASE_DURATION("leaderElectLeaseDuration", Type.DURATION, "15s", "How long a candidate waits after the leader's last observed renewal before taking the Lease over (kube-controller-manager's --leader-elect-lease-duration)."),
  LEADER_ELECT_RENEW_DEADLINE("leaderElectRenewDeadline", Type.DURATION, "10s", "How long the leader keeps trying to renew before it stops leading; less than the lease duration (--leader-elect-renew-deadline)."),
  LEADER_ELECT_RETRY_PERIOD("leaderElectRetryPeriod", Type.DURATION, "2s", "Time between two attempts to acquire or renew the Lease; renew deadline > 1.2 x retry period (--leader-elect-retry-period)."),
  IDENTITY_LEASE_DURATION_SECONDS("identityLeaseDurationSeconds", Type.INT, "3600", "Duration (s) of this node's apiserver identity Lease in kube-system (label apiserver.kubernetes.io/identity=kube-apiserver), and the period of the identity lease garbage collector that deletes leases expired for that long; positive. As kube-apiserver's --identity-lease-duration-seconds."),
  IDENTITY_LEASE_RENEW_INTERVAL_SECONDS("identityLeaseRenewIntervalSeconds", Type.INT, "10", "Interval (s) at which this node renews its apiserver identity Lease; positive. As kube-apiserver's --identity-lease-renew-interval-seconds."),
  AUDIT_POLICY_FILE("auditPolicyFile", Type.FILE, null, "audit.k8s.io/v1 Policy (YAML or JSON) deciding which requests are audited at which level (None, Metadata, Request, RequestResponse); unset: no auditing. As kube-apiserver's --audit-policy-file."),
  AUDIT_LOG_PATH("auditLogPath", Type.STRING, null, "File the audit events are appended to, one audit.k8s.io/v1 Event per JSON line; '-' for stdout; unset: no log backend. As kube-apiserver's --audit-log-path."),
  AUDIT_LOG_MAXAGE("auditLogMaxage", Type.INT, "0", "Days rotated audit log files are kept (by the time in their name); 0 = forever."),
  AUDIT_LOG_MAXBACKUP("auditLogMaxbackup", Type.INT, "0", "Rotated audit log files kept; 0 = all."),
  AUDIT_LOG_MAXSIZE("auditLogMaxsize", Type.INT, "0", "Megabytes the audit log grows to before it is rotated (renamed <name>-<UTC time><ext>); 0 = 100."),
  AUDIT_LOG_BATCH_BUFFER_SIZE("auditLogBatchBufferSize", Type.INT, "10000", "Audit events queued for the log writer before new ones are dropped (counted in apiserver_audit_error_total{plugin=\"log\"}); requests never wait for the log."),
  AUDIT_WEBHOOK_CONFIG_FILE("auditWebhookConfigFile", Type.FILE, null, "kubeconfig of the audit webhook: events are POSTed in batches as audit.k8s.io/v1 EventList to its current context's cluster server (CA, client certificate or token from its user); unset: no webhook backend. As kube-apiserver's --audit-webhook-config-file (batch mode)."),
  AUDIT_WEBHOOK_INITIAL_BACKOFF("auditWebhookInitialBackoff", Type.DURATION, "10s", "Wait before retrying a failed audit webhook request (then x1.5, 5 attempts in all)."),
  AUDIT_WEBHOOK_BATCH_BUFFER_SIZE("auditWebhookBatchBufferSize", Type.INT, "10000", "Audit events queued for the webhook before new ones are dropped (counted in apiserver_audit_error_total{plugin=\"webhook\"})."),
  AUDIT_WEBHOOK_BATCH_MAX_SIZE("auditWebhookBatchMaxSize", Type.INT, "400", "Most audit events in one webhook request."),
  AUDIT_WEBHOOK_BATCH_MAX_WAIT("auditWebhookBatchMaxWait", Type.DURATION, "30s", "Longest time a batch waits for more events before it is sent to the webhook."),
  CONTROLLERS_SERVER_CA_FILE("controllersServerCaFile", Type.FILE, null, "With UnknownVersionInteroperabilityProxy=false only: CA bundle verifying the other nodes' serving certificates; the controllers then send each request to a node of the fleet at random (reached with proxy-client-cert-file, identity in X-Remote-* headers), as kube-controller-manager behind a load balancer in front of servers without the proxy. Unset: this node only.");

  /** Value types, each with its own validation. */
  public enum Type {
    /** Any non-empty string. */
    STRING,
    /** An IPv4 or IPv6 literal. */
    IP,
    /** 0..65535. */
    PORT,
    /** A non-negative integer. */
    INT,
    /** A readable file. */
    FILE,
    /** A directory (created when missing). */
    DIR,
    /** Comma-separated list or JSON array of strings. */
    LIST,
    /** Comma-separated key=value pairs or a JSON object of strings. */
    MAP,
    /** Comma-separated key=bool pairs or a JSON object of booleans. */
    GATES,
    /** A Go duration ({@code 90s}, {@code 1m0s}, {@code 500ms}) or a number of seconds; positive. */
    DURATION,
    /** A JSON boolean, or {@code true}/{@code false} (and Go's {@code strconv.ParseBool} spellings) as text. */
    BOOL
  }

  private final String json;
  private final Type type;
  private final String defaultValue;
  private final String help;

  ConfigKey(String json, Type type, String defaultValue, String help) {
    this.json = json;
    this.type = type;
    this.defaultValue = defaultValue;
    this.help = help;
  }

  /** @return the JSON key, e.g. {@code peerCaFile} */
  public String json() {
    return json;
  }

  /** @return the flag, e.g. {@code --peer-ca-file} */
  public String flag() {
    StringBuilder b = new StringBuilder("--");
    for (char c : json.toCharArray()) {
      if (Character.isUpperCase(c)) {
        b.append('-').append(Character.toLowerCase(c));
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  /** @return the value type */
  public Type type() {
    return type;
  }

  /** @return the default as a string, or null when there is none */
  public String defaultValue() {
    return defaultValue;
  }

  /** @return one-line description */
  public String help() {
    return help;
  }

  /** @return both spellings for error messages, e.g. {@code --peer-ca-file (peerCaFile)} */
  public String describe() {
    return flag() + " (" + json + ")";
  }

  /**
   * @param jsonOrFlag a JSON key or a flag name without value
   * @return the key, or null when unknown
   */
  public static ConfigKey find(String jsonOrFlag) {
    for (ConfigKey k : values()) {
      if (k.json.equals(jsonOrFlag) || k.flag().equals(jsonOrFlag)) {
        return k;
      }
    }
    return null;
  }
}
