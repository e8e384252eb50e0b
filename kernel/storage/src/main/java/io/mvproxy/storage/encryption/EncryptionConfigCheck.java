package io.mvproxy.storage.encryption;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.function.BooleanSupplier;
import java.util.logging.Logger;

/**
 * The readiness check of {@code --encryption-provider-config} ({@code /readyz/kms-providers}, kube-apiserver's name
 * for its encryption health check): false while the file no longer reads as a valid configuration (deleted,
 * unreadable, a key removed or mistyped), so a node that would not start again with it leaves the load balancer
 * before it is restarted. The node keeps using the configuration in force (the one it started with, or the last one
 * {@link EncryptionConfigReloader} put in force). The file
 * is parsed again only when its modification time or size changed; never blocks longer than one small read.
 */
public final class EncryptionConfigCheck implements BooleanSupplier {
  private static final Logger LOG = Logger.getLogger(EncryptionConfigCheck.class.getName());
  private final Path file;
  private long stamp = Long.MIN_VALUE;
  private boolean ok = true;
  private String error;

  /** @param file the configuration file the node started with */
  public EncryptionConfigCheck(Path file) {
    this.file = file;
  }

  @Override
  public synchronized boolean getAsBoolean() {
    long now;
    try {
      BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
      now = a.lastModifiedTime().toMillis() * 31 + a.size();
    } catch (IOException e) {
      now = Long.MIN_VALUE + 1;
    }
    if (now != stamp) {
      stamp = now;
      try {
        EncryptionConfig.load(file);
        ok = true;
        error = null;
      } catch (IllegalArgumentException e) {
        ok = false;
        error = e.getMessage();
        LOG.warning("readyz kms-providers: " + error);
      }
    }
    return ok;
  }

  /** @return why the last check failed, or null */
  public synchronized String error() {
    return error;
  }
}
