package io.mvproxy.storage.encryption;

import java.security.MessageDigest;
import java.security.SecureRandom;
import org.bouncycastle.crypto.engines.XSalsa20Engine;
import org.bouncycastle.crypto.macs.Poly1305;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;

/**
 * The {@code secretbox} provider's value transformer ({@code value/encrypt/secretbox/secretbox.go}): stored bytes
 * are a random 24-byte nonce, then NaCl {@code secretbox.Seal} of the value (16-byte Poly1305 tag, then the
 * XSalsa20 ciphertext), with a 32-byte key. No authenticated data, as upstream. XSalsa20 and Poly1305 are
 * BouncyCastle's; the composition is NaCl's {@code crypto_secretbox_xsalsa20poly1305}: the first 32 bytes of the
 * key stream are the Poly1305 key, the rest encrypts the message.
 */
public final class SecretboxTransformer implements ValueTransformer {
  static final int NONCE_SIZE = 24;
  static final int OVERHEAD = 16;
  private static final SecureRandom RANDOM = new SecureRandom();
  private final byte[] key;

  /**
   * @param key a 32 byte key
   * @throws IllegalArgumentException for another length
   */
  public SecretboxTransformer(byte[] key) {
    if (key.length != 32) {
      throw new IllegalArgumentException("expected key size 32 for secretbox provider, got " + key.length);
    }
    this.key = key.clone();
  }

  @Override
  public Read fromStorage(byte[] data, byte[] authenticatedData) throws TransformException {
    if (data.length < OVERHEAD + NONCE_SIZE) {
      throw new TransformException("the stored data was shorter than the required size");
    }
    byte[] out = open(key, java.util.Arrays.copyOf(data, NONCE_SIZE), data, NONCE_SIZE, data.length - NONCE_SIZE);
    if (out == null) {
      throw new TransformException("output array was not large enough for encryption"); // upstream's text
    }
    return new Read(out, false);
  }

  @Override
  public byte[] toStorage(byte[] data, byte[] authenticatedData) {
    byte[] nonce = new byte[NONCE_SIZE];
    RANDOM.nextBytes(nonce);
    byte[] box = seal(key, nonce, data);
    byte[] out = new byte[NONCE_SIZE + box.length];
    System.arraycopy(nonce, 0, out, 0, NONCE_SIZE);
    System.arraycopy(box, 0, out, NONCE_SIZE, box.length);
    return out;
  }

  /**
   * NaCl {@code secretbox.Seal}.
   *
   * @return tag (16 bytes) followed by the ciphertext
   */
  static byte[] seal(byte[] key, byte[] nonce, byte[] message) {
    XSalsa20Engine xs = engine(key, nonce);
    byte[] polyKey = new byte[32];
    xs.processBytes(new byte[32], 0, 32, polyKey, 0);
    byte[] out = new byte[OVERHEAD + message.length];
    xs.processBytes(message, 0, message.length, out, OVERHEAD);
    Poly1305 mac = new Poly1305();
    mac.init(new KeyParameter(polyKey));
    mac.update(out, OVERHEAD, message.length);
    mac.doFinal(out, 0);
    return out;
  }

  /** NaCl {@code secretbox.Open} of {@code box[off, off+len)}. @return the message, or null when not authentic */
  static byte[] open(byte[] key, byte[] nonce, byte[] box, int off, int len) {
    if (len < OVERHEAD) {
      return null;
    }
    XSalsa20Engine xs = engine(key, nonce);
    byte[] polyKey = new byte[32];
    xs.processBytes(new byte[32], 0, 32, polyKey, 0);
    Poly1305 mac = new Poly1305();
    mac.init(new KeyParameter(polyKey));
    mac.update(box, off + OVERHEAD, len - OVERHEAD);
    byte[] tag = new byte[OVERHEAD];
    mac.doFinal(tag, 0);
    if (!MessageDigest.isEqual(tag, java.util.Arrays.copyOfRange(box, off, off + OVERHEAD))) {
      return null;
    }
    byte[] out = new byte[len - OVERHEAD];
    xs.processBytes(box, off + OVERHEAD, out.length, out, 0);
    return out;
  }

  private static XSalsa20Engine engine(byte[] key, byte[] nonce) {
    XSalsa20Engine xs = new XSalsa20Engine();
    xs.init(true, new ParametersWithIV(new KeyParameter(key), nonce));
    return xs;
  }
}
