package io.mvproxy.node.rehearsal;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Settings of one rehearsal.
 *
 * @param dir             scratch folder (PKI, configs, plugin folders, node logs of each run)
 * @param home            the mvproxy checkout holding {@code plugins/examples}
 * @param soak            traffic time before the first upgrade, after each node's upgrade and after the last
 * @param namespacePeriod time between two namespaces created and deleted
 * @param drain           longest wait after the traffic for deleted namespaces and collected dependents
 * @param startTimeout    longest wait for a node to be ready
 * @param nodeHeap        {@code -Xmx} of each node
 */
public record RehearsalSettings(Path dir, Path home, Duration soak, Duration namespacePeriod, Duration drain,
                                Duration startTimeout, String nodeHeap) {
  /**
   * @param dir  scratch folder
   * @param home checkout
   * @return the CI settings: 8 s soaks, a namespace every 2 s, 40 s drain, a start-up limit of 300 s (a loaded 2-core machine), 384 MiB heaps
   */
  public static RehearsalSettings shortRun(Path dir, Path home) {
    return new RehearsalSettings(dir, home, Duration.ofSeconds(8), Duration.ofSeconds(2), Duration.ofSeconds(40),
        Duration.ofSeconds(300), "384m");
  }
}
