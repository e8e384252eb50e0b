package io.mvproxy.node.rehearsal;

import io.mvproxy.node.cli.JvmFlags;
import io.mvproxy.node.cli.Main;
import io.mvproxy.node.plugin.PluginPacker;
import io.mvproxy.security.DevPki;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The one process-fleet launcher: N node processes on 127.0.0.1 (free HTTPS and Hazelcast ports, a unique cluster
 * name, the dev PKI), each with its own plugin folder holding the jars of a {@link PluginSet}. Used by the upgrade
 * rehearsal ({@code bin/mvproxy rehearse}) and, through {@code FleetHarness}, by the fleet tests in {@code dist}.
 *
 * <p>The rehearsal's fleet (the {@linkplain #RehearsalFleet(Path, List, boolean, PluginSet, String, Random, List)
 * rehearsal constructor}): this JVM's class path, ports below the ephemeral range from the run's seeded random, the
 * {@code memory} storage backend or, given etcd servers, {@code etcd3}, the "old" or the "new" plugin set in every
 * folder. With the gate off every node gets {@code featureGates: UnknownVersionInteroperabilityProxy=false} and no
 * {@code peerCaFile}: a kube-apiserver without the Mixed Version Proxy ({@code controllersServerCaFile} makes its
 * controller manager reach the fleet as kube-controller-manager behind a load balancer, see
 * {@code ControllerVerticle}).
 */
public final class RehearsalFleet implements Fleet {
  /** A plugin set: jar name to the manifests packed into it. */
  public record PluginSet(String label, Map<String, List<Path>> jars) {
  }

  /** One node. */
  public static final class NodeProcess {
    private final String name;
    private final int port;
    private final Path config;
    private final Path pluginDir;
    private final Path log;
    private Process process;
    private String set;
    private List<String> jvmOptions = List.of();

    NodeProcess(String name, int port, Path config, Path pluginDir, Path log) {
      this.name = name;
      this.port = port;
      this.config = config;
      this.pluginDir = pluginDir;
      this.log = log;
    }

    /** @return the node's name (its server ID) */
    public String name() {
      return name;
    }

    /** @return {@code https://127.0.0.1:<port>} */
    public String url() {
      return "https://127.0.0.1:" + port;
    }

    /** @return its HTTPS port */
    public int port() {
      return port;
    }

    /** @return its current process, null before its first start */
    public Process process() {
      return process;
    }

    /** @return its JSON config file (may be edited while the node is stopped) */
    public Path config() {
      return config;
    }

    /** @return the label of the plugin set in its folder */
    public String pluginSet() {
      return set;
    }

    /** @return its current log */
    public Path log() {
      return log;
    }

    /**
     * Sets JVM options for its next starts (after the fleet's own flags, before the class path), e.g.
     * {@code -XX:ArchiveClassesAtExit=FILE} for {@code mvproxy cds-archive}'s training start; they replace the
     * class-data archive flags the node would otherwise get ({@link JvmFlags#classDataSharing}).
     *
     * @param options the options; empty: none (the default)
     */
    public void jvmOptions(List<String> options) {
      this.jvmOptions = List.copyOf(options);
    }
  }

  /** Hands out free ports (each call a new one). */
  @FunctionalInterface
  public interface PortSource {
    /**
     * @return a free loopback port
     * @throws IOException when none is found
     */
    int next() throws IOException;
  }

  /** Adds a fleet's own keys to a node's JSON config (node name, the config so far, the fleet's PKI). */
  @FunctionalInterface
  public interface ConfigCustomizer {
    /**
     * @param node the node's name
     * @param cfg  its config, to add keys to
     * @param pki  the fleet's PKI
     */
    void customize(String node, JsonObject cfg, DevPki pki);
  }

