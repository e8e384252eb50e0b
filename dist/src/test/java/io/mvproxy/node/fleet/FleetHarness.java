package io.mvproxy.node.fleet;

import io.mvproxy.node.rehearsal.RehearsalFleet;
import io.mvproxy.node.plugin.PluginPacker;
import io.mvproxy.security.DevPki;
import io.mvproxy.testkit.TestPorts;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Test fleet: N mvproxy nodes as separate JVM processes on 127.0.0.1 (real TLS, real Hazelcast on loopback, real
 * plugin jars built with {@link PluginPacker}), launched by the rehearsal's launcher {@link RehearsalFleet}. Each node
 * gets free HTTPS and Hazelcast ports and a unique cluster name, so parallel runs never meet.
 */
public final class FleetHarness implements AutoCloseable {
  /** One node of the harness: a test's view of a {@link RehearsalFleet.NodeProcess}. */
  public static final class NodeProc {
    final String name;
    final RehearsalFleet.NodeProcess node;

    NodeProc(RehearsalFleet.NodeProcess node) {
      this.name = node.name();
      this.node = node;
    }

    /** @return the node's current process (null before its first start) */
    public Process process() {
      return node.process();
    }

    /** @return {@code https://127.0.0.1:port} */
    public String url() {
      return node.url();
    }

    /** @return the HTTPS port */
    public int port() {
      return node.port();
    }

    /** @return the node's log so far */
    public String log() {
      return RehearsalFleet.logText(node);
    }
  }

  /** {@code --service-account-issuer} of every node (kubeadm's default). */
  public static final String SERVICE_ACCOUNT_ISSUER = "https://kubernetes.default.svc.cluster.local";

  /** The harnesses not yet closed, so that a wait that timed out can say what their nodes last warned of. */
  private static final List<FleetHarness> OPEN = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final Path dir;
  private final RehearsalFleet fleet;
  private final Map<String, NodeProc> nodes = new LinkedHashMap<>();
  private HttpsClient admin;
  private HttpsClient anonymous;

  /**
   * Lays out the fleet (PKI, plugin jars, configs); nothing runs yet.
   *
   * @param dir     a scratch folder
   * @param plugins node name to manifest files of its single plugin jar (name -> files)
   * @throws IOException on file errors
   */
  public FleetHarness(Path dir, Map<String, Map<String, List<Path>>> plugins) throws IOException {
    this.dir = dir;
    Map<String, RehearsalFleet.PluginSet> sets = new LinkedHashMap<>();
    plugins.forEach((n, jars) -> sets.put(n, new RehearsalFleet.PluginSet("test", jars)));
    fleet = new RehearsalFleet(dir, "mvproxy-test-", sets, TestPorts::belowEphemeral,
        System.getProperty("mvproxy.nodeHeap", "384m"), nodeClassPath(), (n, cfg, pki) -> cfg
            .put("peerCaFile", pki.caCert().toString())
            // every node signs and verifies service account tokens with the fleet's one key pair
            .put("serviceAccountIssuer", new JsonArray().add(SERVICE_ACCOUNT_ISSUER))
            .put("serviceAccountSigningKeyFile", pki.serviceAccountKey().toString())
            .put("serviceAccountKeyFile", pki.serviceAccountPublicKey().toString()));
    // the Hazelcast port accepts only members holding the fleet secret (StrangerMemberTest): clusterSecretFile
    for (RehearsalFleet.NodeProcess n : fleet.nodes()) {
      nodes.put(n.name(), new NodeProc(n));
    }
    OPEN.add(this);
  }

