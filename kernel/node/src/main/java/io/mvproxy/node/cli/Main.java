package io.mvproxy.node.cli;

import io.mvproxy.node.MvproxyVersion;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code bin/mvproxy}: the command-line entry point. Subcommands: {@code serve}, {@code pki}, {@code plugin pack},
 * {@code demo}. Exit codes: 0 success, 1 runtime failure, 2 bad arguments or configuration.
 */
@Command(name = "mvproxy", mixinStandardHelpOptions = true, version = "mvproxy " + MvproxyVersion.VERSION,
    description = "Kubernetes Mixed Version Proxy (KEP-4020) fleet node.",
    subcommands = {ServeCommand.class, PkiCommand.class, PluginCommand.class, DemoCommand.class})
public final class Main implements Runnable {

  /** @param args command line */
  public static void main(String[] args) {
    int code = new CommandLine(new Main()).execute(args);
    if (code != 0 || args.length == 0 || !"serve".equals(args[0]) && !"demo".equals(args[0])) {
      System.exit(code);
    }
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }
}