  private final Path dir;
  private final DevPki pki;
  private final Map<String, NodeProcess> nodes = new LinkedHashMap<>();
  private final String heap;
  private final String classPath;
  /** Stops the nodes when the rehearsal's JVM is stopped (SIGTERM, Ctrl-C) before {@link #close()}. */
  private final Thread shutdownHook = new Thread(this::destroyAll, "rehearsal-fleet-shutdown");

  /**
   * Lays out the rehearsal's fleet: PKI, configs, the {@code initial} plugin set in every node's folder; nothing runs
   * yet.
   *
   * @param dir     scratch folder (created)
   * @param names   node names
   * @param gate    {@code UnknownVersionInteroperabilityProxy}
   * @param initial the plugin set every node starts with
   * @param heap    {@code -Xmx} of each node, e.g. {@code 384m}
   * @param random  the run's seeded random choices (here: the ports tried)
   * @param etcd    etcd client URLs ({@code --storage-backend=etcd3 --etcd-servers}); empty: the memory backend
   * @throws IOException on file errors or when no free port is found
   */
  public RehearsalFleet(Path dir, List<String> names, boolean gate, PluginSet initial, String heap, Random random,
                        List<String> etcd) throws IOException {
    this(dir, "mvproxy-rehearsal-", sameSet(names, initial), seededPorts(random), heap,
        System.getProperty("java.class.path"), (n, cfg, pki) -> {
          if (!etcd.isEmpty()) {
            cfg.put("storageBackend", "etcd3").put("etcdServers", new JsonArray(List.copyOf(etcd)));
          }
          if (gate) {
            cfg.put("peerCaFile", pki.caCert().toString());
          } else {
            cfg.put("featureGates", "UnknownVersionInteroperabilityProxy=false")
                .put("controllersServerCaFile", pki.caCert().toString());
          }
        });
  }

  /**
   * Lays out a fleet: for each node (in the map's order) an HTTPS and a Hazelcast port, a serving and proxy-client
   * certificate of the dev PKI, a JSON config ({@code <dir>/<node>.json}: TLS, request-header authentication,
   * membership with the fleet secret, the plugin folder, then the {@code customize}r's keys) and its plugin folder
   * ({@code <dir>/plugins-<node>}) holding its set; nothing runs yet.
   *
   * @param dir           scratch folder (created)
   * @param clusterPrefix prefix of the unique Hazelcast cluster name (a random UUID follows)
   * @param plugins       node name to the plugin set it starts with, in declaration order
   * @param ports         free ports, asked for in turn per node: HTTPS, then Hazelcast
   * @param heap          {@code -Xmx} of each node, e.g. {@code 384m}
   * @param classPath     the class path node processes run with
   * @param customize     adds the fleet's own config keys per node
   * @throws IOException on file errors or when no free port is found
   */
  public RehearsalFleet(Path dir, String clusterPrefix, Map<String, PluginSet> plugins, PortSource ports, String heap,
                        String classPath, ConfigCustomizer customize) throws IOException {
    this.dir = Files.createDirectories(dir);
    this.heap = heap;
    this.classPath = classPath;
    Runtime.getRuntime().addShutdownHook(shutdownHook);
    List<String> names = List.copyOf(plugins.keySet());
    Map<String, Integer> https = new LinkedHashMap<>();
    Map<String, Integer> hz = new LinkedHashMap<>();
    Map<String, String> urls = new LinkedHashMap<>();
    for (String n : names) {
      https.put(n, ports.next());
      hz.put(n, ports.next());
      urls.put(n, "https://127.0.0.1:" + https.get(n));
    }
    pki = new DevPki(dir.resolve("pki"));
    pki.generate(names, List.of(), urls);
    JsonArray members = new JsonArray();
    hz.values().forEach(p -> members.add("127.0.0.1:" + p));
    String cluster = clusterPrefix + UUID.randomUUID();
    for (String n : names) {
      Path pluginDir = Files.createDirectories(dir.resolve("plugins-" + n));
      JsonObject cfg = new JsonObject().put("serverId", n).put("bindAddress", "127.0.0.1")
          .put("securePort", https.get(n)).put("advertiseAddress", "127.0.0.1")
          .put("tlsCertFile", pki.servingCert(n).toString()).put("tlsPrivateKeyFile", pki.servingKey(n).toString())
          .put("clientCaFile", pki.caCert().toString())
          .put("requestheaderClientCaFile", pki.frontProxyCaCert().toString())
          .put("requestheaderAllowedNames", new JsonArray().add(DevPki.PROXY_CLIENT_CN))
          .put("proxyClientCertFile", pki.proxyClientCert(n).toString())
          .put("proxyClientKeyFile", pki.proxyClientKey(n).toString())
          .put("pluginDir", pluginDir.toString()).put("clusterName", cluster).put("clusterHost", "127.0.0.1")
          .put("clusterPort", hz.get(n)).put("clusterMembers", members)
          .put("clusterSecretFile", pki.clusterSecret().toString());
      customize.customize(n, cfg, pki);
      Path config = dir.resolve(n + ".json");
      Files.writeString(config, cfg.encodePrettily());
      NodeProcess np = new NodeProcess(n, https.get(n), config, pluginDir, dir.resolve(n + ".log"));
      nodes.put(n, np);
      install(np, plugins.get(n));
    }
  }

