package io.mvproxy.openapi;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * One immutable, ready-to-send OpenAPI document: its bytes, content type and content hash. The hash is the
 * upper-case hex SHA-512 of the bytes, as {@code kube-openapi/pkg/handler3} computes it for {@code ?hash=}; the ETag
 * is the quoted hash.
 *
 * @param body        the bytes to send (do not modify)
 * @param contentType the {@code Content-Type}
 * @param hash        the content hash
 */
public record ServedDocument(Buffer body, String contentType, String hash) {

  /**
   * @param bytes       the content
   * @param contentType its type
   * @return the document with its hash computed
   */
  public static ServedDocument of(byte[] bytes, String contentType) {
    return new ServedDocument(Buffer.buffer(bytes), contentType, sha512(bytes));
  }

  /** @return the quoted ETag, e.g. {@code "0A1B..."} */
  public String etag() {
    return '"' + hash + '"';
  }

  /**
   * @param text some text
   * @return upper-case hex SHA-512 of its UTF-8 bytes
   */
  static String sha512(String text) {
    return sha512(text.getBytes(StandardCharsets.UTF_8));
  }

  private static String sha512(byte[] bytes) {
    try {
      return HexFormat.of().withUpperCase().formatHex(MessageDigest.getInstance("SHA-512").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-512 unavailable", e);
    }
  }
}
