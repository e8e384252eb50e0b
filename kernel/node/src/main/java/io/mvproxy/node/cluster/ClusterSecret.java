package io.mvproxy.node.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The fleet's shared secret ({@code --cluster-secret-file}): the key of the HMAC-SHA256 challenge/response every
 * Hazelcast connection between members must pass ({@link FleetHandshake}). The file holds the secret as text (the
 * development PKI writes 32 random bytes, base64: {@code cluster-secret}); surrounding white space is ignored; fewer
 * than {@link #MIN_BYTES} bytes is refused. Distributed like the service-account signing key: the same file on every
 * node, mode 0600.
 */
public final class ClusterSecret {
  /** Shortest secret accepted, in bytes (HMAC-SHA256's output size). */
  public static final int MIN_BYTES = 32;

  private final byte[] key;

  private ClusterSecret(byte[] key) {
    this.key = key;
  }

  /**
   * @param file the secret file
   * @return the secret
   * @throws IllegalArgumentException when the file cannot be read or holds fewer than {@link #MIN_BYTES} bytes
   */
  public static ClusterSecret read(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage());
    }
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    if (bytes.length < MIN_BYTES) {
      throw new IllegalArgumentException(file + " holds " + bytes.length + " bytes; the fleet secret must be at least "
          + MIN_BYTES + " (e.g. head -c 32 /dev/urandom | base64 > " + file.getFileName() + ")");
    }
    return new ClusterSecret(bytes);
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
   * @return HMAC-SHA256 of the parts under this secret, 32 bytes
   */
  byte[] mac(byte[]... parts) {
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

  /**
   * @param expected the MAC computed here
   * @param got      the MAC received
   * @return whether they are equal, compared in constant time
   */
  static boolean same(byte[] expected, byte[] got) {
    return MessageDigest.isEqual(expected, got);
  }

  @Override
  public String toString() {
    return "ClusterSecret[" + key.length + " bytes]";
  }
}
