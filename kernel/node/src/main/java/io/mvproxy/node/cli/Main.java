package io.mvproxy.node.cli;

import io.mvproxy.node.MvproxyVersion;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code bin/mvproxy}: the command-line entry point. Subcommands: {@code serve}, {@code pki}, {@code plugin pack},
 * {@code demo}, {@code rehearse}, and the hidden {@code cds-archive} ({@code bin/mvproxy} and the Dockerfile make the
 * class-data archive with it). Exit codes: 0 success, 1 runtime failure, 2 bad arguments or configuration.
 */
@Command(name = "mvproxy", mixinStandardHelpOptions = true, version = "mvproxy " + MvproxyVersion.VERSION,
    description = "Kubernetes Mixed Version Proxy (KEP-4020) fleet node.",
    subcommands = {ServeCommand.class, PkiCommand.class, PluginCommand.class, DemoCommand.class,
        RehearseCommand.class, CdsArchiveCommand.class})
public final class Main implements Runnable {
  /** Hazelcast's own chatter is kept at WARNING (held here: JUL loggers are weakly referenced). */
  private static final java.util.logging.Logger HAZELCAST_LOG = quiet("com.hazelcast");

  private static java.util.logging.Logger quiet(String name) {
    java.util.logging.Logger l = java.util.logging.Logger.getLogger(name);
    if (System.getProperty("mvproxy.hazelcast.verbose") == null) {
      l.setLevel(java.util.logging.Level.WARNING);
    }
    return l;
  }

  /** @param args command line */
  public static void main(String[] args) {
    System.setProperty("java.util.logging.SimpleFormatter.format",
        System.getProperty("java.util.logging.SimpleFormatter.format", "%1$tFT%1$tT.%1$tLZ %4$s %3$s: %5$s%6$s%n"));
    HAZELCAST_LOG.fine("logging configured");
    int code = commandLine().execute(args);
    if (code != 0 || args.length == 0 || !"serve".equals(args[0]) && !"demo".equals(args[0])) {
      System.exit(code);
    }
  }

  /** @return the command line, with the flag reference as the footer of {@code serve --help} */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Main());
    // 120 columns: the longest flag with its JSON key (91 characters) stays on one line
    cl.getSubcommands().get("serve").getCommandSpec().usageMessage().width(120)
        .footer("", "Flags (JSON key in parentheses); they override the --config file:", ServeCommand.flagReference());
    return cl;
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }
}
