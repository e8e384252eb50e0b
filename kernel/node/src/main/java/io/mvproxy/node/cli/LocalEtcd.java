package io.mvproxy.node.cli;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A local etcd for {@code mvproxy demo --storage etcd} and {@code mvproxy rehearse --storage etcd}: one or three
 * members of the {@code etcd} binary on 127.0.0.1, by default laid out as etcd's own {@code Procfile} does
 * (client/peer ports 2379/2380, 22379/22380, 32379/32380; the rehearsal passes free ports of its own), data under
 * {@code <dataRoot>/member-<i>} so that a restart of the demo keeps every object. The {@code --initial-cluster*}
 * flags only matter on the first start; later starts reuse each member's data folder.
 */
public final class LocalEtcd implements AutoCloseable {
  /** Client ports of members 0..2 (peer port = client port + 1). */
  static final int[] CLIENT_PORTS = {2379, 22379, 32379};
  /** What to do when no etcd binary is found. */
  public static final String INSTALL_HINT = "install etcd (Debian/Ubuntu: apt-get install etcd-server; or a release "
      + "binary from https://github.com/etcd-io/etcd/releases on PATH)";

  private final Path binary;
  private final Path dataRoot;
  private final Path logs;
  private final int size;
  private final int[] clientPorts;
  private final List<Process> processes = new ArrayList<>();

  /**
   * @param binary   the etcd executable
   * @param dataRoot folder of the members' data folders (created when missing)
   * @param logs     folder of the members' logs ({@code etcd-<i>.log})
   * @param size     1 or 3 members
   * @throws IllegalArgumentException for another size
   */
  LocalEtcd(Path binary, Path dataRoot, Path logs, int size) {
    this(binary, dataRoot, logs, java.util.Arrays.copyOf(CLIENT_PORTS, checkSize(size)));
  }

  /**
   * Members on given client ports (each member's peer port is its client port + 1; both must be free).
   *
   * @param binary      the etcd executable
   * @param dataRoot    folder of the members' data folders (created when missing)
   * @param logs        folder of the members' logs ({@code etcd-<i>.log})
   * @param clientPorts one client port per member (1 or 3 members)
   * @throws IllegalArgumentException for another number of members
   */
  public LocalEtcd(Path binary, Path dataRoot, Path logs, int... clientPorts) {
    this.size = checkSize(clientPorts.length);
    this.binary = binary;
    this.dataRoot = dataRoot;
    this.logs = logs;
    this.clientPorts = clientPorts.clone();
  }

  private static int checkSize(int size) {
    if (size != 1 && size != 3) {
      throw new IllegalArgumentException("--etcd-members must be 1 or 3, not " + size);
    }
    return size;
  }

  /** @return the etcd executable on PATH (or /usr/bin/etcd, Debian's etcd-server), or null when there is none */
  public static Path findBinary() {
    for (String d : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, "etcd"))) {
        return Path.of(d, "etcd");
      }
    }
    return Files.isExecutable(Path.of("/usr/bin/etcd")) ? Path.of("/usr/bin/etcd") : null;
  }

  /** @return the members' client URLs, {@code http://127.0.0.1:<port>} ({@code --etcd-servers}) */
  public List<String> clientUrls() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      out.add("http://127.0.0.1:" + clientPorts[i]);
    }
    return out;
  }

  private String peerUrl(int i) {
    return "http://127.0.0.1:" + (clientPorts[i] + 1);
  }

  /**
   * Starts every member and waits until each client port accepts connections.
   *
   * @param timeoutMs how long to wait, ms
   * @throws IOException when a port is taken, a member exits or does not listen in time (the message names its log)
   */
  public void start(long timeoutMs) throws IOException, InterruptedException {
    for (int i = 0; i < size; i++) {
      for (int port : new int[] {clientPorts[i], clientPorts[i] + 1}) {
        if (listening(port)) {
          throw new IOException("127.0.0.1:" + port + " is already in use (another etcd?); stop it first");
        }
      }
    }
    if (stopWithJvm) {
      try {
        Runtime.getRuntime().addShutdownHook(shutdownHook);
      } catch (IllegalArgumentException alreadyAdded) {
        // started again after a stop: the hook is registered once
      }
    }
    String cluster = java.util.stream.IntStream.range(0, size).mapToObj(i -> "member-" + i + "=" + peerUrl(i))
        .collect(Collectors.joining(","));
    Files.createDirectories(logs);
    for (int i = 0; i < size; i++) {
      String name = "member-" + i;
      String client = clientUrls().get(i);
      List<String> cmd = List.of(binary.toString(), "--name", name,
          "--data-dir", Files.createDirectories(dataRoot).resolve(name).toString(),
          "--listen-client-urls", client, "--advertise-client-urls", client,
          "--listen-peer-urls", peerUrl(i), "--initial-advertise-peer-urls", peerUrl(i),
          "--initial-cluster", cluster, "--initial-cluster-state", "new",
          "--initial-cluster-token", "mvproxy-demo-" + size, "--logger", "zap", "--log-outputs", "stderr");
      processes.add(new ProcessBuilder(cmd).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(logs.resolve("etcd-" + i + ".log").toFile())).start());
    }
    long deadline = System.currentTimeMillis() + timeoutMs;
    for (int i = 0; i < size; i++) {
      while (!listening(clientPorts[i])) {
        if (!processes.get(i).isAlive() || System.currentTimeMillis() > deadline) {
          stop();
          throw new IOException("etcd member-" + i + " did not start; see " + logs.resolve("etcd-" + i + ".log"));
        }
        TimeUnit.MILLISECONDS.sleep(100);
      }
    }
  }

  /** @param port a loopback port @return true when something accepts connections on 127.0.0.1 there (200 ms) */
  static boolean listening(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private volatile boolean stopWithJvm;

  /**
   * Has the members stopped when the JVM that starts them is stopped (SIGTERM, Ctrl-C) before {@link #stop()}: they
   * are processes of their own and would otherwise outlive it. For callers without a shutdown hook of their own that
   * stops the nodes first and then this etcd (as {@code demo} has). Call before {@link #start(long)}.
   *
   * @return this
   */
  public LocalEtcd stoppedWithJvm() {
    stopWithJvm = true;
    return this;
  }

  /** The hook of {@link #stoppedWithJvm()}: SIGTERM to every member, SIGKILL after 10 s. */
  private final Thread shutdownHook = new Thread(() -> terminate(10), "local-etcd-shutdown");

  /** Stops every member (SIGTERM, then SIGKILL after 20 s). */
  public void stop() {
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs already
    }
    terminate(20);
  }

  /** SIGTERM to every member, then SIGKILL to one still running after {@code seconds} (or when interrupted). */
  private void terminate(int seconds) {
    processes.forEach(Process::destroy);
    for (Process p : processes) {
      try {
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Same as {@link #stop()}. */
  @Override
  public void close() {
    stop();
  }
}
