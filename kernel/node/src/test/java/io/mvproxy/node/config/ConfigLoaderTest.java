package io.mvproxy.node.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.node.cli.Main;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

@Tag("unit")
class ConfigLoaderTest {
  @TempDir
  Path dir;
  Path file;

  @BeforeEach
  void minimalConfig() throws Exception {
    Files.writeString(dir.resolve("tls.crt"), "x");
    Files.writeString(dir.resolve("tls.key"), "x");
    Files.writeString(dir.resolve("ca.crt"), "x");
    file = dir.resolve("node.json");
    write(new JsonObject());
  }

  void write(JsonObject extra) throws Exception {
    JsonObject j = new JsonObject().put("tlsCertFile", "tls.crt").put("tlsPrivateKeyFile", "tls.key").mergeIn(extra);
    Files.writeString(file, j.encode());
  }

  String error(List<String> flags) {
    return assertThrows(ConfigException.class, () -> ConfigLoader.load(file, flags)).getMessage();
  }

  @Test
  void encryptionProviderConfigIsParsedAtLoadAndABadOneFailsNamingTheKey() throws Exception {
    Path enc = dir.resolve("enc.yaml");
    Files.writeString(enc, "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n"
        + "- resources: [secrets]\n  providers:\n  - aescbc: {keys: [{name: key1, secret: "
        + "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=}]}\n  - identity: {}\n");
    NodeConfig c = ConfigLoader.load(file, List.of("--encryption-provider-config=" + enc));
    assertEquals(enc, c.storage().encryptionFile());
    assertTrue(c.storage().encryption().transformerFor("", "secrets") != null);
    assertEquals(false, c.encryptionAutoReload());
    assertTrue(ConfigLoader.load(file, List.of("--encryption-provider-config=" + enc,
        "--encryption-provider-config-automatic-reload=true")).encryptionAutoReload());
    assertEquals("--encryption-provider-config-automatic-reload (encryptionProviderConfigAutomaticReload): "
        + "--encryption-provider-config-automatic-reload must be set with --encryption-provider-config",
        error(List.of("--encryption-provider-config-automatic-reload=true")));
    write(new JsonObject().put("encryptionProviderConfig", "enc.yaml"));
    assertEquals(dir.resolve("enc.yaml"), ConfigLoader.load(file, List.of()).storage().encryptionFile());
    Files.writeString(enc, "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n"
        + "- resources: [secrets]\n  providers:\n  - aesgcm: {keys: [{name: key1, secret: AAEC}]}\n");
    String m = error(List.of());
    assertTrue(m.startsWith("--encryption-provider-config (encryptionProviderConfig): error while parsing encryption"
        + " provider configuration file"), m);
    assertTrue(m.endsWith("resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: \"REDACTED\": secret is"
        + " not of the expected length, got 3, expected one of [16 24 32]"), m);
  }

  @Test
  void aKeySetTwiceFailsNamingIt() throws Exception {
    Files.writeString(file, "{\"tlsCertFile\":\"tls.crt\",\"tlsPrivateKeyFile\":\"tls.key\",\"securePort\":7443,"
        + "\"securePort\":7444}");
    String m = error(List.of());
    assertTrue(m.contains("key set twice: 'securePort'"), m);
  }

  @Test
  void defaultsAndRelativePaths() {
    NodeConfig c = ConfigLoader.load(file, List.of());
    assertEquals(6443, c.securePort());
    assertEquals("0.0.0.0", c.bindAddress());
    assertEquals("127.0.0.1", c.advertiseAddress());
    assertEquals(dir.resolve("tls.crt"), c.tlsCertFile());
    assertTrue(c.peerProxyEnabled());
    assertFalse(c.peersEnabled(), "no --peer-ca-file: local only");
    assertTrue(c.serverId().startsWith("mvproxy-"));
    assertEquals(List.of("RBAC"), c.authorizationModes());
    assertEquals(List.of("AlwaysAllow", "RBAC"),
        ConfigLoader.load(file, List.of("--authorization-mode=AlwaysAllow,RBAC")).authorizationModes());
  }

