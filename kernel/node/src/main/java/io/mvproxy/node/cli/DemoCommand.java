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
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code mvproxy demo}: the embedded default fleet. Creates the dev PKI in {@code conf/pki} when missing, packs the
 * example plugins ({@code plugins/examples/widgets-old} for node-a, {@code widgets-new} for node-b and node-c),
 * starts the three nodes of {@code conf/node-{a,b,c}.json} as child processes (logs in {@code run/logs}), prints
 * the kubeconfig and a few kubectl commands, and stops every node on Ctrl-C.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Start a local 3-node mixed-version fleet on 127.0.0.1:6443-6445.")
public final class DemoCommand implements Callable<Integer> {
  /** The demo nodes and their plugin sets: node-a is "old", node-b and node-c are "new". */
  static final Map<String, String> NODES = orderedNodes();

  private static Map<String, String> orderedNodes() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("node-a", "widgets-old");
    m.put("node-b", "widgets-new");
    m.put("node-c", "widgets-new");
    return java.util.Collections.unmodifiableMap(m);
  }

  @Option(names = "--home", description = "mvproxy checkout (default: the mvproxy.home property or the current folder).")
  Path home;

  @Option(names = "--ready-timeout", defaultValue = "90", description = "Seconds to wait for every node to be ready.")
  int readyTimeout;

  @Override
  public Integer call() throws Exception {
    Path root = (home != null ? home : Path.of(System.getProperty("mvproxy.home", "."))).toAbsolutePath().normalize();
    Path conf = root.resolve("conf");
    Path run = root.resolve("run");
    DevPki pki = new DevPki(conf.resolve("pki"));
    pki.generate(new ArrayList<>(NODES.keySet()), List.of(), Map.of());
    PluginPacker packer = new PluginPacker();
    for (Map.Entry<String, String> n : NODES.entrySet()) {
      Path dir = run.resolve("plugins").resolve(n.getKey());
      Files.createDirectories(dir);
      try (Stream<Path> s = Files.list(root.resolve("plugins/examples").resolve(n.getValue()))) {
        packer.pack(dir.resolve(n.getValue() + ".jar"), n.getValue(), "demo", s.sorted().toList());
      }
    }
    // the example code plugin (built by Maven) goes to node-c only: an API served by one node of the fleet
    Path clock = root.resolve("plugins/examples/clock-plugin/target/mvproxy-clock-plugin.jar");
    if (Files.exists(clock)) {
      Files.copy(clock, run.resolve("plugins/node-c/clock-plugin.jar"), StandardCopyOption.REPLACE_EXISTING);
    } else {
      System.err.println("mvproxy demo: " + clock + " not built; node-c runs without the code plugin");
    }
    Files.createDirectories(run.resolve("logs"));
    List<Process> children = new ArrayList<>();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> stopAll(children), "mvproxy-demo-stop"));
    for (String n : NODES.keySet()) {
      children.add(spawn(conf.resolve(n + ".json"), run.resolve("logs").resolve(n + ".log")));
    }
    long deadline = System.currentTimeMillis() + readyTimeout * 1000L;
    for (String n : NODES.keySet()) {
      Path log = run.resolve("logs").resolve(n + ".log");
      while (!Files.readString(log).contains("ready on https://")) {
        int idx = new ArrayList<>(NODES.keySet()).indexOf(n);
        if (!children.get(idx).isAlive()) {
          System.err.println(n + " exited; see " + log + ":\n" + Files.readString(log));
          stopAll(children);
          return 1;
        }
        if (System.currentTimeMillis() > deadline) {
          System.err.println(n + " not ready after " + readyTimeout + " s; see " + log);
          stopAll(children);
          return 1;
        }
        Thread.sleep(200);
      }
    }
    String kc = pki.kubeconfig().toString();
    System.out.println("""

        mvproxy demo fleet is up (logs in %s):
          node-a  https://127.0.0.1:6443  plugins: widgets-old (demo.mvproxy.io/v1 widgets)
          node-b  https://127.0.0.1:6444  plugins: widgets-new (widgets v2+v1, gadgets v1)
          node-c  https://127.0.0.1:6445  plugins: widgets-new, clock-plugin (code: time.example.com/v1 clocks)

        kubeconfig: %s   (contexts node-a, node-b, node-c)
        Try:
          kubectl --kubeconfig %s --context node-b apply -f %s
          kubectl --kubeconfig %s --context node-a get widgets.v2.demo.mvproxy.io    # node-a lacks v2: proxied
          kubectl --kubeconfig %s --context node-a api-resources                     # the fleet's union
          kubectl --kubeconfig %s --context node-a get --raw /apis                   # legacy, peer-aware
          kubectl --kubeconfig %s --context node-a get clocks                        # code plugin on node-c only
          kubectl --kubeconfig %s --context node-a get apiservernodes,plugins        # the fleet's state
        Ctrl-C stops every node.
        """.formatted(run.resolve("logs"), kc, kc, root.resolve("plugins/examples/widget-sample.yaml"), kc, kc, kc, kc, kc));
    for (Process p : children) {
      p.waitFor();
    }
    return 0;
  }

  private static Process spawn(Path config, Path log) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(JvmFlags.HAZELCAST);
    cmd.add("-Xmx512m");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(Main.class.getName());
    cmd.add("serve");
    cmd.add("--config");
    cmd.add(config.toString());
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  private static void stopAll(List<Process> children) {
    children.forEach(Process::destroy);
    for (Process p : children) {
      try {
        if (!p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

}
