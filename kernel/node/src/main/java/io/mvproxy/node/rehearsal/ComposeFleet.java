package io.mvproxy.node.rehearsal;

import io.mvproxy.security.DevPki;
import io.vertx.core.json.JsonObject;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The rehearsal's fleet as the repository's {@code docker-compose.yml}: its three etcd members and its three node
 * containers (image {@code $MVPROXY_IMAGE}, default {@code mvproxy:local}; etcd image {@code $MVPROXY_ETCD_IMAGE}),
 * under a project of its own ({@code mvproxy-rehearse-<gate>-<random>}, so each run starts on empty etcd volumes,
 * removed at the end with {@code down -v}), reached from this machine through the published ports
 * ({@code https://127.0.0.1:16443..16445}). An override file of the run's folder mounts, per node, a config derived
 * from {@code conf/compose/<node>.json} (the plugin folder moved to a mounted host folder; with the gate off:
 * {@code UnknownVersionInteroperabilityProxy=false}, no {@code peerCaFile}, {@code controllersServerCaFile}), the
 * run's dev PKI (serving certificates for the nodes' static IPs and 127.0.0.1) and that plugin folder: an upgrade is
 * {@code docker-compose stop} (SIGTERM), the jars swapped on the host, {@code docker-compose start}. The compose
 * command is {@code docker-compose} when on {@code PATH}, else {@code docker compose}. The containers run as this
 * process's uid/gid ({@code MVPROXY_UID}/{@code MVPROXY_GID}), the owner of the PKI's 0600 keys. Node logs are saved
 * to {@code <dir>/<node>.log} before the teardown. One compose fleet at a time per machine (fixed ports and subnet).
 */
final class ComposeFleet implements Fleet {
  /** Host ports the compose file publishes, per node. */
  static final Map<String, Integer> PORTS = Map.of("node-a", 16443, "node-b", 16444, "node-c", 16445);
  /** The nodes' static IPs on the compose network (in their serving certificates). */
  static final List<String> IPS = List.of("10.143.83.11", "10.143.83.12", "10.143.83.13");
  private static final String PLUGINS = "/opt/mvproxy/rehearsal-plugins";

  private final Path dir;
  private final Path home;
  private final PrintStream log;
  private final DevPki pki;
  private final String project;
  private final List<String> compose;
  private final Map<String, String> env = new HashMap<>();
  private final Map<String, RehearsalFleet.NodeProcess> nodes = new LinkedHashMap<>();
  private final Map<String, Instant> startedAt = new HashMap<>();
  private final Path override;
  private boolean up;
  /** Tears the project down when the rehearsal's JVM is stopped before {@link #close()}. */
  private final Thread shutdownHook = new Thread(this::down, "compose-fleet-shutdown");

  /**
   * Lays out the run (PKI, configs, override file, the initial plugin set) and starts the etcd members.
   *
   * @param dir     the run's folder (created)
   * @param home    the checkout holding {@code docker-compose.yml} and {@code conf/compose}
   * @param gate    {@code UnknownVersionInteroperabilityProxy}
   * @param initial the plugin set every node starts with
   * @param log     where progress lines go
   * @throws IOException when a file cannot be written or {@code docker-compose up} of the etcd members fails
   */
  ComposeFleet(Path dir, Path home, boolean gate, RehearsalFleet.PluginSet initial, PrintStream log)
      throws IOException, InterruptedException {
    this.dir = Files.createDirectories(dir).toAbsolutePath();
    this.home = home;
    this.log = log;
    this.project = "mvproxy-rehearse-" + (gate ? "on-" : "off-") + UUID.randomUUID().toString().substring(0, 8);
    this.compose = onPath("docker-compose") ? List.of("docker-compose") : List.of("docker", "compose");
    pki = new DevPki(this.dir.resolve("pki"));
    Map<String, String> urls = new LinkedHashMap<>();
    for (String n : Rehearsal.NODES) {
      urls.put(n, "https://127.0.0.1:" + PORTS.get(n));
    }
    pki.generate(Rehearsal.NODES, IPS, urls);
    Object uid = Files.getAttribute(this.dir, "unix:uid");
    Object gid = Files.getAttribute(this.dir, "unix:gid");
    env.put("MVPROXY_UID", String.valueOf(uid));
    env.put("MVPROXY_GID", String.valueOf(gid));
    StringBuilder y = new StringBuilder("# written by the rehearsal (ComposeFleet): per node its config, the run's "
        + "PKI and plugin folder\nversion: \"2.4\"\nservices:\n");
    for (String n : Rehearsal.NODES) {
      JsonObject cfg = new JsonObject(Files.readString(home.resolve("conf/compose/" + n + ".json")));
      cfg.put("pluginDir", PLUGINS);
      if (gate) {
        cfg.put("featureGates", "UnknownVersionInteroperabilityProxy=true");
      } else {
        cfg.remove("peerCaFile");
        cfg.put("featureGates", "UnknownVersionInteroperabilityProxy=false")
            .put("controllersServerCaFile", "pki/ca.crt");
      }
      Path config = this.dir.resolve(n + ".json");
      Files.writeString(config, cfg.encodePrettily());
      Path plugins = Files.createDirectories(this.dir.resolve("plugins-" + n));
      RehearsalFleet.NodeProcess np = new RehearsalFleet.NodeProcess(n, PORTS.get(n), config, plugins,
          this.dir.resolve(n + ".log"));
      nodes.put(n, np);
      RehearsalFleet.installInto(np, initial);
      y.append("  ").append(n).append(":\n    volumes:\n")
          .append("      - ").append(config).append(":/etc/mvproxy/node.json:ro\n")
          .append("      - ").append(pki.dir().toAbsolutePath()).append(":/etc/mvproxy/pki:ro\n")
          .append("      - ").append(plugins).append(":").append(PLUGINS).append(":ro\n");
    }
    override = this.dir.resolve("docker-compose.rehearsal.yml");
    Files.writeString(override, y.toString());
    Runtime.getRuntime().addShutdownHook(shutdownHook);
    up = true;
    run(180, "up", "-d", "--no-build", "etcd-0", "etcd-1", "etcd-2");
    log.printf("rehearsal: compose project %s (%s -f docker-compose.yml -f %s): etcd members up%n", project,
        String.join(" ", compose), override);
  }

  private static boolean onPath(String name) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, name))) {
        return true;
      }
    }
    return false;
  }

  /** Runs one compose command; returns its output. @throws IOException on a non-zero exit or a time-out */
  private String run(long timeoutSeconds, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(compose);
    cmd.addAll(List.of("-p", project, "-f", home.resolve("docker-compose.yml").toString(), "-f",
        override.toString()));
    cmd.addAll(List.of(args));
    return exec(cmd, timeoutSeconds);
  }

  private String exec(List<String> cmd, long timeoutSeconds) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(home.toFile()).redirectErrorStream(true);
    pb.environment().putAll(env);
    Path out = Files.createTempFile(dir, "cmd", ".out");
    try {
      Process p = pb.redirectOutput(out.toFile()).start();
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        throw new IOException(String.join(" ", cmd) + ": no exit within " + timeoutSeconds + " s: "
            + Files.readString(out));
      }
      String text = Files.readString(out, StandardCharsets.UTF_8);
      if (p.exitValue() != 0) {
        throw new IOException(String.join(" ", cmd) + ": exit code " + p.exitValue() + ": " + text.strip());
      }
      return text;
    } finally {
      Files.deleteIfExists(out);
    }
  }

  private String container(String node) throws IOException, InterruptedException {
    return run(60, "ps", "-q", node).strip();
  }

  @Override
  public DevPki pki() {
    return pki;
  }

  @Override
  public List<RehearsalFleet.NodeProcess> nodes() {
    return List.copyOf(nodes.values());
  }

  @Override
  public void install(RehearsalFleet.NodeProcess n, RehearsalFleet.PluginSet set) throws IOException {
    RehearsalFleet.installInto(n, set);
  }

  @Override
  public void start(RehearsalFleet.NodeProcess n) throws IOException {
    try {
      startedAt.put(n.name(), Instant.now().minusSeconds(1));
      if (container(n.name()).isEmpty()) {
        run(180, "up", "-d", "--no-build", "--no-deps", n.name());
      } else {
        run(180, "start", n.name());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted starting " + n.name(), e);
    }
  }

  @Override
  public void awaitStarted(RehearsalFleet.NodeProcess n, long timeoutMs) throws IOException, InterruptedException {
    long end = System.currentTimeMillis() + timeoutMs;
    String id = container(n.name());
    while (true) {
      String logs = exec(List.of("docker", "logs", "--since", startedAt.get(n.name()).toString(), id), 60);
      if (logs.contains("ready on https://")) {
        return;
      }
      String running = exec(List.of("docker", "inspect", "-f", "{{.State.Running}}", id), 60).strip();
      if (!"true".equals(running) || System.currentTimeMillis() > end) {
        saveLog(n);
        throw new IllegalStateException(n.name() + " did not start; see " + n.log());
      }
      Thread.sleep(500);
    }
  }

  @Override
  public int stop(RehearsalFleet.NodeProcess n) throws InterruptedException {
    try {
      String id = container(n.name());
      run(60, "stop", "-t", "30", n.name());
      return Integer.parseInt(exec(List.of("docker", "inspect", "-f", "{{.State.ExitCode}}", id), 60).strip());
    } catch (IOException | NumberFormatException e) {
      log.printf("rehearsal: docker-compose stop %s: %s%n", n.name(), e.getMessage());
      return -1;
    }
  }

  private void saveLog(RehearsalFleet.NodeProcess n) {
    try {
      Files.writeString(n.log(), run(60, "logs", "--no-color", "--timestamps", n.name()));
    } catch (IOException e) {
      log.printf("rehearsal: logs of %s not saved: %s%n", n.name(), e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private synchronized void down() {
    if (!up) {
      return;
    }
    up = false;
    try {
      run(180, "down", "-v", "--remove-orphans", "-t", "30");
    } catch (IOException e) {
      log.printf("rehearsal: %s%n", e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Saves the node logs, then {@code docker-compose down -v} (containers, network and etcd volumes removed). */
  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs already
    }
    for (RehearsalFleet.NodeProcess n : nodes.values()) {
      saveLog(n);
    }
    down();
  }
}
