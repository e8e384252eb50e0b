package io.mvproxy.node.cli;

import io.mvproxy.node.plugin.PluginPacker;
import io.mvproxy.security.DevPki;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code mvproxy demo}: the embedded default fleet. Creates the dev PKI in {@code conf/pki} when missing, packs the
 * example plugins (node-a "old": {@code widgets-old}; node-b and node-c "new": {@code widgets-new}; node-b also the
 * wardle APIService, backed by the sample extension API server on 127.0.0.1:8443; node-c also the clock code
 * plugin; node-b and node-c also the {@code gizmos} CRD converted by the sample conversion webhook on 127.0.0.1:9443,
 * its {@code caBundle} filled with the PKI's CA), starts the three nodes of {@code conf/node-{a,b,c}.json} and the backend as child processes (logs in
 * {@code run/logs}), prints the kubeconfig and a few kubectl commands, and stops everything on Ctrl-C / SIGTERM.
 * With {@code --storage etcd} it first starts a local etcd ({@link LocalEtcd}: 1 or {@code --etcd-members 3} members
 * on 127.0.0.1, data in {@code run/etcd/}) and runs the nodes with {@code --storage-backend=etcd3}, so a restart of
 * the demo keeps every object; without an {@code etcd} binary it exits 2 saying how to install one.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Start a local 3-node mixed-version fleet on 127.0.0.1:6443-6445.")
public final class DemoCommand implements Callable<Integer> {
  /** Port of the sample extension API server behind the wardle APIService (conf/node-b.json serviceResolution). */
  static final int WARDLE_PORT = 8443;
  /** Port of the sample conversion webhook of the gizmos CRD (conf/node-{b,c}.json serviceResolution). */
  static final int CONVERSION_WEBHOOK_PORT = 9443;

  @Option(names = "--home", description = "mvproxy checkout (default: the mvproxy.home property or the current folder).")
  Path home;

  @Option(names = "--ready-timeout", defaultValue = "90", description = "Seconds to wait for every node to be ready.")
  int readyTimeout;

  @Option(names = "--storage", defaultValue = "memory",
      description = "memory (the fleet's own memory, volatile) or etcd (a local etcd, data in run/etcd/; needs etcd).")
  String storage;

  @Option(names = "--etcd-members", defaultValue = "1", description = "With --storage etcd: 1 or 3 local members.")
  int etcdMembers;

