package io.mvproxy.node.audit;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A size-rotated log file with kube-apiserver's {@code --audit-log-maxsize/-maxbackup/-maxage} semantics (it uses
 * {@code gopkg.in/natefinch/lumberjack.v2}): a write that would take the file past {@code maxSizeMb} megabytes first
 * renames it to {@code <name>-<UTC time 2006-01-02T15-04-05.000><ext>} in the same folder and starts a new one
 * (mode 0600); then backups beyond {@code maxBackups} (newest kept) and older than {@code maxAgeDays} are deleted.
 * {@code maxSizeMb} 0 means lumberjack's default, 100 MB; {@code maxBackups} 0 keeps every backup; {@code maxAgeDays}
 * 0 removes none by age. Not thread-safe: one writer thread.
 */
public final class RotatingFile implements AutoCloseable {
  private static final DateTimeFormatter BACKUP_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH-mm-ss.SSS");
  private final Path file;
  private final long maxBytes;
  private final int maxBackups;
  private final int maxAgeDays;
  private final Clock clock;
  private final String prefix;
  private final String ext;
  private OutputStream out;
  private long size;

  /**
   * @param file       the log file (its folder is created when missing)
   * @param maxSizeMb  megabytes before rotation, 0 = 100
   * @param maxBackups rotated files kept, 0 = all
   * @param maxAgeDays days rotated files are kept, 0 = forever
   * @param clock      the clock naming backups and aging them
   */
  public RotatingFile(Path file, int maxSizeMb, int maxBackups, int maxAgeDays, Clock clock) {
    this.file = file.toAbsolutePath();
    this.maxBytes = (maxSizeMb == 0 ? 100L : maxSizeMb) * 1024 * 1024;
    this.maxBackups = maxBackups;
    this.maxAgeDays = maxAgeDays;
    this.clock = clock;
    String name = this.file.getFileName().toString();
    int dot = name.lastIndexOf('.');
    this.prefix = (dot > 0 ? name.substring(0, dot) : name) + "-";
    this.ext = dot > 0 ? name.substring(dot) : "";
  }

  /**
   * Appends bytes, rotating first when they would not fit (a single write larger than the limit is refused, as
   * lumberjack does).
   *
   * @param b the bytes (one or more whole lines)
   * @throws IOException when the file cannot be opened, rotated or written (the next write tries again)
   */
  public void write(byte[] b) throws IOException {
    if (b.length > maxBytes) {
      throw new IOException("write length " + b.length + " exceeds maximum file size " + maxBytes);
    }
    if (out == null) {
      open();
    }
    if (size + b.length > maxBytes) {
      rotate();
    }
    try {
      out.write(b);
      size += b.length;
    } catch (IOException e) {
      closeQuietly();
      throw e;
    }
  }

  /** Flushes buffered bytes. @throws IOException on a write error */
  public void flush() throws IOException {
    if (out != null) {
      out.flush();
    }
  }

  private void open() throws IOException {
    Files.createDirectories(file.getParent());
    if (!Files.exists(file)) {
      try {
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      } catch (UnsupportedOperationException e) {
        Files.createFile(file);
      }
    }
    size = Files.size(file);
    out = new java.io.BufferedOutputStream(Files.newOutputStream(file, StandardOpenOption.APPEND,
        StandardOpenOption.WRITE), 64 * 1024);
  }

  private void rotate() throws IOException {
    closeQuietly();
    Instant at = clock.instant();
    Path backup;
    do { // two rotations within one millisecond: the later backup is named a millisecond on
      backup = file.resolveSibling(prefix + LocalDateTime.ofInstant(at, ZoneOffset.UTC).format(BACKUP_TIME) + ext);
      at = at.plusMillis(1);
    } while (Files.exists(backup));
    Files.move(file, backup);
    open();
    removeOld();
  }

  /** Deletes backups beyond the count and age limits (lumberjack's {@code millRunOnce}). */
  void removeOld() throws IOException {
    if (maxBackups == 0 && maxAgeDays == 0) {
      return;
    }
    List<Path[]> backups = new ArrayList<>();
    List<Instant> times = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(file.getParent())) {
      for (Path p : ds) {
        Instant t = backupTime(p.getFileName().toString());
        if (t != null) {
          backups.add(new Path[] {p});
          times.add(t);
        }
      }
    }
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < backups.size(); i++) {
      order.add(i);
    }
    order.sort(Comparator.comparing((Integer i) -> times.get(i)).reversed());
    Instant cutoff = clock.instant().minus(java.time.Duration.ofDays(maxAgeDays));
    for (int k = 0; k < order.size(); k++) {
      int i = order.get(k);
      if (maxBackups > 0 && k >= maxBackups || maxAgeDays > 0 && times.get(i).isBefore(cutoff)) {
        Files.deleteIfExists(backups.get(i)[0]);
      }
    }
  }

  /** @return the time in a backup's name, or null when {@code name} is not one of this file's backups */
  Instant backupTime(String name) {
    if (!name.startsWith(prefix) || !name.endsWith(ext) || name.length() != prefix.length() + 23 + ext.length()) {
      return null;
    }
    try {
      return LocalDateTime.parse(name.substring(prefix.length(), prefix.length() + 23), BACKUP_TIME)
          .toInstant(ZoneOffset.UTC);
    } catch (java.time.format.DateTimeParseException e) {
      return null;
    }
  }

  private void closeQuietly() {
    if (out != null) {
      try {
        out.close();
      } catch (IOException ignored) {
        // the next write reopens
      }
      out = null;
    }
  }

  @Override
  public void close() {
    closeQuietly();
  }
}
