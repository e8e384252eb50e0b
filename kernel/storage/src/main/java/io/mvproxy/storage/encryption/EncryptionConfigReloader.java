package io.mvproxy.storage.encryption;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * {@code --encryption-provider-config-automatic-reload}, as kube-apiserver's {@code DynamicEncryptionConfigContent}
 * ({@code apiserver/pkg/server/options/encryptionconfig/controller/controller.go}): each {@link #check()} (the node
 * runs one every {@link #POLL_PERIOD_MS}, off the event loop) reads the file, and when its content hash differs
 * from the configuration in force and it parses, hands the new configuration over; a file that no longer parses
 * (or cannot be read) is a failed reload: the configuration in force stays, the failure is logged and counted, and
 * the next check tries again. Rotating a key is the documented sequence: add the new key as a second provider on
 * every node, then make it first, then rewrite the objects (an update of an object read with another key than the
 * first writes it again, re-encrypted), then drop the old key.
 */
public final class EncryptionConfigReloader {
  /** kube-apiserver's {@code EncryptionConfigFileChangePollDuration}: the file is checked once a minute. */
  public static final long POLL_PERIOD_MS = 60_000;
  private static final Logger LOG = Logger.getLogger(EncryptionConfigReloader.class.getName());

  /** What a check did. */
  public enum Outcome {
    /** The file's content is the configuration in force. */
    UNCHANGED,
    /** A changed file was parsed and put in force. */
    RELOADED,
    /** A changed file could not be read or parsed: the configuration in force stays. */
    FAILED
  }

  private final Path file;
  private final Consumer<EncryptionConfig> apply;
  private String appliedHash;
  private long successes;
  private long failures;
  private String lastError;

  /**
   * @param file    the {@code --encryption-provider-config} file
   * @param initial the configuration the node started with ({@link EncryptionConfig#contentHash()} is the content in
   *                force: a file with the same content is not reloaded, nor counted)
   * @param apply   puts a reloaded configuration in force (e.g. {@code NodeStorage::reloadEncryption})
   */
  public EncryptionConfigReloader(Path file, EncryptionConfig initial, Consumer<EncryptionConfig> apply) {
    this.file = file;
    this.apply = apply;
    this.appliedHash = initial.contentHash();
  }

  /**
   * Reads the file and reloads it when its content changed. Blocking (a file read): call it off the event loop.
   *
   * @return what it did
   */
  public synchronized Outcome check() {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      return failed("error reading encryption provider configuration file \"" + file + "\": " + e);
    }
    String hash = EncryptionConfig.sha256Hex(bytes);
    if (hash.equals(appliedHash)) {
      return Outcome.UNCHANGED;
    }
    EncryptionConfig next;
    try {
      next = EncryptionConfig.parse(new String(bytes, java.nio.charset.StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      return failed("error while parsing encryption provider configuration file \"" + file + "\": " + e.getMessage());
    }
    apply.accept(next);
    appliedHash = hash;
    successes++;
    lastError = null;
    LOG.info("loaded new encryption config content from " + file + ": " + next.summary());
    return Outcome.RELOADED;
  }

  private Outcome failed(String why) {
    failures++;
    if (!why.equals(lastError)) {
      LOG.warning(why + " (the configuration in force stays)");
    }
    lastError = why;
    return Outcome.FAILED;
  }

  /** @return reloads put in force since start */
  public synchronized long successes() {
    return successes;
  }

  /** @return checks that found a changed file they could not use */
  public synchronized long failures() {
    return failures;
  }

  /** @return the hex SHA-256 of the configuration in force's file content */
  public synchronized String appliedHash() {
    return appliedHash;
  }
}
