package io.mvproxy.node.cli;

import io.mvproxy.node.plugin.PluginPacker;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code mvproxy plugin pack --out FILE.jar FILE.yaml...}: turns manifests into a plugin jar (no code needed). */
@Command(name = "plugin", mixinStandardHelpOptions = true, description = "Plugin tools.",
    subcommands = PluginCommand.Pack.class)
public final class PluginCommand implements Runnable {
  @Override
  public void run() {
    new picocli.CommandLine(this).usage(System.out);
  }

  /** The {@code pack} subcommand. */
  @Command(name = "pack", mixinStandardHelpOptions = true,
      description = "Pack CRD / APIService manifests into a plugin jar.")
  public static final class Pack implements Callable<Integer> {
    @Option(names = "--out", required = true, description = "The jar to write.")
    Path out;

    @Option(names = "--name", description = "Plugin name (default: jar file name).")
    String name;

    @Option(names = "--version", description = "Plugin version.", defaultValue = "")
    String version;

    @Parameters(arity = "1..*", description = "Manifest files (YAML or JSON, multi-document allowed).")
    List<Path> manifests;

    @Override
    public Integer call() throws Exception {
      try {
        new PluginPacker().pack(out, name, version, manifests);
      } catch (IllegalArgumentException e) {
        System.err.println("mvproxy plugin pack: " + e.getMessage());
        return 2;
      }
      System.out.println("wrote " + out);
      return 0;
    }
  }
}