  @Test
  void clusterSecretFileIsCheckedAtLoad() throws Exception {
    assertNull(ConfigLoader.load(file, List.of()).clusterSecretFile(), "unset: fleet security off");
    Files.writeString(dir.resolve("cluster-secret"), "  " + "k".repeat(32) + "\n");
    write(new JsonObject().put("clusterSecretFile", "cluster-secret"));
    assertEquals(dir.resolve("cluster-secret"), ConfigLoader.load(file, List.of()).clusterSecretFile());
    Files.writeString(dir.resolve("short"), "k".repeat(31) + "\n");
    String m = error(List.of("--cluster-secret-file=" + dir.resolve("short")));
    assertTrue(m.contains("--cluster-secret-file") && m.contains("at least 32"), m);
    m = error(List.of("--cluster-secret-file=" + dir.resolve("missing")));
    assertTrue(m.contains("--cluster-secret-file") && m.contains("not found"), m);
  }

  @Test
  void flagsOverrideTheFileInBothSpellings() {
    NodeConfig c = ConfigLoader.load(file, List.of("--secure-port=7443", "--server-id", "n1",
        "--cluster-members=127.0.0.1:5701,127.0.0.1:5702", "--requestheader-allowed-names=a,b"));
    assertEquals(7443, c.securePort());
    assertEquals("n1", c.serverId());
    assertEquals(List.of("127.0.0.1:5701", "127.0.0.1:5702"), c.clusterMembers());
    assertEquals(List.of("a", "b"), c.requestheaderAllowedNames());
  }

  @Test
  void everyBadValueNamesItsKey() throws Exception {
    assertTrue(error(List.of("--secure-port=70000")).startsWith("--secure-port (securePort)"));
    assertTrue(error(List.of("--bind-address=not-an-ip")).startsWith("--bind-address (bindAddress)"));
    assertTrue(error(List.of("--client-ca-file=missing.crt")).startsWith("--client-ca-file (clientCaFile)"));
    assertTrue(error(List.of("--cluster-members=nohostport")).startsWith("--cluster-members (clusterMembers)"));
    assertTrue(error(List.of("--no-such-flag=1")).contains("unknown flag --no-such-flag"));
    assertTrue(error(List.of("--feature-gates=Foo=true")).contains("unrecognized feature gate: Foo"));
    assertEquals("--authorization-mode (authorizationMode): authorization-mode \"Rbac\" is not a valid mode (one of "
        + "AlwaysAllow,AlwaysDeny,ABAC,Webhook,RBAC,Node)", error(List.of("--authorization-mode=Rbac")));
    assertTrue(error(List.of("--authorization-mode=RBAC,Webhook")).contains("not supported by mvproxy"));
    write(new JsonObject().put("securePort", "abc"));
    assertTrue(error(List.of()).startsWith("--secure-port (securePort)"));
    write(new JsonObject().put("peerCAFile", "ca.crt"));
    assertTrue(error(List.of()).contains("unknown key \"peerCAFile\""));
    Files.writeString(file, "{not json");
    String bad = error(List.of());
    assertTrue(bad.contains("is not valid JSON: Unexpected character ('n'") && bad.endsWith("(line 1, column 2)")
        && !bad.contains("REDACTED"), bad);
    Files.writeString(file, "[1]");
    assertTrue(error(List.of()).contains("is not a JSON object (it starts with [)"));
    write(new JsonObject().put("requestheaderAllowedNames", 5));
    assertTrue(error(List.of()).startsWith("--requestheader-allowed-names (requestheaderAllowedNames): must be a JSON "
        + "array of strings or a comma-separated list"));
    String missing = assertThrows(ConfigException.class, () -> ConfigLoader.load(dir.resolve("nope.json"), List.of()))
        .getMessage();
    assertTrue(missing.endsWith("nope.json: no such file"), missing);
  }

