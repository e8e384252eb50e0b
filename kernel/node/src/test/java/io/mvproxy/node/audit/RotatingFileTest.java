package io.mvproxy.node.audit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Stream;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Rotation as lumberjack (kube-apiserver's --audit-log-max*), and the log backend never failing its caller. */
@Tag("unit")
class RotatingFileTest {
  /** A clock the test moves. */
  static final class TestClock extends Clock {
    Instant now = Instant.parse("2026-01-02T03:04:05.678Z");

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  static List<String> names(Path dir) throws Exception {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void rotatesBySizeKeepsMaxBackupsAndDropsOldOnes(@TempDir Path dir) throws Exception {
    TestClock clock = new TestClock();
    byte[] line = new byte[400 * 1024];
    java.util.Arrays.fill(line, (byte) 'x');
    try (RotatingFile f = new RotatingFile(dir.resolve("audit.log"), 1, 2, 0, clock)) {
      f.write(line);
      f.write(line);
      assertEquals(List.of("audit.log"), names(dir));
      f.write(line); // 1.2 MB > 1 MB: rotate first
      f.flush();
      assertEquals(List.of("audit-2026-01-02T03-04-05.678.log", "audit.log"), names(dir));
      assertEquals(line.length, Files.size(dir.resolve("audit.log")));
      for (int i = 1; i <= 3; i++) {
        clock.now = clock.now.plusSeconds(60);
        f.write(line);
        f.write(line);
      }
      f.flush();
      // four rotations happened; only the 2 newest backups remain
      assertEquals(List.of("audit-2026-01-02T03-06-05.678.log", "audit-2026-01-02T03-07-05.678.log", "audit.log"),
          names(dir));
      f.write(line);
      f.write(line); // a second rotation within the same millisecond does not overwrite the first backup
      f.flush();
      assertEquals(List.of("audit-2026-01-02T03-07-05.678.log", "audit-2026-01-02T03-07-05.679.log", "audit.log"),
          names(dir));
    }
    assertEquals(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"),
        Files.getPosixFilePermissions(dir.resolve("audit.log")), "a new log file is 0600, as lumberjack's");
  }

  @Test
  void maxAgeRemovesBackupsOlderThanItsDays(@TempDir Path dir) throws Exception {
    TestClock clock = new TestClock();
    Files.writeString(dir.resolve("audit-2025-12-01T00-00-00.000.log"), "old");
    Files.writeString(dir.resolve("audit-2026-01-01T00-00-00.000.log"), "recent");
    Files.writeString(dir.resolve("other-2025-12-01T00-00-00.000.log"), "not ours");
    try (RotatingFile f = new RotatingFile(dir.resolve("audit.log"), 1, 0, 7, clock)) {
      byte[] line = new byte[600 * 1024];
      f.write(line);
      f.write(line);
    }
    assertEquals(List.of("audit-2026-01-01T00-00-00.000.log", "audit-2026-01-02T03-04-05.678.log", "audit.log",
        "other-2025-12-01T00-00-00.000.log"), names(dir));
  }

  @Test
  void backendWritesJsonLinesAndSurvivesAnUnwritableFile(@TempDir Path dir) throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Path log = dir.resolve("logs/audit.log");
    AuditLogBackend b = new AuditLogBackend(log.toString(), 0, 0, 0, 100, registry);
    for (int i = 0; i < 3; i++) {
      assertTrue(b.process(new JsonObject().put("kind", "Event").put("i", i)));
    }
    within10s().until(() -> lines(log).size() == 3);
    assertEquals(2, new JsonObject(lines(log).get(2)).getInteger("i"));
    b.close();
    assertEquals(0, b.errors());

    // the log's folder is a file: every write fails, is counted, and process() still returns at once
    Path blocked = dir.resolve("blocked");
    Files.writeString(blocked, "a file, not a folder");
    AuditLogBackend broken = new AuditLogBackend(blocked.resolve("audit.log").toString(), 0, 0, 0, 100, registry);
    long t0 = System.nanoTime();
    for (int i = 0; i < 5; i++) {
      broken.process(new JsonObject().put("i", i));
    }
    assertTrue(Duration.ofNanos(System.nanoTime() - t0).toMillis() < 1000);
    within10s().until(() -> broken.errors() >= 5);
    broken.close();

    // a full queue drops instead of waiting
    AuditLogBackend tiny = new AuditLogBackend(dir.resolve("tiny.log").toString(), 0, 0, 0, 1,
        new SimpleMeterRegistry());
    int accepted = 0;
    for (int i = 0; i < 10_000; i++) {
      accepted += tiny.process(new JsonObject().put("i", i).put("pad", "y".repeat(200))) ? 1 : 0;
    }
    tiny.close();
    assertEquals(10_000, accepted + tiny.errors());
    assertEquals(accepted, lines(dir.resolve("tiny.log")).size());
    assertTrue(tiny.errors() > 0, "a one-slot queue fed 10000 events in a loop drops some");
  }

  static List<String> lines(Path p) {
    try {
      return Files.exists(p) ? Files.readAllLines(p, StandardCharsets.UTF_8) : List.of();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Polls a condition every 10 ms for up to 10 s; a time-out fails with "condition not met in 10 s". */
  static ConditionFactory within10s() {
    return await("condition not met in 10 s").pollInSameThread().pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(10)).atMost(Duration.ofSeconds(10));
  }
}
