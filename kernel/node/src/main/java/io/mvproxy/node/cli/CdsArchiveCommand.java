package io.mvproxy.node.cli;

import io.mvproxy.node.rehearsal.FleetClient;
import io.mvproxy.node.rehearsal.RehearsalFleet;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code mvproxy cds-archive --out FILE}: makes the class-data archive (Application Class-Data Sharing, JDK 17's
 * dynamic archive) that node JVMs with this command's class path map at start ({@code -XX:SharedArchiveFile=FILE
 * -Xshare:auto}, see {@link JvmFlags#classDataSharing}): the classes a node loads come parsed and verified instead of
 * read from the jars, which shortens a restart (README "Where a restart's time goes").
 *
 * <p>The training: a 2-node fleet on loopback (free ports, a scratch folder, the dev PKI); node-a serves nothing of
 * its own, node-b the {@code widgets-new} example plugin when {@code mvproxy.home} holds it. node-b is the one
 * archived ({@code -XX:ArchiveClassesAtExit}): it joins a running cluster as a restarted node does, serves
 * discovery, built-in and plugin resources, answers node-a's proxied requests, and stops on SIGTERM; its JVM writes
 * the archive as it exits. The archive is written beside {@code FILE} and moved over it only once complete and
 * mapped by a strict JVM ({@link #usable}): a JVM given a file cut short can crash (SIGBUS) instead of skipping it,
 * and the rename leaves the file running nodes map intact. Exit code 0 when written, 1 when the training failed
 * (no file is left).
 */
@Command(name = "cds-archive", hidden = true,
    description = "Make the class-data archive node JVMs with this class path start from (a training start).")
public final class CdsArchiveCommand implements Callable<Integer> {
  /** Longest wait for a node's start and for node-b's exit (which writes the archive), ms. */
  static final long TIMEOUT_MS = 180_000;

  @Option(names = "--out", required = true, description = "The archive file to write.")
  Path out;

  @Option(names = "--dir", description = "Scratch folder (default: a new temporary folder, deleted afterwards).")
  Path dir;

  @Override
  public Integer call() throws Exception {
    long t0 = System.nanoTime();
    Path scratch = dir != null ? Files.createDirectories(dir) : Files.createTempDirectory("mvproxy-cds-");
    Path target = out.toAbsolutePath();
    Files.createDirectories(target.getParent());
    Path partial = target.resolveSibling(target.getFileName() + ".part-" + ProcessHandle.current().pid());
    Files.deleteIfExists(partial);
    try {
      Map<String, RehearsalFleet.PluginSet> sets = new LinkedHashMap<>();
      sets.put("node-a", new RehearsalFleet.PluginSet("none", Map.of()));
      sets.put("node-b", new RehearsalFleet.PluginSet("training", examplePlugin()));
      Vertx vertx = Vertx.vertx();
      try (RehearsalFleet fleet = new RehearsalFleet(scratch, "mvproxy-cds-", sets, CdsArchiveCommand::freePort,
          "384m", System.getProperty("java.class.path"),
          (n, cfg, pki) -> cfg.put("peerCaFile", pki.caCert().toString()));
           FleetClient client = new FleetClient(vertx, fleet.pki().caCert(), fleet.pki().adminCert(),
               fleet.pki().adminKey())) {
        RehearsalFleet.NodeProcess a = fleet.nodes().get(0);
        RehearsalFleet.NodeProcess b = fleet.nodes().get(1);
        b.jvmOptions(List.of("-XX:ArchiveClassesAtExit=" + partial));
        fleet.start(a);
        fleet.awaitStarted(a, TIMEOUT_MS);
        fleet.start(b);
        fleet.awaitStarted(b, TIMEOUT_MS);
        exercise(client, a.url(), b.url(), !sets.get("node-b").jars().isEmpty());
        b.process().destroy();
        if (!b.process().waitFor(TIMEOUT_MS, TimeUnit.MILLISECONDS) || b.process().exitValue() != 0
            || !Files.isRegularFile(partial) || Files.size(partial) == 0) {
          System.err.println("mvproxy cds-archive: the training node did not write the archive; see " + b.log());
          return 1;
        }
        if (!usable(partial, System.getProperty("java.class.path"))) {
          System.err.println("mvproxy cds-archive: the archive written is not usable (-Xshare:on refused it)");
          return 1;
        }
      } finally {
        vertx.close();
      }
      Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      System.err.printf("mvproxy cds-archive: %s (%d MiB) in %d s%n", target, Files.size(target) >> 20,
          TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0));
      return 0;
    } finally {
      Files.deleteIfExists(partial);
      if (dir == null) {
        deleteTree(scratch);
      }
    }
  }

  /** @return the widgets-new example as one plugin jar's manifests, or none without {@code mvproxy.home} */
  private static Map<String, List<Path>> examplePlugin() throws IOException {
    String home = System.getProperty("mvproxy.home");
    Path ex = home == null ? null : Path.of(home, "plugins", "examples", "widgets-new");
    if (ex == null || !Files.isDirectory(ex)) {
      return Map.of();
    }
    try (Stream<Path> s = Files.list(ex)) {
      return Map.of("widgets-new", s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList());
    }
  }

  /**
   * The requests a serving node answers: health, discovery, OpenAPI, built-in writes and reads on node-b, and the
   * plugin's resources through node-a (proxied to node-b over the peer hop), until node-a routes them (60 s).
   */
  private static void exercise(FleetClient c, String a, String b, boolean plugin) throws Exception {
    JsonObject cm = new JsonObject().put("apiVersion", "v1").put("kind", "ConfigMap")
        .put("metadata", new JsonObject().put("name", "cds-training")).put("data", new JsonObject().put("k", "v"));
    for (String path : List.of("/readyz", "/livez", "/version", "/api", "/apis", "/openapi/v2", "/openapi/v3",
        "/api/v1/namespaces", "/apis/coordination.k8s.io/v1/leases")) {
      await(c.sendTo(b, HttpMethod.GET, path, null, null));
    }
    await(c.sendTo(b, HttpMethod.POST, "/api/v1/namespaces/default/configmaps", cm, "application/json"));
    await(c.sendTo(b, HttpMethod.GET, "/api/v1/namespaces/default/configmaps/cds-training", null, null));
    await(c.sendTo(a, HttpMethod.GET, "/api/v1/namespaces/default/configmaps", null, null));
    if (plugin) {
      String widgets = "/apis/demo.mvproxy.io/v2/namespaces/default/widgets";
      await(c.sendTo(b, HttpMethod.GET, "/apis/demo.mvproxy.io/v2", null, null));
      await(c.sendTo(b, HttpMethod.GET, widgets, null, null));
      long end = System.currentTimeMillis() + 60_000;
      while (await(c.sendTo(a, HttpMethod.GET, widgets, null, null)).status() != 200
          && System.currentTimeMillis() < end) {
        Thread.sleep(100);
      }
    }
    await(c.sendTo(b, HttpMethod.DELETE, "/api/v1/namespaces/default/configmaps/cds-training", null, null));
  }

  /**
   * Maps the archive strictly ({@code -Xshare:on}: a file that is cut short, damaged or made for other jars fails the
   * JVM instead of being skipped), so that only an archive a node can map replaces the old one.
   *
   * @param archive   the archive
   * @param classPath the class path it was made for
   * @return true when {@code java -Xshare:on -version} with it exits 0
   */
  public static boolean usable(Path archive, String classPath) throws IOException, InterruptedException {
    List<String> cmd = new java.util.ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(JvmFlags.HAZELCAST);
    // a file cut short crashes the JVM: its crash report goes to the temporary folder, not the working folder
    cmd.addAll(List.of("-XX:SharedArchiveFile=" + archive, "-Xshare:on", "-XX:-CreateCoredumpOnCrash",
        "-XX:ErrorFile=" + Path.of(System.getProperty("java.io.tmpdir"), "mvproxy-cds-check-hs_err_%p.log"),
        "-cp", classPath, "-version"));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return false;
    }
    return p.exitValue() == 0;
  }

  private static FleetClient.Answer await(Future<FleetClient.Answer> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return s.getLocalPort();
    }
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