  @Test
  void auditKeysAsKubeApiserver() throws Exception {
    NodeConfig.Audit none = ConfigLoader.load(file, List.of()).audit();
    assertFalse(none.enabled());
    assertEquals(10000, none.bufferSize());
    assertEquals(400, none.webhookBatch().maxBatchSize());
    assertEquals(java.time.Duration.ofSeconds(30), none.webhookBatch().maxWait());
    assertEquals(java.time.Duration.ofSeconds(10), none.webhookBatch().initialBackoff());
    Files.writeString(dir.resolve("policy.yaml"), "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n");
    NodeConfig.Audit a = ConfigLoader.load(file, List.of("--audit-policy-file=policy.yaml",
        "--audit-log-path=logs/audit.log", "--audit-log-maxsize=5", "--audit-log-maxbackup=3",
        "--audit-log-maxage=7")).audit();
    assertTrue(a.enabled());
    assertEquals(dir.resolve("logs/audit.log").toString(), a.logPath());
    assertEquals(List.of(5, 3, 7), List.of(a.maxSizeMb(), a.maxBackups(), a.maxAgeDays()));
    assertEquals("-", ConfigLoader.load(file, List.of("--audit-log-path=-")).audit().logPath());
    Files.writeString(dir.resolve("bad-policy.yaml"), "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: All\n");
    assertTrue(error(List.of("--audit-policy-file=bad-policy.yaml")).startsWith("--audit-policy-file (auditPolicyFile): "
        + "rules[0].level: Unsupported value: \"All\""), error(List.of("--audit-policy-file=bad-policy.yaml")));
    Files.writeString(dir.resolve("hook.yaml"), "clusters:\n- name: c\n  cluster: {server: \"nowhere\"}\n");
    assertTrue(error(List.of("--audit-webhook-config-file=hook.yaml")).startsWith(
        "--audit-webhook-config-file (auditWebhookConfigFile): "));
    assertTrue(error(List.of("--audit-log-batch-buffer-size=0")).startsWith(
        "--audit-log-batch-buffer-size (auditLogBatchBufferSize)"));
  }

  @Test
  void servingLimitsAsKubeApiserver() {
    NodeConfig d = ConfigLoader.load(file, List.of());
    assertEquals(NodeConfig.ServingLimits.DEFAULTS, d.serving());
    NodeConfig c = ConfigLoader.load(file, List.of("--request-timeout=1m30s", "--max-requests-inflight=10",
        "--max-mutating-requests-inflight=0"));
    assertEquals(java.time.Duration.ofSeconds(90), c.serving().requestTimeout());
    assertEquals(10, c.serving().maxRequestsInflight());
    assertEquals(0, c.serving().maxMutatingInflight());
    assertEquals(java.time.Duration.ofMillis(2500), ConfigLoader.load(file, List.of("--request-timeout=2.5"))
        .serving().requestTimeout());
    assertEquals("1m0s", GoDuration.format(java.time.Duration.ofMinutes(1)));
    assertTrue(error(List.of("--request-timeout=soon")).startsWith("--request-timeout (requestTimeout): \"soon\" is "
        + "not a duration"));
    assertTrue(error(List.of("--request-timeout=0s")).startsWith("--request-timeout (requestTimeout): must be positive"));
    assertTrue(error(List.of("--max-requests-inflight=-1")).startsWith("--max-requests-inflight (maxRequestsInflight)"));
  }

  @Test
  void eventTtlAsKubeApiserver() {
    assertEquals(java.time.Duration.ofHours(1), ConfigLoader.load(file, List.of()).eventTtl());
    assertEquals(java.time.Duration.ofMinutes(90), ConfigLoader.load(file, List.of("--event-ttl=1h30m")).eventTtl());
    assertEquals(java.time.Duration.ZERO, ConfigLoader.load(file, List.of("--event-ttl=0")).eventTtl());
    assertEquals("--event-ttl (eventTtl): must not be negative", error(List.of("--event-ttl=-1s")));
    assertEquals(java.time.Duration.ZERO, ConfigLoader.load(file, List.of("--event-ttl=0s")).eventTtl());
    assertEquals("--request-timeout (requestTimeout): must be positive", error(List.of("--request-timeout=-1m")));
    assertTrue(error(List.of("--event-ttl=soon")).startsWith("--event-ttl (eventTtl)"));
  }

  @Test
  void apiResponseCompressionIsAFeatureGateOnByDefault() {
    assertTrue(ConfigLoader.load(file, List.of()).serving().responseCompression());
    NodeConfig off = ConfigLoader.load(file, List.of("--feature-gates=APIResponseCompression=false"));
    assertEquals(false, off.serving().responseCompression());
    assertTrue(off.peerProxyEnabled(), "naming one gate leaves the other at its default");
    NodeConfig both = ConfigLoader.load(file, List.of(
        "--feature-gates=UnknownVersionInteroperabilityProxy=false,APIResponseCompression=true"));
    assertEquals(false, both.peerProxyEnabled());
    assertTrue(both.serving().responseCompression());
    assertTrue(error(List.of("--feature-gates=APIResponseCompression=maybe"))
        .contains("invalid value of APIResponseCompression: maybe"));
  }

