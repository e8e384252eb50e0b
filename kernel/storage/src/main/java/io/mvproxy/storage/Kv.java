package io.mvproxy.storage;

/**
 * One key-value pair as a backend holds it (etcd {@code mvccpb.KeyValue}).
 *
 * @param key            full key ({@code /registry/<resource>/<ns>/<name>})
 * @param value          the stored value: the object's JSON text (UTF-8 in etcd), or, when it starts with
 *                       {@code k8s:enc:} (encryption at rest), its bytes as a byte string, one char per byte
 *                       (ISO-8859-1 in etcd); see {@link #isEncrypted}
 * @param modRevision    revision of the last write
 * @param createRevision revision of the write that created it
 */
public record Kv(String key, String value, long modRevision, long createRevision) {
  /** The reserved prefix of encrypted values ({@code value/encrypt/identity/identity.go}). */
  static final byte[] ENCRYPTED = "k8s:enc:".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  /** @return true when stored bytes are an encrypted value (a byte string as a {@link Kv#value()}) */
  static boolean isEncrypted(byte[] stored) {
    return stored.length >= ENCRYPTED.length
        && java.util.Arrays.equals(stored, 0, ENCRYPTED.length, ENCRYPTED, 0, ENCRYPTED.length);
  }

  /** @return true when a value is encrypted (starts with {@code k8s:enc:}) */
  static boolean isEncrypted(String value) {
    return value.startsWith("k8s:enc:");
  }
}
