package io.mvproxy.node;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * How long each start-up stage took, in milliseconds, for the node's "started" log line: where the time between
 * {@code SIGTERM} of an old process and a restarted node serving its API set goes (README "Start-up"). The first stage
 * is the JVM's own start (class loading, configuration) up to {@link #StartupStages()}. Thread-safe.
 */
final class StartupStages {
  private final List<String> stages = new ArrayList<>();
  private long last = System.nanoTime();

  /** Starts the clock; the JVM's uptime so far is the first stage. */
  StartupStages() {
    stages.add("jvm " + ManagementFactory.getRuntimeMXBean().getUptime() + " ms");
  }

  /**
   * Ends a stage that began where the previous one ended.
   *
   * @param stage its name, e.g. {@code cluster join}
   */
  synchronized void mark(String stage) {
    long now = System.nanoTime();
    stages.add(stage + " " + (now - last) / 1_000_000 + " ms");
    last = now;
  }

  /** @return the stages in order, e.g. {@code jvm 1900 ms, cluster join 2300 ms, ...} */
  synchronized String summary() {
    return String.join(", ", stages);
  }
}