  @Test
  void identityLeaseKeysAsKubeApiserver() {
    NodeConfig d = ConfigLoader.load(file, List.of());
    assertEquals(new NodeConfig.IdentityLease(3600, 10), d.identityLease());
    NodeConfig c = ConfigLoader.load(file, List.of("--identity-lease-duration-seconds=20",
        "--identity-lease-renew-interval-seconds=2"));
    assertEquals(new NodeConfig.IdentityLease(20, 2), c.identityLease());
    assertEquals("--identity-lease-duration-seconds (identityLeaseDurationSeconds): --identity-lease-duration-seconds "
        + "should be a positive number, but value '0' provided",
        error(List.of("--identity-lease-duration-seconds=0")));
    assertEquals("--identity-lease-renew-interval-seconds (identityLeaseRenewIntervalSeconds): --identity-lease-renew-"
        + "interval-seconds should be a positive number, but value '0' provided",
        error(List.of("--identity-lease-renew-interval-seconds=0")));
    assertTrue(error(List.of("--identity-lease-renew-interval-seconds=-1"))
        .startsWith("--identity-lease-renew-interval-seconds (identityLeaseRenewIntervalSeconds)"));
  }

  @Test
  void tlsEngineAndHttp2Keys() throws Exception {
    NodeConfig d = ConfigLoader.load(file, List.of());
    assertEquals("auto", d.serving().tlsEngine());
    assertEquals(100, d.serving().http2MaxStreams(), "0 means 100, as kube-apiserver");
    assertEquals(0.0, d.serving().goawayChance());
    NodeConfig c = ConfigLoader.load(file, List.of("--tls-engine=openssl", "--http2-max-streams-per-connection=1000",
        "--goaway-chance=0.02"));
    assertEquals("openssl", c.serving().tlsEngine());
    assertEquals(1000, c.serving().http2MaxStreams());
    assertEquals(0.02, c.serving().goawayChance());
    assertTrue(error(List.of("--tls-engine=boringssl")).startsWith("--tls-engine (tlsEngine)"));
    assertEquals("jdk", ConfigLoader.load(file, List.of("--tls-engine=jdk")).serving().tlsEngine());
    assertFalse(d.serving().nativeTransport(), "Java NIO unless asked");
    assertTrue(ConfigLoader.load(file, List.of("--native-transport=true")).serving().nativeTransport());
    assertTrue(error(List.of("--native-transport=yes")).startsWith("--native-transport (nativeTransport)"));
    write(new JsonObject().put("nativeTransport", true).put("peerHttp2", "1"));
    NodeConfig booleans = ConfigLoader.load(file, List.of());
    assertTrue(booleans.serving().nativeTransport(), "a JSON boolean is taken");
    assertTrue(booleans.serving().peerHttp2(), "Go's ParseBool spellings are taken");
    assertTrue(error(List.of("--goaway-chance=0.03")).startsWith("--goaway-chance (goawayChance): can not be less "
        + "than 0 or greater than 0.02"));
    assertTrue(error(List.of("--goaway-chance=-0.01")).startsWith("--goaway-chance (goawayChance)"));
    assertTrue(error(List.of("--goaway-chance=often")).startsWith("--goaway-chance (goawayChance): \"often\""));
    assertTrue(error(List.of("--http2-max-streams-per-connection=-1"))
        .startsWith("--http2-max-streams-per-connection (http2MaxStreamsPerConnection)"));
  }

  @Test
  void tlsIsRequired() throws Exception {
    Files.writeString(file, "{}");
    assertTrue(error(List.of()).startsWith("--tls-cert-file (tlsCertFile): required"));
  }

  @Test
  void peerFlagsNeedTheFeatureGateAsInKubernetes() {
    String e = error(List.of("--feature-gates=UnknownVersionInteroperabilityProxy=false", "--peer-ca-file=ca.crt",
        "--proxy-client-cert-file=tls.crt", "--proxy-client-key-file=tls.key"));
    assertEquals("--peer-ca-file (peerCaFile): requires UnknownVersionInteroperabilityProxy feature to be turned on", e);
    assertTrue(error(List.of("--peer-ca-file=ca.crt")).startsWith("--proxy-client-cert-file (proxyClientCertFile): required"));
  }