  @Override
  public Integer call() throws Exception {
    Path root = (home != null ? home : Path.of(System.getProperty("mvproxy.home", "."))).toAbsolutePath().normalize();
    Path conf = root.resolve("conf");
    Path run = root.resolve("run");
    Path examples = root.resolve("plugins/examples");
    if (!List.of("memory", "etcd").contains(storage)) {
      System.err.println("mvproxy demo: --storage must be memory or etcd, not \"" + storage + "\"");
      return 2;
    }
    if (etcdMembers != 1 && etcdMembers != 3) {
      System.err.println("mvproxy demo: --etcd-members must be 1 or 3, not " + etcdMembers);
      return 2;
    }
    // a second demo beside a running one would overwrite its logs and plugin folders and join its cluster
    for (int port : new int[] {6443, 6444, 6445, WARDLE_PORT, CONVERSION_WEBHOOK_PORT, 5701, 5702, 5703}) {
      if (LocalEtcd.listening(port)) {
        System.err.println("mvproxy demo: 127.0.0.1:" + port + " is in use (is a demo already running? stop it first,"
            + " Ctrl-C in its terminal); the demo needs 127.0.0.1:6443-6445, 8443, 9443 and 5701-5703");
        return 1;
      }
    }
    LocalEtcd etcd = null;
    if ("etcd".equals(storage)) {
      Path bin = LocalEtcd.findBinary();
      if (bin == null) {
        System.err.println("mvproxy demo --storage etcd: no etcd on PATH; " + LocalEtcd.INSTALL_HINT);
        return 2;
      }
      try {
        etcd = new LocalEtcd(bin, run.resolve("etcd").resolve(etcdMembers == 1 ? "single" : "three"),
            run.resolve("logs"), etcdMembers);
      } catch (IllegalArgumentException e) {
        System.err.println("mvproxy demo: " + e.getMessage());
        return 2;
      }
    }
    DevPki pki = new DevPki(conf.resolve("pki"));
    pki.generate(List.of("node-a", "node-b", "node-c"), List.of(), Map.of());
    // the plugin folders are generated: start from the documented sets, not from jars left by an earlier run
    for (String n : List.of("node-a", "node-b", "node-c")) {
      Path dir = run.resolve("plugins").resolve(n);
      if (Files.isDirectory(dir)) {
        try (Stream<Path> old = Files.list(dir)) {
          for (Path jar : old.filter(p -> p.toString().endsWith(".jar")).toList()) {
            Files.delete(jar);
          }
        }
      }
    }
    Map<String, List<Path>> jars = new LinkedHashMap<>();
    jars.put("node-a", List.of(pack(run, "node-a", examples.resolve("widgets-old"))));
    Path gizmos = gizmosWithCa(run, examples, pki.caCert());
    jars.put("node-b", List.of(pack(run, "node-b", examples.resolve("widgets-new")),
        pack(run, "node-b", examples.resolve("wardle")), pack(run, "node-b", gizmos)));
    jars.put("node-c", List.of(pack(run, "node-c", examples.resolve("widgets-new")), pack(run, "node-c", gizmos)));
    Path clock = examples.resolve("clock-plugin/target/mvproxy-clock-plugin.jar");
    if (Files.exists(clock)) {
      Files.copy(clock, run.resolve("plugins/node-c/clock-plugin.jar"), StandardCopyOption.REPLACE_EXISTING);
    } else {
      System.err.println("mvproxy demo: " + clock + " not built; node-c runs without the code plugin");
    }
    Path logs = Files.createDirectories(run.resolve("logs"));
    List<Process> children = new ArrayList<>();
    LocalEtcd store = etcd;
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      stopAll(children);
      if (store != null) {
        store.stop(); // after the nodes, so they stop gracefully on a reachable etcd
      }
    }, "mvproxy-demo-stop"));
    List<String> storageFlags = List.of();
    if (etcd != null) {
      try {
        etcd.start(30_000);
      } catch (IOException e) {
        System.err.println("mvproxy demo: " + e.getMessage());
        return 1;
      }
      storageFlags = List.of("--storage-backend=etcd3", "--etcd-servers=" + String.join(",", etcd.clientUrls()));
      System.out.println("mvproxy demo: etcd " + String.join(",", etcd.clientUrls()) + " (data in "
          + run.resolve("etcd") + ")");
    }
    Path wardle = examples.resolve("sample-apiserver/target/mvproxy-sample-apiserver-0.1.0-SNAPSHOT.jar");
    if (Files.exists(wardle)) {
      children.add(java(List.of("-jar", wardle.toString(), "--secure-port", String.valueOf(WARDLE_PORT),
          "--bind-address", "127.0.0.1", "--tls-cert-file", pki.servingCert("node-b").toString(),
          "--tls-private-key-file", pki.servingKey("node-b").toString(),
          "--requestheader-client-ca-file", pki.frontProxyCaCert().toString()), logs.resolve("wardle.log")));
    }
    Path converter = examples.resolve("conversion-webhook/target/mvproxy-conversion-webhook-0.1.0-SNAPSHOT.jar");
    if (Files.exists(converter)) {
      children.add(java(List.of("-jar", converter.toString(), "--secure-port",
          String.valueOf(CONVERSION_WEBHOOK_PORT), "--bind-address", "127.0.0.1", "--tls-cert-file",
          pki.servingCert("node-b").toString(), "--tls-private-key-file", pki.servingKey("node-b").toString()),
          logs.resolve("conversion-webhook.log")));
    } else {
      System.err.println("mvproxy demo: " + converter + " not built; gizmos in v2 answer 500 (webhook down)");
    }
    for (String n : jars.keySet()) {
      List<String> args = new ArrayList<>(JvmFlags.HAZELCAST);
      args.addAll(JvmFlags.classDataSharing(System.getProperty("java.class.path")));
      args.addAll(List.of("-Xmx512m", "-cp", System.getProperty("java.class.path"), Main.class.getName(), "serve",
          "--config", conf.resolve(n + ".json").toString()));
      args.addAll(storageFlags);
      children.add(java(args, logs.resolve(n + ".log")));
    }
    long deadline = System.currentTimeMillis() + readyTimeout * 1000L;
    for (String n : jars.keySet()) {
      Path log = logs.resolve(n + ".log");
      while (!Files.readString(log).contains("ready on https://")) {
        boolean exited = children.stream().anyMatch(p -> !p.isAlive());
        if (exited || System.currentTimeMillis() > deadline) {
          System.err.println(n + (exited ? " did not start: a process of the demo exited"
              : " was not ready within --ready-timeout=" + readyTimeout + " s (a loaded machine may need more)")
              + "; see " + log + ":\n" + Files.readString(log));
          stopAll(children);
          if (etcd != null) {
            etcd.stop();
          }
          return 1;
        }
        Thread.sleep(200);
      }
    }
    try (FleetProbe probe = new FleetProbe(pki.caCert(), pki.adminCert(), pki.adminKey())) {
      List<String> urls = List.of("https://127.0.0.1:6443", "https://127.0.0.1:6444", "https://127.0.0.1:6445");
      while (!probe.converged(urls, 3)) {
        if (System.currentTimeMillis() > deadline) {
          System.err.println("mvproxy demo: the nodes started but did not all see each other within "
              + readyTimeout + " s; see " + logs);
          break;
        }
        Thread.sleep(250);
      }
    }
    String kc = pki.kubeconfig().toString();
    String k = "kubectl --kubeconfig " + kc + " --context ";
    System.out.println("""

        mvproxy demo fleet is up (logs in %s; storage: %s):
          node-a  https://127.0.0.1:6443  widgets-old (demo.mvproxy.io/v1 widgets)                       "old"
          node-b  https://127.0.0.1:6444  widgets-new (widgets v2+v1, gadgets), wardle APIService, gizmos  "new"
          node-c  https://127.0.0.1:6445  widgets-new, gizmos, clock-plugin (code plugin: time.example.com clocks, alarms) "new"
          wardle backend (sample extension API server) https://127.0.0.1:%d
          gizmos conversion webhook (v1 spec.size <-> v2 spec.diameter) https://127.0.0.1:%d/convert

        kubeconfig: %s   (contexts node-a, node-b, node-c)
        Try:
          %snode-b apply -f %s
          %snode-a get widgets.v2.demo.mvproxy.io   # node-a lacks v2: proxied to node-b or node-c
          %snode-a api-resources                    # the fleet's union, through any node
          %snode-a get --raw /apis                  # legacy discovery, peer-aware
          %snode-a get clocks                       # a code plugin only node-c has
          %snode-a get flunders -A                  # an aggregated API (node-b -> wardle backend)
          %snode-a apply -f %s
          %snode-a get gizmos.v2.demo.mvproxy.io    # stored as v1, converted by the webhook on node-b/c
          %snode-a get apiservernodes,plugins       # the fleet's mixed-version state
        Ctrl-C stops everything.
        """.formatted(logs, etcd == null ? "memory, volatile"
            : "etcd " + String.join(",", etcd.clientUrls()) + ", kept across restarts", WARDLE_PORT,
            CONVERSION_WEBHOOK_PORT, kc, k, examples.resolve("widget-sample.yaml"), k, k, k, k, k,
            k, examples.resolve("gizmo-sample.yaml"), k, k));
    for (Process p : children) {
      p.waitFor();
    }
    return 0;
  }

  /**
   * @param run      the demo's run folder
   * @param examples {@code plugins/examples}
   * @param caCert   the PKI's CA, which signed the conversion webhook's serving certificate
   * @return {@code run/gizmos}: the gizmos plugin folder with {@code caBundle} set to the CA (base64 PEM)
   */
  private static Path gizmosWithCa(Path run, Path examples, Path caCert) throws IOException {
    Path dir = Files.createDirectories(run.resolve("gizmos"));
    String ca = java.util.Base64.getEncoder().encodeToString(Files.readAllBytes(caCert));
    Files.writeString(dir.resolve("gizmos.yaml"), Files.readString(examples.resolve("gizmos/gizmos.yaml"))
        .replace("caBundle: \"\"", "caBundle: " + ca));
    return dir;
  }

  private static Path pack(Path run, String node, Path pluginFolder) throws IOException {
    Path dir = Files.createDirectories(run.resolve("plugins").resolve(node));
    Path jar = dir.resolve(pluginFolder.getFileName() + ".jar");
    try (Stream<Path> s = Files.list(pluginFolder)) {
      new PluginPacker().pack(jar, pluginFolder.getFileName().toString(), "demo",
          s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList());
    }
    return jar;
  }

  private static Process java(List<String> args, Path log) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(args);
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  private static void stopAll(List<Process> children) {
    children.forEach(Process::destroy);
    for (Process p : children) {
      try {
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
