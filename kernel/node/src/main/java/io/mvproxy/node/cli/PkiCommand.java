package io.mvproxy.node.cli;

import io.mvproxy.security.DevPki;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code mvproxy pki --dir DIR --nodes a,b,c [--ips ...] [--base-port 6443]}: a development PKI (cluster CA,
 * front-proxy CA, serving and proxy-client certificates per node, an admin client certificate, a kubeconfig with
 * one context per node). Existing files are kept.
 */
@Command(name = "pki", mixinStandardHelpOptions = true, description = "Create a development PKI and kubeconfig.")
public final class PkiCommand implements Callable<Integer> {
  @Option(names = "--dir", required = true, description = "Output folder.")
  Path dir;

  @Option(names = "--nodes", required = true, split = ",", description = "Node names, comma-separated.")
  List<String> nodes;

  @Option(names = "--ips", split = ",", description = "Extra IP/DNS subject alternative names for every node.")
  List<String> ips = new ArrayList<>();

  @Option(names = "--base-port", defaultValue = "6443",
      description = "Port of the first node in the kubeconfig; the next nodes get the next ports.")
  int basePort;

  @Option(names = "--server", split = ",", description = "node=URL overrides for kubeconfig servers.")
  Map<String, String> servers = new LinkedHashMap<>();

  @Override
  public Integer call() throws Exception {
    Map<String, String> urls = new LinkedHashMap<>();
    for (int i = 0; i < nodes.size(); i++) {
      urls.put(nodes.get(i), servers.getOrDefault(nodes.get(i), "https://127.0.0.1:" + (basePort + i)));
    }
    DevPki pki = new DevPki(dir);
    List<Path> made = pki.generate(nodes, ips, urls);
    made.forEach(p -> System.out.println("wrote " + p));
    System.out.println("kubeconfig: " + pki.kubeconfig());
    return 0;
  }
}