  /**
   * For a failure message ({@link FleetTest#await}): the last WARNING and SEVERE lines of the current log of every
   * node of every open harness, each cut to 240 characters (Hazelcast's CP-subsystem notice left out).
   *
   * @param perNode lines per node
   * @return one block per node with warnings, each headed by the node's name; "" when there are none
   */
  public static String recentWarnings(int perNode) {
    StringBuilder out = new StringBuilder();
    for (FleetHarness h : OPEN) {
      for (NodeProc n : h.nodes.values()) {
        List<String> w = n.log().lines()
            .filter(l -> (l.contains(" WARNING ") || l.contains(" SEVERE ")) && !l.contains("CP Subsystem"))
            .map(l -> l.length() > 240 ? l.substring(0, 240) : l).toList();
        if (!w.isEmpty()) {
          out.append("\n").append(n.name).append("'s last warnings:\n")
              .append(String.join("\n", w.subList(Math.max(0, w.size() - perNode), w.size())));
        }
      }
    }
    return out.toString();
  }

  /**
   * Lays out the fleet in {@code fleet} under a new temporary folder (see the constructor).
   *
   * @param prefix  the temporary folder's name prefix
   * @param plugins node name to manifest files of its plugin jars (jar name -> files)
   * @return the harness; nothing runs yet
   * @throws IOException on file errors
   */
  public static FleetHarness inTempDir(String prefix, Map<String, Map<String, List<Path>>> plugins)
      throws IOException {
    return new FleetHarness(Files.createTempDirectory(prefix).resolve("fleet"), plugins);
  }

  /** @return the client authenticated as the admin (system:masters) of this fleet's PKI; {@link #close()} closes it */
  public synchronized HttpsClient admin() {
    if (admin == null) {
      admin = new HttpsClient(pki().caCert(), pki().adminCert(), pki().adminKey());
    }
    return admin;
  }

  /** @return a client trusting this fleet's CA without a client certificate; {@link #close()} closes it */
  public synchronized HttpsClient anonymous() {
    if (anonymous == null) {
      anonymous = new HttpsClient(pki().caCert(), null, null);
    }
    return anonymous;
  }

  /**
   * Adds keys to a node's JSON config before it starts.
   *
   * @param name  the node
   * @param extra keys to merge in
   */
  public void configure(String name, JsonObject extra) throws IOException {
    Path config = nodes.get(name).node.config();
    Files.writeString(config, new JsonObject(Files.readString(config)).mergeIn(extra).encodePrettily());
  }

  /**
   * Adds keys to every node's JSON config before they start.
   *
   * @param extra keys to merge in
   */
  public void configureAll(JsonObject extra) throws IOException {
    for (String name : nodes.keySet()) {
      configure(name, extra);
    }
  }

  /**
   * Turns a node into a kube-apiserver without the Mixed Version Proxy before it starts: feature gate
   * {@code UnknownVersionInteroperabilityProxy=false} and no {@code peerCaFile} (it serves and discovers its own APIs
   * only); {@code controllersServerCaFile} makes its controller manager reach the fleet's servers as
   * kube-controller-manager behind a load balancer.
   *
   * @param name the node
   */
  public void gateOff(String name) throws IOException {
    Path config = nodes.get(name).node.config();
    JsonObject cfg = new JsonObject(Files.readString(config));
    cfg.remove("peerCaFile");
    cfg.put("controllersServerCaFile", pki().caCert().toString());
    cfg.put("featureGates", "UnknownVersionInteroperabilityProxy=false");
    Files.writeString(config, cfg.encodePrettily());
  }

  /**
   * Sends SIGTERM (graceful shutdown) and waits for the process to exit.
   *
   * @param name the node
   * @return the exit code
   */
  public int terminate(String name) throws InterruptedException {
    return fleet.stop(nodes.get(name).node);
  }

  /** @return the PKI (admin cert, CA, kubeconfig) */
  public DevPki pki() {
    return fleet.pki();
  }

  /** @param name a node name @return the node */
  public NodeProc node(String name) {
    return nodes.get(name);
  }

  /** @return all nodes in declaration order */
  public List<NodeProc> nodes() {
    return List.copyOf(nodes.values());
  }