  private static Map<String, PluginSet> sameSet(List<String> names, PluginSet set) {
    Map<String, PluginSet> m = new LinkedHashMap<>();
    names.forEach(n -> m.put(n, set));
    return m;
  }

  /** @return ports below the ephemeral range tried in the order of the seeded random, none handed out twice */
  private static PortSource seededPorts(Random random) {
    java.util.Set<Integer> taken = new java.util.HashSet<>();
    return () -> freePort(taken, random);
  }

  /** @return the PKI (admin client certificate, CA) */
  @Override
  public DevPki pki() {
    return pki;
  }

  /** @return the nodes in declaration order */
  @Override
  public List<NodeProcess> nodes() {
    return List.copyOf(nodes.values());
  }

  /**
   * Replaces the jars in a node's plugin folder with another set (the "drop jar" step of an upgrade).
   *
   * @param n   the node
   * @param set the set to install
   * @throws IOException on file errors
   */
  @Override
  public void install(NodeProcess n, PluginSet set) throws IOException {
    installInto(n, set);
  }

  /**
   * Replaces the jars of a node's plugin folder with a set's (packed from its manifests).
   *
   * @param n   the node
   * @param set the set
   * @throws IOException on file errors
   */
  static void installInto(NodeProcess n, PluginSet set) throws IOException {
    try (Stream<Path> old = Files.list(n.pluginDir)) {
      for (Path jar : old.filter(p -> p.toString().endsWith(".jar")).toList()) {
        Files.delete(jar);
      }
    }
    for (Map.Entry<String, List<Path>> jar : set.jars().entrySet()) {
      new PluginPacker().pack(n.pluginDir.resolve(jar.getKey() + ".jar"), jar.getKey(), set.label(), jar.getValue());
    }
    n.set = set.label();
  }

  /**
   * Starts a node's process (returns at once); the previous run's log is kept beside the new one, numbered.
   *
   * @param n the node
   * @throws IOException when the JVM cannot be started
   */
  @Override
  public void start(NodeProcess n) throws IOException {
    if (Files.exists(n.log)) {
      int i = 1;
      while (Files.exists(Path.of(n.log + "." + i))) {
        i++;
      }
      Files.move(n.log, Path.of(n.log + "." + i));
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(JvmFlags.HAZELCAST);
    cmd.addAll(n.jvmOptions.isEmpty() ? JvmFlags.classDataSharing(classPath) : n.jvmOptions);
    cmd.addAll(List.of("-Xmx" + heap, "-XX:TieredStopAtLevel=1", "-cp", classPath,
        Main.class.getName(), "serve", "--config", n.config.toString()));
    n.process = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(n.log.toFile())).start();
  }

