package io.mvproxy.discovery;

import io.vertx.core.buffer.Buffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Discovery ETags (discovery.md section 6; apiserver {@code aggregated/etag.go}): {@code "} + uppercase hex
 * SHA-512 of the served bytes + {@code "}. Aggregated documents carry their {@code apiVersion}
 * ({@code apidiscovery.k8s.io/v2} or {@code v2beta1}) in those bytes, so the two versions never share an ETag.
 */
public final class Etags {
  private static final HexFormat HEX = HexFormat.of().withUpperCase();

  private Etags() {
  }

  /**
   * @param served the exact bytes sent as the body
   * @return the quoted ETag, e.g. {@code "3A7F..."} (130 characters)
   */
  public static String of(Buffer served) {
    return of(served.getBytes());
  }

  /**
   * @param served the exact bytes sent as the body
   * @return the quoted ETag
   */
  public static String of(byte[] served) {
    try {
      return '"' + HEX.formatHex(MessageDigest.getInstance("SHA-512").digest(served)) + '"';
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-512 is required by every Java platform", e);
    }
  }

  /**
   * Whether an {@code If-None-Match} value matches (RFC 9110 weak comparison: {@code W/} prefixes ignored,
   * comma-separated lists and {@code *} accepted).
   *
   * @param ifNoneMatch the header value, or null
   * @param etag        the current quoted ETag
   * @return true when the client's copy is current (answer 304)
   */
  public static boolean matches(String ifNoneMatch, String etag) {
    if (ifNoneMatch == null || etag == null) {
      return false;
    }
    for (String candidate : ifNoneMatch.split(",")) {
      String c = candidate.trim();
      if (c.startsWith("W/")) {
        c = c.substring(2);
      }
      if (c.equals("*") || c.equals(etag)) {
        return true;
      }
    }
    return false;
  }
}