  /**
   * Starts a node's process (does not wait); {@link NodeProc#log()} then reads this run's log only.
   *
   * @param name the node
   * @throws IOException when the JVM cannot be started
   */
  public void start(String name) throws IOException {
    fleet.start(nodes.get(name).node);
  }

  /**
   * Sets JVM options for a node's next starts (see {@link RehearsalFleet.NodeProcess#jvmOptions}).
   *
   * @param name    the node
   * @param options e.g. {@code -XX:SharedArchiveFile=FILE}; empty: none
   */
  public void jvmOptions(String name, List<String> options) {
    nodes.get(name).node.jvmOptions(options);
  }

  /**
   * @return the class path node processes run with: {@code mvproxy.nodeClassPath} (dist's build sets it to
   *         {@code target/lib/*}, the node as shipped, so a dependency missing there fails here), else this JVM's
   */
  public static String nodeClassPath() {
    return System.getProperty("mvproxy.nodeClassPath", System.getProperty("java.class.path"));
  }

  /**
   * Waits until the node logged that it is ready.
   *
   * @param name      the node
   * @param timeoutMs how long to wait
   * @throws IllegalStateException with the node's log when it exits or times out
   */
  public void awaitStarted(String name, long timeoutMs) {
    NodeProc n = nodes.get(name);
    try {
      Awaitility.await(name + " ready").pollInSameThread().pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(100)).atMost(Duration.ofMillis(timeoutMs)).until(() -> {
            if (RehearsalFleet.started(n.node)) {
              return true;
            }
            if (!fleet.alive(n.node)) {
              throw new IllegalStateException(name + " did not start:\n" + n.log());
            }
            return false;
          });
    } catch (ConditionTimeoutException e) {
      throw new IllegalStateException(name + " did not start:\n" + n.log());
    }
  }

  /** Stops a node with SIGTERM (graceful shutdown) and waits for the process to exit. @param name the node */
  public void stop(String name) throws InterruptedException {
    fleet.stop(nodes.get(name).node);
  }

  /** Stops every node with SIGTERM at once (graceful, in parallel) and waits for all to exit. */
  public void stopAll() throws InterruptedException {
    fleet.destroyAll();
    for (NodeProc n : nodes.values()) {
      stop(n.name);
    }
  }

  /** Kills a node with SIGKILL and waits for the process to be gone. @param name the node */
  public void kill9(String name) throws InterruptedException {
    fleet.kill(nodes.get(name).node);
  }

  /** Kills every running node with SIGKILL and waits for the processes to be gone. */
  public void killAll() throws InterruptedException {
    for (NodeProc n : nodes.values()) {
      if (fleet.alive(n.node)) {
        fleet.kill(n.node);
      }
    }
  }

  /**
   * Sends a signal to a node's process ({@code STOP} freezes it: its Hazelcast member is suspected and removed by
   * the others, as in a partition; {@code CONT} lets it come back and merge).
   *
   * @param name   the node
   * @param signal signal name for {@code kill -s}
   */
  public void signal(String name, String signal) throws IOException, InterruptedException {
    fleet.signal(nodes.get(name).node, signal);
  }

  /** @param name a node @return true once its log says it is ready (membership published, serving) */
  public boolean started(String name) {
    return RehearsalFleet.started(nodes.get(name).node);
  }

  /** Frames of calls that block a thread: a blocked-thread report whose stack holds one is a blocking call. */
  static final java.util.regex.Pattern BLOCKING_FRAME = java.util.regex.Pattern.compile(
      "java\\.lang\\.Thread\\.sleep|java\\.lang\\.Object\\.wait|LockSupport\\.park"
          + "|java\\.io\\.(FileInputStream|FileOutputStream|RandomAccessFile)|java\\.nio\\.file\\.Files\\.|sun\\.nio\\.fs\\."
          + "|java\\.net\\.(InetAddress\\.get|Socket\\.|URL\\.open)|CompletableFuture\\.(get|join)"
          + "|CountDownLatch\\.await|Process\\.waitFor");

  /**
   * @return every report of Vert.x's blocked-thread checker in the nodes' logs whose stack shows an event loop inside
   *         a blocking call (sleep, wait, park, file or socket I/O, a future's get), prefixed by the node with the
   *         offending frame; reports without such a frame (a starved machine: class loading, GC, CPU contention on
   *         a loaded 2-core box) are not blocking calls and are left out
   */
  public List<String> blockedEventLoops() {
    List<String> out = new java.util.ArrayList<>();
    for (NodeProc n : nodes.values()) {
      String[] lines = n.log().split("\n");
      for (int i = 0; i < lines.length; i++) {
        if (!lines[i].contains("vert.x-eventloop-thread") || !lines[i].contains("has been blocked for")) {
          continue;
        }
        for (int k = i + 1; k < lines.length && (lines[k].startsWith("\t") || lines[k].startsWith("io.vertx.core"
            + ".VertxException")); k++) {
          java.util.regex.Matcher m = BLOCKING_FRAME.matcher(lines[k]);
          if (m.find() && lines[k].trim().startsWith("at ")) {
            out.add(n.name + ": " + lines[i] + " in " + lines[k].trim());
            break;
          }
        }
      }
    }
    return out;
  }

  /** Closes the {@link #admin()} and {@link #anonymous()} clients, then stops every node (SIGTERM, then SIGKILL). */
  @Override
  public void close() {
    OPEN.remove(this);
    synchronized (this) {
      if (admin != null) {
        admin.close();
      }
      if (anonymous != null) {
        anonymous.close();
      }
    }
    fleet.close();
  }

  /**
   * Starts every node at once, then waits for each to log that it started.
   *
   * @param timeoutMs per-node limit
   */
  public void startAllAndAwaitStarted(long timeoutMs) throws IOException, InterruptedException {
    for (NodeProc n : nodes.values()) {
      start(n.name);
    }
    for (NodeProc n : nodes.values()) {
      awaitStarted(n.name, timeoutMs);
    }
  }

  /**
   * {@link #startAllAndAwaitReady(HttpsClient, long)} with the {@link #admin()} client.
   *
   * @param timeoutMs per-node limit
   */
  public void startAllAndAwaitReady(long timeoutMs) throws Exception {
    startAllAndAwaitReady(admin(), timeoutMs);
  }

  /**
   * Starts every node at once, then waits for each to log that it started and to answer {@code /readyz} 200.
   *
   * @param client    an admin client
   * @param timeoutMs per-node limit
   */
  public void startAllAndAwaitReady(HttpsClient client, long timeoutMs) throws Exception {
    for (NodeProc n : nodes.values()) {
      start(n.name);
    }
    for (NodeProc n : nodes.values()) {
      awaitStarted(n.name, timeoutMs);
      FleetTest.await(n.name + " ready", timeoutMs, () -> client.get(n.url(), "/readyz").status() == 200);
    }
  }

  /**
   * The usual mixed-version layout: node-a on the "old" widgets plugin, node-b and node-c on the "new" one.
   *
   * @return node name to plugin jars (jar name to manifests)
   */
  public static Map<String, Map<String, List<Path>>> oldNewNew() throws IOException {
    Map<String, Map<String, List<Path>>> plugins = new LinkedHashMap<>();
    plugins.put("node-a", new LinkedHashMap<>(Map.of("widgets-old",
        List.of(TestData.example("widgets-old").resolve("widgets.yaml")))));
    plugins.put("node-b", new LinkedHashMap<>(Map.of("widgets-new", TestData.newWidgets())));
    plugins.put("node-c", new LinkedHashMap<>(Map.of("widgets-new", TestData.newWidgets())));
    return plugins;
  }

  /** @return the scratch folder */
  public Path dir() {
    return dir;
  }
}