  /**
   * Waits until the node logged that it is ready.
   *
   * @param n         the node
   * @param timeoutMs longest wait
   * @throws IllegalStateException naming the log when the process exits or the wait times out
   */
  @Override
  public void awaitStarted(NodeProcess n, long timeoutMs) throws IOException, InterruptedException {
    long end = System.currentTimeMillis() + timeoutMs;
    while (!Files.exists(n.log) || !Files.readString(n.log).contains("ready on https://")) {
      if (!n.process.isAlive() || System.currentTimeMillis() > end) {
        throw new IllegalStateException(n.name + " did not start; see " + n.log);
      }
      Thread.sleep(100);
    }
  }

  /**
   * SIGTERM (graceful: readiness off, Lease released, record withdrawn, requests drained) and wait for the exit.
   *
   * @param n the node
   * @return the exit code (SIGKILL after 30 s)
   */
  @Override
  public int stop(NodeProcess n) throws InterruptedException {
    Process p = n.process;
    if (p == null || !p.isAlive()) {
      return p == null ? 0 : p.exitValue();
    }
    p.destroy();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    return p.exitValue();
  }

  /**
   * SIGKILL and wait up to 10 s for the process to be gone.
   *
   * @param n the node (started)
   */
  public void kill(NodeProcess n) throws InterruptedException {
    n.process.destroyForcibly();
    n.process.waitFor(10, TimeUnit.SECONDS);
  }

  /**
   * Sends a signal to a node's process with {@code kill -s} ({@code STOP} freezes it, {@code CONT} lets it go on).
   *
   * @param n      the node (started)
   * @param signal the signal's name
   * @throws IOException when {@code kill} fails
   */
  public void signal(NodeProcess n, String signal) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-s", signal, String.valueOf(n.process.pid())).inheritIO().start();
    if (kill.waitFor() != 0) {
      throw new IOException("kill -s " + signal + " failed for " + n.name);
    }
  }

  /** @param n a node @return true while its process (started at least once) runs */
  public boolean alive(NodeProcess n) {
    return n.process != null && n.process.isAlive();
  }

  /** @param n a node @return its current log's text so far, empty when there is none yet */
  public static String logText(NodeProcess n) {
    try {
      return Files.readString(n.log);
    } catch (IOException e) {
      return "";
    }
  }

  /** @param n a node @return true once its current log says it is ready ({@code ready on https://}) */
  public static boolean started(NodeProcess n) {
    return logText(n).contains("ready on https://");
  }

  /** SIGTERM to every running node at once (no wait). */
  public void destroyAll() {
    for (NodeProcess n : nodes.values()) {
      if (n.process != null && n.process.isAlive()) {
        n.process.destroy();
      }
    }
  }

  /** Stops every node (SIGTERM to all, then waits). */
  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs already
    }
    destroyAll();
    for (NodeProcess n : nodes.values()) {
      try {
        stop(n);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /**
   * A free loopback port below the ephemeral range whose successor is free too (etcd: client and peer port).
   *
   * @param random the run's seeded random choices
   * @return the port
   * @throws IOException when none is found
   */
  static int freePortPair(Random random) throws IOException {
    java.util.Set<Integer> taken = new java.util.HashSet<>();
    for (int i = 0; i < 200; i++) {
      int p = freePort(taken, random);
      try (ServerSocket s = new ServerSocket(p + 1, 1, InetAddress.getByName("127.0.0.1"))) {
        return p;
      } catch (IOException busy) {
        // try another
      }
    }
    throw new IOException("no two free consecutive ports in 20000-32000");
  }

  private static int freePort(java.util.Set<Integer> taken, Random random) throws IOException {
    for (int i = 0; i < 2000; i++) {
      int port = 20_000 + random.nextInt(12_000);
      if (!taken.add(port)) {
        continue;
      }
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
        s.setReuseAddress(true);
        return port;
      } catch (IOException busy) {
        // try another
      }
    }
    throw new IOException("no free port in 20000-32000");
  }
}