  @Test
  void controllerManagerFlagsAsKubeControllerManager() {
    NodeConfig d = ConfigLoader.load(file, List.of());
    assertEquals(new NodeConfig.Controllers(java.util.Set.of("namespace-controller", "garbage-collector-controller",
        "serviceaccount-controller"), true, java.time.Duration.ofSeconds(15), java.time.Duration.ofSeconds(10),
        java.time.Duration.ofSeconds(2), null), d.controllers());
    NodeConfig c = ConfigLoader.load(file, List.of("--controllers=*,-garbagecollector,-serviceaccount",
        "--leader-elect=false", "--leader-elect-lease-duration=30s", "--leader-elect-renew-deadline=20s",
        "--leader-elect-retry-period=5s"));
    assertEquals(List.of("namespace-controller"), List.copyOf(c.controllers().enabled()));
    assertFalse(c.controllers().leaderElect());
    assertEquals(java.time.Duration.ofSeconds(30), c.controllers().leaseDuration());
    assertEquals("--controllers (controllers): \"replicaset\" is not in the list of known controllers "
        + "[namespace-controller, garbage-collector-controller, serviceaccount-controller]",
        error(List.of("--controllers=*,replicaset")));
    assertTrue(error(List.of("--leader-elect=yes")).startsWith("--leader-elect (leaderElect)"));
    assertEquals("--leader-elect-renew-deadline (leaderElectRenewDeadline): leaseDuration must be greater than "
        + "renewDeadline", error(List.of("--leader-elect-renew-deadline=15s")));
    assertEquals("--leader-elect-retry-period (leaderElectRetryPeriod): renewDeadline must be greater than "
        + "retryPeriod*JitterFactor", error(List.of("--leader-elect-retry-period=9s")));
    assertTrue(error(List.of("--controllers-server-ca-file=ca.crt", "--proxy-client-cert-file=tls.crt",
        "--proxy-client-key-file=tls.key")).startsWith("--controllers-server-ca-file (controllersServerCaFile): only "
        + "with UnknownVersionInteroperabilityProxy=false"));
    NodeConfig off = ConfigLoader.load(file, List.of("--feature-gates=UnknownVersionInteroperabilityProxy=false",
        "--controllers-server-ca-file=ca.crt", "--proxy-client-cert-file=tls.crt", "--proxy-client-key-file=tls.key"));
    assertEquals(dir.resolve("ca.crt"), off.controllers().serverCaFile());
  }

  @Test
  void peerAdvertiseAddressNeedsBothFlags() {
    NodeConfig one = ConfigLoader.load(file, List.of("--advertise-address=10.0.0.1", "--peer-advertise-ip=10.0.0.2"));
    assertEquals("10.0.0.1", one.peerHost(), "only one peer-advertise flag: advertise-address is used");
    assertNull(one.peerAdvertisePort());
    NodeConfig both = ConfigLoader.load(file, List.of("--peer-advertise-ip=10.0.0.2", "--peer-advertise-port=9443"));
    assertEquals("10.0.0.2", both.peerHost());
    assertEquals(9443, both.peerPort(6443));
  }

  @Test
  void serviceAccountKeysAsKubeApiserversFlags() {
    NodeConfig d = ConfigLoader.load(file, List.of());
    assertEquals(NodeConfig.ServiceAccounts.NONE, d.serviceAccounts(), "no service account tokens by default");
    NodeConfig c = ConfigLoader.load(file, List.of("--service-account-issuer=https://a.example,https://b.example",
        "--service-account-signing-key-file=tls.key", "--service-account-key-file", "ca.crt",
        "--api-audiences=api", "--service-account-max-token-expiration=48h"));
    assertEquals(List.of("https://a.example", "https://b.example"), c.serviceAccounts().issuers());
    assertEquals(dir.resolve("tls.key"), c.serviceAccounts().signingKeyFile());
    assertEquals(dir.resolve("ca.crt"), c.serviceAccounts().keyFile());
    assertEquals(List.of("api"), c.serviceAccounts().apiAudiences());
    assertEquals(java.time.Duration.ofHours(48), c.serviceAccounts().maxExpiration());
    assertTrue(error(List.of("--service-account-signing-key-file=tls.key"))
        .contains("--service-account-issuer (serviceAccountIssuer)"));
    assertTrue(error(List.of("--service-account-key-file=missing.pub"))
        .contains("--service-account-key-file (serviceAccountKeyFile)"));
    assertTrue(error(List.of("--service-account-max-token-expiration=soon"))
        .contains("--service-account-max-token-expiration"));
    assertNull(c.serviceAccounts().jwksUri());
    assertEquals("https://oidc.example/keys", ConfigLoader.load(file, List.of("--service-account-issuer=https://a.example",
        "--service-account-jwks-uri=https://oidc.example/keys")).serviceAccounts().jwksUri());
    assertTrue(error(List.of("--service-account-jwks-uri=https://oidc.example/keys"))
        .contains("--service-account-jwks-uri (serviceAccountJwksUri): service-account-jwks-uri requires "
            + "service-account-issuer"));
    assertTrue(error(List.of("--service-account-issuer=https://a.example", "--service-account-jwks-uri=http://x/k"))
        .contains("service-account-jwks-uri requires https scheme, parsed as: http://x/k"));
  }

