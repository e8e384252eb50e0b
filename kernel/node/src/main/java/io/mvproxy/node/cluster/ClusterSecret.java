package io.mvproxy.node.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The fleet's shared secret ({@code --cluster-secret-file}): the key of the HMAC-SHA256 challenge/response every
 * Hazelcast connection between members must pass ({@link FleetHandshake}). The file holds one secret per line, as
 * text (the development PKI writes 32 random bytes, base64: {@code cluster-secret}); surrounding white space and
 * blank lines are ignored; a secret of fewer than {@link #MIN_BYTES} bytes is refused. The first line is the one this
 * node proves with; every line is accepted from the other side, so the secret is rotated with three rolling restarts
 * (add the new secret as a second line everywhere; move it first everywhere; remove the old one), as kube-apiserver
 * rotates service-account keys (several keys in {@code --service-account-key-file}). Distributed like the
 * service-account signing key: the same file on every node, mode 0600.
 */
public final class ClusterSecret {
  /** Shortest secret accepted, in bytes (HMAC-SHA256's output size). */
  public static final int MIN_BYTES = 32;

  private final List<byte[]> keys;

  private ClusterSecret(List<byte[]> keys) {
    this.keys = keys;
  }

  /**
   * @param file the secret file
   * @return the secrets, the one to prove with first
   * @throws IllegalArgumentException when the file cannot be read, holds no secret, or one of fewer than
   *     {@link #MIN_BYTES} bytes
   */
  public static ClusterSecret read(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage());
    }
    List<byte[]> keys = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      byte[] bytes = lines.get(i).strip().getBytes(StandardCharsets.UTF_8);
      if (bytes.length == 0) {
        continue;
      }
      if (bytes.length < MIN_BYTES) {
        throw new IllegalArgumentException(file + " line " + (i + 1) + " holds " + bytes.length
            + " bytes; a fleet secret must be at least " + MIN_BYTES + " (e.g. head -c 32 /dev/urandom | base64 > "
            + file.getFileName() + ")");
      }
      keys.add(bytes);
    }
    if (keys.isEmpty()) {
      throw new IllegalArgumentException(file + " holds no secret; a fleet secret must be at least " + MIN_BYTES
          + " bytes (e.g. head -c 32 /dev/urandom | base64 > " + file.getFileName() + ")");
    }
    return new ClusterSecret(List.copyOf(keys));
  }

  /**
   * @param random where the bytes come from
   * @return the text of a new secret file: 32 random bytes, base64, one line
   */
  public static String generate(SecureRandom random) {
    byte[] b = new byte[MIN_BYTES];
    random.nextBytes(b);
    return Base64.getEncoder().encodeToString(b) + "\n";
  }

  /**
   * @param parts byte strings, each length-prefixed before it is hashed (no ambiguity between parts)
   * @return HMAC-SHA256 of the parts under the first secret (the one this node proves with), 32 bytes
   */
  byte[] mac(byte[]... parts) {
    return mac(keys.get(0), parts);
  }

  /**
   * @param got   a MAC received from the other side
   * @param parts what it should be the MAC of
   * @return whether it is the MAC of the parts under any of the secrets, each compared in constant time
   */
  boolean verifies(byte[] got, byte[]... parts) {
    boolean ok = false;
    for (byte[] k : keys) {
      ok |= MessageDigest.isEqual(mac(k, parts), got);
    }
    return ok;
  }

  private static byte[] mac(byte[] key, byte[]... parts) {
    try {
      Mac m = Mac.getInstance("HmacSHA256");
      m.init(new SecretKeySpec(key, "HmacSHA256"));
      for (byte[] p : parts) {
        m.update(new byte[] {(byte) (p.length >>> 8), (byte) p.length});
        m.update(p);
      }
      return m.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available", e);
    }
  }

  /** @return how many secrets, never their bytes */
  @Override
  public String toString() {
    return "ClusterSecret[" + keys.size() + " secret(s)]";
  }
}
