package io.mvproxy.node.cli;

import io.mvproxy.node.Node;
import io.mvproxy.node.config.ConfigException;
import io.mvproxy.node.config.ConfigKey;
import io.mvproxy.node.config.ConfigLoader;
import io.mvproxy.node.config.NodeConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/**
 * {@code mvproxy serve --config FILE [--flag=value ...]}: runs one node until SIGTERM/SIGINT. Flags use
 * kube-apiserver names and override the JSON file (keys: their camelCase forms, see {@link ConfigKey}).
 * Bad configuration: message naming the key on stderr, exit 2.
 */
@Command(name = "serve", description = "Run one mvproxy node.")
public final class ServeCommand implements Callable<Integer> {
  @Option(names = "--config", description = "JSON config file; flags override its keys.")
  Path config;

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
  boolean help;

  @Unmatched
  List<String> flags = new ArrayList<>();

  /** @return the flag reference for help and the README */
  public static String flagReference() {
    StringBuilder b = new StringBuilder();
    for (ConfigKey k : ConfigKey.values()) {
      b.append(String.format("  %-34s %s%s%n", k.flag() + " (" + k.json() + ")", k.help(),
          k.defaultValue() == null || k.defaultValue().isEmpty() ? "" : " Default: " + k.defaultValue() + "."));
    }
    return b.toString();
  }

  @Override
  public Integer call() throws Exception {
    NodeConfig cfg;
    try {
      cfg = ConfigLoader.load(config, flags);
    } catch (ConfigException e) {
      System.err.println("mvproxy: invalid configuration: " + e.getMessage());
      return 2;
    }
    if ("json".equals(cfg.loggingFormat())) {
      for (java.util.logging.Handler h : java.util.logging.Logger.getLogger("").getHandlers()) {
        h.setFormatter(new io.mvproxy.node.logging.JsonLogFormatter());
      }
    }
    Node node;
    try {
      node = Node.start(cfg).toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof ConfigException) {
        System.err.println("mvproxy: invalid configuration: " + c.getMessage());
        return 2;
      }
      System.err.println("mvproxy: node failed to start: " + c);
      return 1;
    }
    CompletableFuture<Void> stopped = new CompletableFuture<>();
    Runnable stop = () -> {
      try {
        node.stop().toCompletionStage().toCompletableFuture()
            .get(cfg.shutdownGracePeriod().toSeconds() + 10, TimeUnit.SECONDS);
      } catch (Exception e) {
        System.err.println("mvproxy: unclean shutdown: " + e);
      }
      stopped.complete(null);
    };
    // SIGTERM / SIGINT: graceful stop, then exit 0 (a JVM killed through its shutdown hooks would exit 143)
    for (String sig : new String[] {"TERM", "INT"}) {
      sun.misc.Signal.handle(new sun.misc.Signal(sig), s -> new Thread(() -> {
        stop.run();
        System.exit(0);
      }, "mvproxy-shutdown").start());
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      if (!stopped.isDone()) {
        stop.run();
      }
    }, "mvproxy-shutdown-hook"));
    System.out.println("mvproxy node " + cfg.serverId() + " ready on https://" + cfg.bindAddress() + ":"
        + node.port());
    stopped.join();
    return 0;
  }
}