  @Test
  void storageKeysAsKubeApiserversFlags() {
    NodeConfig d = ConfigLoader.load(file, List.of());
    assertEquals("memory", d.storage().backend(), "the embedded default needs no install");
    assertEquals("/registry", d.storage().etcdPrefix());
    assertEquals(java.time.Duration.ofMinutes(5), d.storage().compactionInterval());
    assertEquals(java.time.Duration.ofSeconds(2), d.storage().healthcheckTimeout());
    assertEquals(java.time.Duration.ofSeconds(2), d.storage().readycheckTimeout());
    assertEquals(java.time.Duration.ofSeconds(60), d.storage().requestTimeout(), "storage calls: --request-timeout");
    NodeConfig e = ConfigLoader.load(file, List.of("--storage-backend=etcd3",
        "--etcd-servers=http://127.0.0.1:2379,https://10.0.0.1:2379", "--etcd-prefix=/mv",
        "--etcd-compaction-interval=1h30m", "--etcd-healthcheck-timeout=500ms",
        "--etcd-readycheck-timeout=750ms", "--request-timeout=30s"));
    assertEquals(List.of("http://127.0.0.1:2379", "https://10.0.0.1:2379"), e.storage().etcdServers());
    assertEquals("/mv", e.storage().etcdPrefix());
    assertEquals(java.time.Duration.ofMinutes(90), e.storage().compactionInterval());
    assertEquals(java.time.Duration.ofMillis(500), e.storage().healthcheckTimeout());
    assertEquals(java.time.Duration.ofMillis(750), e.storage().readycheckTimeout());
    assertEquals(java.time.Duration.ofSeconds(30), e.storage().requestTimeout());
    assertTrue(ConfigLoader.load(file, List.of("--etcd-compaction-interval=0")).storage().compactionInterval()
        .isZero());
    assertTrue(error(List.of("--storage-backend=etcd3")).contains("--etcd-servers (etcdServers)"));
    assertTrue(error(List.of("--storage-backend=etcd2")).contains("--storage-backend (storageBackend)"));
    assertTrue(error(List.of("--etcd-servers=127.0.0.1:2379")).contains("--etcd-servers (etcdServers)"));
    assertTrue(error(List.of("--etcd-compaction-interval=5x")).contains("--etcd-compaction-interval"));
    assertTrue(error(List.of("--etcd-healthcheck-timeout=0")).contains("--etcd-healthcheck-timeout"));
    assertTrue(error(List.of("--etcd-readycheck-timeout=x")).contains("--etcd-readycheck-timeout"));
    assertTrue(error(List.of("--etcd-prefix=registry")).contains("--etcd-prefix (etcdPrefix)"));
    assertTrue(error(List.of("--etcd-certfile=ca.crt")).contains("--etcd-keyfile (etcdKeyfile)"));
  }

  @Test
  void serveHelpListsEveryFlag() {
    String help = Main.commandLine().getSubcommands().get("serve").getUsageMessage();
    for (ConfigKey k : ConfigKey.values()) {
      assertTrue(help.contains(k.flag() + " (" + k.json() + ")"), k.flag() + " missing:\n" + help);
    }
  }

  @Test
  void serveExitsWith2AndNamesTheKey() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream old = System.err;
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = Main.commandLine().execute("serve", "--config", file.toString(), "--secure-port=-1");
    } finally {
      System.setErr(old);
    }
    assertEquals(2, code);
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("--secure-port (securePort)"), err.toString());
  }
}
