package io.mvproxy.storage.encryption;

/**
 * Turns a stored value into what the store keeps and back, as kube-apiserver's {@code value.Transformer}
 * ({@code apiserver/pkg/storage/value/transformer.go}). Implementations are thread-safe.
 */
public interface ValueTransformer {

  /**
   * The result of a read.
   *
   * @param data  the plain bytes
   * @param stale true when the value was not written by the first (writing) transformer: a rewrite would change
   *              how it is stored (key rotation), so an unchanged update still writes it
   */
  record Read(byte[] data, boolean stale) {
  }

  /**
   * @param data              the bytes as stored (after any outer prefix was stripped)
   * @param authenticatedData what the value is bound to: the full etcd key, UTF-8
   * @return the plain bytes and whether they are stale
   * @throws TransformException with upstream's message when the value cannot be read (wrong key, tampered,
   *                            unknown prefix)
   */
  Read fromStorage(byte[] data, byte[] authenticatedData) throws TransformException;

  /**
   * @param data              the plain bytes
   * @param authenticatedData the full etcd key, UTF-8
   * @return the bytes to store
   * @throws TransformException when no randomness or cipher is available
   */
  byte[] toStorage(byte[] data, byte[] authenticatedData) throws TransformException;
}
