package io.mvproxy.storage.encryption;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The {@code aesgcm} provider's value transformer ({@code value/encrypt/aes/aes.go}, {@code NewGCMTransformer}):
 * stored bytes are a random 12-byte nonce, then the AES-GCM ciphertext with its 16-byte tag appended, the
 * authenticated data being the etcd key. JDK {@code AES/GCM/NoPadding}.
 */
public final class AesGcmTransformer implements ValueTransformer {
  static final int NONCE_SIZE = 12;
  static final int TAG_BITS = 128;
  private static final SecureRandom RANDOM = new SecureRandom();
  private final SecretKeySpec key;

  /**
   * @param key a 16, 24 or 32 byte AES key
   * @throws IllegalArgumentException for another length
   */
  public AesGcmTransformer(byte[] key) {
    this.key = AesCbcTransformer.aesKey(key);
  }

  @Override
  public Read fromStorage(byte[] data, byte[] authenticatedData) throws TransformException {
    if (data.length < NONCE_SIZE) {
      throw new TransformException("the stored data was shorter than the required size");
    }
    try {
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, data, 0, NONCE_SIZE));
      c.updateAAD(authenticatedData);
      return new Read(c.doFinal(data, NONCE_SIZE, data.length - NONCE_SIZE), false);
    } catch (AEADBadTagException e) {
      throw new TransformException("cipher: message authentication failed"); // Go's crypto/cipher text
    } catch (GeneralSecurityException e) {
      throw new TransformException("cipher: message authentication failed");
    }
  }

  @Override
  public byte[] toStorage(byte[] data, byte[] authenticatedData) throws TransformException {
    byte[] nonce = new byte[NONCE_SIZE];
    RANDOM.nextBytes(nonce);
    try {
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
      c.updateAAD(authenticatedData);
      byte[] out = new byte[NONCE_SIZE + c.getOutputSize(data.length)];
      System.arraycopy(nonce, 0, out, 0, NONCE_SIZE);
      int n = c.doFinal(data, 0, data.length, out, NONCE_SIZE);
      return n == out.length - NONCE_SIZE ? out : java.util.Arrays.copyOf(out, NONCE_SIZE + n);
    } catch (GeneralSecurityException e) {
      throw new TransformException("failed to encrypt with AES-GCM: " + e.getMessage());
    }
  }
}
