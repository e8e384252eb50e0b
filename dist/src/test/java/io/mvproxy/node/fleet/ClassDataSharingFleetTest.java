package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.node.cli.JvmFlags;
import io.mvproxy.node.cli.Main;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The class-data archive ({@code mvproxy cds-archive}, README "Where a restart's time goes"): made by the training
 * start with the node's shipped class path, a node started from it takes its own classes from the archive, logs the
 * same start-up stages as a node started without it and serves (its peer proxies to it); a damaged archive only
 * costs the time it would have saved (-Xshare:auto), and {@code cds-archive}'s strict check refuses it.
 */
@Tag("fleet")
class ClassDataSharingFleetTest {
  private static final Pattern STAGES = Pattern.compile("start-up stages of node \\S+: (.*)");

  @Test
  void aNodeStartedFromTheArchiveServesWithTheSameStages() throws Exception {
    Path tmp = Files.createTempDirectory("mvproxy-cds-test");
    Path archive = tmp.resolve("node.jsa");
    try {
      trainAndStart(tmp, archive);
    } finally {
      Files.deleteIfExists(archive); // about 62 MiB; the logs stay
    }
  }

  private static void trainAndStart(Path tmp, Path archive) throws Exception {
    String classPath = FleetHarness.nodeClassPath();
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(JvmFlags.HAZELCAST);
    cmd.addAll(List.of("-Dmvproxy.home=" + TestData.repoRoot(), "-cp", classPath, Main.class.getName(),
        "cds-archive", "--out", archive.toString(), "--dir", tmp.resolve("training").toString()));
    Path trainingLog = tmp.resolve("training.log");
    Process training = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(trainingLog.toFile()).start();
    assertTrue(training.waitFor(400, TimeUnit.SECONDS), "the training did not finish in 400 s");
    assertEquals(0, training.exitValue(), Files.readString(trainingLog));
    assertTrue(Files.size(archive) > 1 << 20, "archive of " + Files.size(archive) + " bytes");

    Map<String, Map<String, List<Path>>> plugins = new LinkedHashMap<>();
    plugins.put("node-a", Map.of());
    plugins.put("node-b", Map.of("widgets-new", TestData.newWidgets()));
    try (FleetHarness fleet = new FleetHarness(tmp.resolve("fleet"), plugins)) {
      Path loaded = tmp.resolve("node-b-classes.txt");
      fleet.jvmOptions("node-b", List.of("-XX:SharedArchiveFile=" + archive, "-Xshare:auto",
          "-Xlog:class+load=info:file=" + loaded));
      HttpsClient admin = fleet.admin();
      fleet.startAllAndAwaitReady(admin, 180_000);
      String a = fleet.node("node-a").url();
      // node-a lacks widgets: it answers through node-b, whose classes came from the archive
      FleetTest.await("node-a proxies widgets to node-b", 60_000,
          () -> admin.get(a, FleetTest.WIDGETS_V2).status() == 200);
      String classes = Files.readString(loaded);
      assertTrue(classes.contains("io.mvproxy.node.NodeBoot source: shared objects file (top)"),
          "node-b did not take its classes from the archive");
      assertEquals(stageNames(fleet.node("node-a").log()), stageNames(fleet.node("node-b").log()));

      // a damaged archive: refused by the strict check, skipped by a node (it starts and serves without it)
      Path damaged = tmp.resolve("damaged.jsa");
      Files.write(damaged, new byte[64 * 1024]);
      assertTrue(!io.mvproxy.node.cli.CdsArchiveCommand.usable(damaged, classPath));
      fleet.stop("node-b");
      fleet.jvmOptions("node-b", List.of("-XX:SharedArchiveFile=" + damaged, "-Xshare:auto"));
      fleet.start("node-b");
      fleet.awaitStarted("node-b", 180_000);
      String b = fleet.node("node-b").url();
      FleetTest.await("node-b ready without the archive", 60_000, () -> admin.get(b, "/readyz").status() == 200);
      FleetTest.await("node-a proxies widgets to node-b again", 60_000,
          () -> admin.get(a, FleetTest.WIDGETS_V2).status() == 200);
    }
  }

  /** @return the stage names of a node's {@code start-up stages} line, durations removed */
  private static List<String> stageNames(String log) {
    Matcher m = STAGES.matcher(log);
    assertTrue(m.find(), "no start-up stages in:\n" + log);
    List<String> names = new ArrayList<>();
    for (String stage : m.group(1).split(", (?![^(]*\\))")) {
      names.add(stage.replaceAll(" \\d+ ms", ""));
    }
    return names;
  }
}
