package io.mvproxy.storage.encryption;

import java.nio.charset.StandardCharsets;

/**
 * The {@code identity} provider: values stored as they are; reading a value that carries the reserved
 * {@code k8s:enc:} prefix is an error ({@code value/encrypt/identity/identity.go}).
 */
public final class IdentityTransformer implements ValueTransformer {
  /** The prefix reserved for encrypted values. */
  public static final String ENCRYPTED_PREFIX = "k8s:enc:";
  /** Upstream's error text for an encrypted value read by identity. */
  public static final String READ_ENCRYPTED = "identity transformer tried to read encrypted data";
  /** The one instance. */
  public static final IdentityTransformer INSTANCE = new IdentityTransformer();
  private static final byte[] PREFIX = ENCRYPTED_PREFIX.getBytes(StandardCharsets.US_ASCII);

  private IdentityTransformer() {
  }

  @Override
  public Read fromStorage(byte[] data, byte[] authenticatedData) throws TransformException {
    if (PrefixTransformers.startsWith(data, PREFIX)) {
      throw new TransformException(READ_ENCRYPTED);
    }
    return new Read(data, false);
  }

  @Override
  public byte[] toStorage(byte[] data, byte[] authenticatedData) {
    return data;
  }
}
