package io.mvproxy.node.audit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The log backend ({@code --audit-log-path}): one {@code audit.k8s.io/v1} Event per line, JSON, on stdout for
 * {@code -} or in a {@link RotatingFile}. {@link #process} never blocks: events go to a bounded queue
 * ({@code --audit-log-batch-buffer-size}) drained by one daemon writer thread, which encodes and writes them in
 * order; a full queue drops the event and counts it in {@code apiserver_audit_error_total{plugin="log"}} (as
 * kube-apiserver's buffered backend). A write error (disk full, folder removed) is counted the same way and logged at
 * most once a minute; the next event reopens the file. Nothing here can stop the node.
 */
public final class AuditLogBackend implements AuditSink {
  private static final Logger LOG = Logger.getLogger(AuditLogBackend.class.getName());
  private static final JsonObject STOP = new JsonObject();
  private final BlockingQueue<JsonObject> queue;
  private final RotatingFile file;
  private final OutputStream stdout;
  private final Counter errors;
  private final Thread writer;
  private long lastWarning;
  private volatile boolean closed;

  /**
   * @param path       the log file, or {@code -} for stdout
   * @param maxSizeMb  {@code --audit-log-maxsize} (0 = 100 MB)
   * @param maxBackups {@code --audit-log-maxbackup} (0 = keep all)
   * @param maxAgeDays {@code --audit-log-maxage} (0 = keep forever)
   * @param bufferSize events queued before drops (at least 1)
   * @param registry   where {@code apiserver_audit_event_total} and {@code apiserver_audit_error_total} go
   */
  public AuditLogBackend(String path, int maxSizeMb, int maxBackups, int maxAgeDays, int bufferSize,
                         MeterRegistry registry) {
    this.queue = new ArrayBlockingQueue<>(Math.max(1, bufferSize));
    this.file = "-".equals(path) ? null : new RotatingFile(java.nio.file.Path.of(path), maxSizeMb, maxBackups,
        maxAgeDays, java.time.Clock.systemUTC());
    this.stdout = "-".equals(path) ? new java.io.FileOutputStream(java.io.FileDescriptor.out) : null;
    this.errors = Counter.builder("apiserver_audit_error_total").description("Counter of audit events that failed to "
        + "be audited properly. Plugin identifies the plugin affected by the error.").tag("plugin", "log")
        .register(registry);
    this.writer = new Thread(this::drain, "audit-log-writer");
    writer.setDaemon(true);
    writer.start();
  }

  /**
   * Queues one event; never blocks.
   *
   * @param event the Event (not changed afterwards by the caller)
   * @return false when the queue was full (or the backend closed) and the event was dropped
   */
  @Override
  public boolean process(JsonObject event) {
    if (closed || !queue.offer(event)) {
      errors.increment();
      return false;
    }
    return true;
  }

  /** @return events dropped or not written so far */
  public long errors() {
    return (long) errors.count();
  }

  private void drain() {
    while (true) {
      JsonObject ev;
      try {
        ev = queue.poll(1, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        return;
      }
      if (ev == null) {
        continue;
      }
      if (ev == STOP) {
        flush();
        if (file != null) {
          file.close();
        }
        return;
      }
      write(ev);
      if (queue.isEmpty()) {
        flush();
      }
    }
  }

  private void write(JsonObject ev) {
    byte[] line = (ev.encode() + "\n").getBytes(StandardCharsets.UTF_8);
    try {
      if (file != null) {
        file.write(line);
      } else {
        stdout.write(line);
      }
    } catch (IOException | RuntimeException e) {
      errors.increment();
      warn(e);
    }
  }

  private void flush() {
    try {
      if (file != null) {
        file.flush();
      } else {
        stdout.flush();
      }
    } catch (IOException e) {
      errors.increment();
      warn(e);
    }
  }

  private void warn(Exception e) {
    long now = System.currentTimeMillis();
    if (now - lastWarning > 60_000) {
      lastWarning = now;
      LOG.log(Level.WARNING, "audit log: cannot write events (" + e + "); events are dropped until it works again "
          + "(apiserver_audit_error_total{plugin=\"log\"})");
    }
  }

  /** Writes what is queued (waiting at most 5 s), then closes the file. */
  @Override
  public void close() {
    closed = true;
    // room was made by the writer or the event is dropped: the queue never blocks the caller
    while (!queue.offer(STOP) && writer.isAlive()) {
      Thread.onSpinWait();
    }
    try {
      writer.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
