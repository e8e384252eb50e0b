package io.mvproxy.storage;

import io.mvproxy.testkit.TestPorts;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Real etcd processes for tests (shared through this module's test-jar): {@code size} members on 127.0.0.1 with
 * random ports below the ephemeral range and a temporary data folder each. Members can be stopped, killed
 * (SIGKILL) and restarted with their data. Needs {@code etcd} on PATH or at {@code /usr/bin/etcd} (Debian's
 * {@code etcd-server}; {@code .ci/run} installs it).
 */
public final class EtcdRunner implements AutoCloseable {
  /** One member. */
  public final class Member {
    final String name;
    final int clientPort;
    final int peerPort;
    final Path dataDir;
    final Path log;
    Process process;

    Member(String name, int clientPort, int peerPort, Path dataDir, Path log) {
      this.name = name;
      this.clientPort = clientPort;
      this.peerPort = peerPort;
      this.dataDir = dataDir;
      this.log = log;
    }

    /** @return {@code http://127.0.0.1:<client port>} ({@code https} with {@link #tls}) */
    public String clientUrl() {
      return (tls == null ? "http" : "https") + "://127.0.0.1:" + clientPort;
    }

    String peerUrl() {
      return "http://127.0.0.1:" + peerPort;
    }

    /** Starts (or restarts with its data) this member; returns once its client port accepts connections. */
    public void start() throws IOException, InterruptedException {
      List<String> cmd = new ArrayList<>(List.of(binary(), "--name", name, "--data-dir", dataDir.toString(),
          "--listen-client-urls", clientUrl(), "--advertise-client-urls", clientUrl(),
          "--listen-peer-urls", peerUrl(), "--initial-advertise-peer-urls", peerUrl(),
          "--initial-cluster", initialCluster(), "--initial-cluster-state", "new",
          "--initial-cluster-token", token, "--heartbeat-interval", "50", "--election-timeout", "500",
          "--logger", "zap", "--log-outputs", "stderr"));
      if (tls != null) {
        cmd.addAll(List.of("--cert-file", tls.cert().toString(), "--key-file", tls.key().toString(),
            "--client-cert-auth", "--trusted-ca-file", tls.ca().toString()));
      }
      process = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(
          ProcessBuilder.Redirect.appendTo(log.toFile())).start();
      long deadline = System.currentTimeMillis() + 30_000;
      while (System.currentTimeMillis() < deadline) {
        if (!process.isAlive()) {
          throw new IOException("etcd " + name + " exited: " + Files.readString(log));
        }
        try (Socket s = new Socket("127.0.0.1", clientPort)) {
          return;
        } catch (IOException notYet) {
          TimeUnit.MILLISECONDS.sleep(50);
        }
      }
      throw new IOException("etcd " + name + " did not listen within 30 s: " + Files.readString(log));
    }

    /** Stops with SIGTERM and waits for the exit. */
    public void stop() throws InterruptedException {
      if (process != null && process.isAlive()) {
        process.destroy();
        process.waitFor(20, TimeUnit.SECONDS);
      }
    }

    /** Kills with SIGKILL. */
    public void kill() throws InterruptedException {
      if (process != null && process.isAlive()) {
        process.destroyForcibly();
        process.waitFor(20, TimeUnit.SECONDS);
      }
    }

    /** @return true while running */
    public boolean alive() {
      return process != null && process.isAlive();
    }
  }

  /**
   * Client TLS of every member: serving certificate and key, and the CA client certificates must chain to
   * ({@code --client-cert-auth}).
   *
   * @param cert PEM serving certificate (SAN 127.0.0.1)
   * @param key  its PEM key
   * @param ca   PEM CA bundle trusted for client certificates
   */
  public record Tls(Path cert, Path key, Path ca) {
  }

  private Tls tls;
  private final Path dir;
  private final String token = "mvproxy-test-" + ThreadLocalRandom.current().nextLong(Long.MAX_VALUE);
  private final List<Member> members = new ArrayList<>();

  /**
   * Lays out {@code size} members under a new temporary folder; nothing runs yet.
   *
   * @param size members (1 or 3 in practice)
   */
  public EtcdRunner(int size) throws IOException {
    this.dir = Files.createTempDirectory("mvproxy-etcd-");
    for (int i = 0; i < size; i++) {
      String n = "etcd" + i;
      members.add(new Member(n, TestPorts.belowEphemeral(), TestPorts.belowEphemeral(), dir.resolve(n),
          dir.resolve(n + ".log")));
    }
  }

  /**
   * Serves the client port with TLS and requires client certificates ({@code --client-cert-auth}); call before
   * {@link #start()}.
   *
   * @param t the files
   * @return this
   */
  public EtcdRunner tls(Tls t) {
    this.tls = t;
    return this;
  }

  /** @return a started single-member etcd */
  public static EtcdRunner single() throws IOException, InterruptedException {
    EtcdRunner r = new EtcdRunner(1);
    r.start();
    return r;
  }

  /** @return true when an etcd binary is available */
  public static boolean available() {
    return binary() != null && Files.isExecutable(Path.of(binary()));
  }

  private static String binary() {
    if (Files.isExecutable(Path.of("/usr/bin/etcd"))) {
      return "/usr/bin/etcd";
    }
    for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (Files.isExecutable(Path.of(d, "etcd"))) {
        return Path.of(d, "etcd").toString();
      }
    }
    return "/usr/bin/etcd";
  }

  private String initialCluster() {
    return members.stream().map(m -> m.name + "=" + m.peerUrl()).collect(Collectors.joining(","));
  }

  /** Starts every member (in parallel, as a new cluster needs a quorum to come up). */
  public EtcdRunner start() throws IOException, InterruptedException {
    List<Thread> ts = new ArrayList<>();
    List<Exception> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (Member m : members) {
      Thread t = new Thread(() -> {
        try {
          m.start();
        } catch (Exception e) {
          errors.add(e);
        }
      });
      t.start();
      ts.add(t);
    }
    for (Thread t : ts) {
      t.join();
    }
    if (!errors.isEmpty()) {
      throw new IOException(errors.get(0));
    }
    return this;
  }

  /**
   * Asks the running members ({@code etcdctl endpoint status}) which one leads the raft group.
   *
   * @return the leader
   * @throws IOException when no running member names a leader within 10 s
   */
  public Member leader() throws IOException, InterruptedException {
    long deadline = System.currentTimeMillis() + 10_000;
    String out = "";
    while (System.currentTimeMillis() < deadline) {
      List<String> urls = members.stream().filter(Member::alive).map(Member::clientUrl).toList();
      Process p = new ProcessBuilder(etcdctl(), "--endpoints", String.join(",", urls), "endpoint", "status")
          .redirectErrorStream(true).start();
      p.getOutputStream().close();
      out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      p.waitFor();
      for (String line : out.split("\n")) {
        String[] f = line.split(", ");
        if (f.length > 4 && "true".equals(f[4])) {
          for (Member m : members) {
            if (m.clientUrl().equals(f[0])) {
              return m;
            }
          }
        }
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
    throw new IOException("no etcd leader: " + out);
  }

  private static String etcdctl() {
    String etcd = binary();
    Path sibling = Path.of(etcd).resolveSibling("etcdctl");
    return Files.isExecutable(sibling) ? sibling.toString() : "etcdctl";
  }

  /** @return the members */
  public List<Member> members() {
    return members;
  }

  /** @return the members' client URLs */
  public List<String> clientUrls() {
    return members.stream().map(Member::clientUrl).toList();
  }

  /** @return the client URLs comma-separated ({@code --etcd-servers}) */
  public String servers() {
    return String.join(",", clientUrls());
  }

  /** Stops every member and deletes the data. */
  @Override
  public void close() throws Exception {
    for (Member m : members) {
      m.kill();
    }
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
