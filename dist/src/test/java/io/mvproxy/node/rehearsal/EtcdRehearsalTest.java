package io.mvproxy.node.rehearsal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mvproxy.node.cli.LocalEtcd;
import io.mvproxy.node.fleet.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The upgrade rehearsal of {@link RehearsalTest} on etcd ({@code --storage etcd}): each run (gate on, gate off)
 * starts its own etcd process (the {@code etcd} binary on {@code PATH}, Debian's {@code etcd-server}, which
 * {@code .ci/run} installs) on free loopback ports with an empty data folder, and the nodes run with
 * {@code --storage-backend=etcd3}. Same short settings and the same verdicts: gate on, no false 404, no dependent of
 * a live owner collected, no namespace finished with content; gate off, false 404s. The HTML report is written and
 * checked for what it must hold, not opened in the browser again ({@link RehearsalTest} does that). Skipped, naming
 * the package, when there is no etcd binary.
 */
@Tag("fleet")
class EtcdRehearsalTest extends RehearsalTest {
  @Override
  RehearsalSettings settings(Path dir) {
    Assumptions.assumeTrue(LocalEtcd.findBinary() != null, "no etcd on PATH: " + LocalEtcd.INSTALL_HINT);
    return RehearsalSettings.shortRun(dir, TestData.repoRoot(), "etcd");
  }

  /** The report of the etcd runs names the storage and lists the runs (the browser half is RehearsalTest's). */
  @Override
  @Test
  void reportOpensInHeadlessChromium() throws Exception {
    Path html = Files.createTempFile("mvproxy-rehearsal-etcd", ".html");
    HtmlReport.write(html, "mvproxy upgrade rehearsal on etcd", Rehearsal.describe(settings), on, off);
    String page = Files.readString(html);
    assertTrue(page.contains("on the etcd storage") && page.contains("non2xx-gate-on")
        && page.contains("non2xx-gate-off"), "the report names the storage and holds both runs");
    Files.delete(html);
  }
}
