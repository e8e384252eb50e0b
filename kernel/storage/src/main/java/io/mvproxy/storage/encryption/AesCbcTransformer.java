package io.mvproxy.storage.encryption;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The {@code aescbc} provider's value transformer ({@code value/encrypt/aes/aes.go}, {@code NewCBCTransformer}):
 * stored bytes are a random 16-byte IV, then the AES-CBC ciphertext of the PKCS#7-padded value (no authenticated
 * data, as upstream). JDK {@code AES/CBC/NoPadding}; the padding is checked here to give upstream's errors.
 */
public final class AesCbcTransformer implements ValueTransformer {
  static final int BLOCK = 16;
  private static final SecureRandom RANDOM = new SecureRandom();
  private final SecretKeySpec key;

  /**
   * @param key a 16, 24 or 32 byte AES key
   * @throws IllegalArgumentException for another length
   */
  public AesCbcTransformer(byte[] key) {
    this.key = aesKey(key);
  }

  static SecretKeySpec aesKey(byte[] key) {
    if (key.length != 16 && key.length != 24 && key.length != 32) {
      throw new IllegalArgumentException("crypto/aes: invalid key size " + key.length);
    }
    return new SecretKeySpec(key, "AES");
  }

  @Override
  public Read fromStorage(byte[] data, byte[] authenticatedData) throws TransformException {
    if (data.length < BLOCK) {
      throw new TransformException("the stored data was shorter than the required size");
    }
    if ((data.length - BLOCK) % BLOCK != 0) {
      throw new TransformException("the stored data is not a multiple of the block size");
    }
    byte[] plain;
    try {
      Cipher c = Cipher.getInstance("AES/CBC/NoPadding");
      c.init(Cipher.DECRYPT_MODE, key, new IvParameterSpec(data, 0, BLOCK));
      plain = c.doFinal(data, BLOCK, data.length - BLOCK);
    } catch (GeneralSecurityException e) {
      throw new TransformException("invalid PKCS7 data (empty or not padded)");
    }
    if (plain.length == 0) {
      throw new TransformException("invalid PKCS7 data (empty or not padded)");
    }
    int pad = plain[plain.length - 1] & 0xff;
    if (pad == 0 || pad > plain.length) {
      throw new TransformException("invalid PKCS7 data (empty or not padded)");
    }
    for (int i = plain.length - pad; i < plain.length; i++) {
      if ((plain[i] & 0xff) != pad) {
        throw new TransformException("invalid padding on input");
      }
    }
    return new Read(java.util.Arrays.copyOf(plain, plain.length - pad), false);
  }

  @Override
  public byte[] toStorage(byte[] data, byte[] authenticatedData) throws TransformException {
    int pad = BLOCK - data.length % BLOCK;
    byte[] out = new byte[BLOCK + data.length + pad];
    byte[] iv = new byte[BLOCK];
    RANDOM.nextBytes(iv);
    System.arraycopy(iv, 0, out, 0, BLOCK);
    System.arraycopy(data, 0, out, BLOCK, data.length);
    java.util.Arrays.fill(out, BLOCK + data.length, out.length, (byte) pad);
    try {
      Cipher c = Cipher.getInstance("AES/CBC/NoPadding");
      c.init(Cipher.ENCRYPT_MODE, key, new IvParameterSpec(iv));
      c.doFinal(out, BLOCK, out.length - BLOCK, out, BLOCK);
      return out;
    } catch (GeneralSecurityException e) {
      throw new TransformException("failed to encrypt with AES-CBC: " + e.getMessage());
    }
  }
}
