package io.mvproxy.security.serviceaccount;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.jcajce.provider.asymmetric.util.EC5Util;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * Reads the keys of {@code --service-account-signing-key-file} and {@code --service-account-key-file} as
 * client-go's {@code keyutil.PrivateKeyFromFile} / {@code PublicKeysFromFile} do (PEM {@code PRIVATE KEY},
 * {@code RSA PRIVATE KEY}, {@code EC PRIVATE KEY}, {@code PUBLIC KEY}, {@code RSA PUBLIC KEY} and
 * {@code CERTIFICATE} blocks; RSA and ECDSA keys), and computes a key's {@code kid} as kube-apiserver's
 * {@code keyIDFromPublicKey} (unpadded base64url of the SHA-256 of the PKIX DER public key).
 */
public final class ServiceAccountKeys {
  private ServiceAccountKeys() {
  }

  /**
   * @param file a PEM file
   * @param flag the flag that named it, for errors
   * @return its first RSA or ECDSA private key
   * @throws IllegalArgumentException naming the flag when the file is unreadable or holds no such key
   */
  public static PrivateKey privateKey(Path file, String flag) {
    for (Object o : blocks(file, flag)) {
      PrivateKey k = asPrivate(o, file, flag);
      if (k != null) {
        return k;
      }
    }
    throw new IllegalArgumentException(flag + ": " + file + " contains no RSA or ECDSA private key");
  }

  /**
   * @param file a PEM file
   * @param flag the flag that named it, for errors
   * @return every public key in it (private keys and certificates give theirs), in file order
   * @throws IllegalArgumentException naming the flag when the file is unreadable or holds no key
   */
  public static List<PublicKey> publicKeys(Path file, String flag) {
    List<PublicKey> out = new ArrayList<>();
    JcaPEMKeyConverter conv = new JcaPEMKeyConverter();
    try {
      for (Object o : blocks(file, flag)) {
        if (o instanceof SubjectPublicKeyInfo spki) {
          out.add(conv.getPublicKey(spki));
        } else if (o instanceof X509CertificateHolder cert) {
          out.add(conv.getPublicKey(cert.getSubjectPublicKeyInfo()));
        } else if (o instanceof PEMKeyPair pair) {
          out.add(conv.getKeyPair(pair).getPublic());
        } else {
          PrivateKey k = asPrivate(o, file, flag);
          if (k != null) {
            out.add(publicOf(k));
          }
        }
      }
    } catch (IOException e) {
      throw new IllegalArgumentException(flag + ": " + file + " holds an unusable key: " + e.getMessage(), e);
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(flag + ": " + file + " contains no public or private key");
    }
    return List.copyOf(out);
  }

  /**
   * @param key an RSA (CRT form) or ECDSA private key
   * @return its public key
   * @throws IllegalArgumentException for another kind of key
   */
  public static PublicKey publicOf(PrivateKey key) {
    try {
      if (key instanceof RSAPrivateCrtKey rsa) {
        return KeyFactory.getInstance("RSA").generatePublic(new RSAPublicKeySpec(rsa.getModulus(),
            rsa.getPublicExponent()));
      }
      if (key instanceof ECPrivateKey ec) {
        org.bouncycastle.math.ec.ECPoint q = EC5Util.convertSpec(ec.getParams()).getG().multiply(ec.getS())
            .normalize();
        ECPoint w = new ECPoint(q.getAffineXCoord().toBigInteger(), q.getAffineYCoord().toBigInteger());
        return KeyFactory.getInstance("EC").generatePublic(new ECPublicKeySpec(w, ec.getParams()));
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot derive the public key: " + e.getMessage(), e);
    }
    throw new IllegalArgumentException("not an RSA or ECDSA private key: " + key.getAlgorithm());
  }

  /**
   * @param key a public key
   * @return kube-apiserver's key ID: unpadded base64url SHA-256 of {@code key.getEncoded()} (PKIX DER)
   */
  public static String keyId(PublicKey key) {
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256").digest(key.getEncoded());
      return Base64.getUrlEncoder().withoutPadding().encodeToString(hash);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }

  /** @return the bit length of an EC key's field (256, 384, 521), 0 for other keys */
  static int ecBits(java.security.Key key) {
    if (key instanceof java.security.interfaces.ECKey ec) {
      return ec.getParams().getCurve().getField().getFieldSize();
    }
    return 0;
  }

  private static PrivateKey asPrivate(Object o, Path file, String flag) {
    JcaPEMKeyConverter conv = new JcaPEMKeyConverter();
    try {
      if (o instanceof PrivateKeyInfo info) {
        PrivateKey k = conv.getPrivateKey(info);
        return k instanceof RSAPrivateCrtKey || k instanceof ECPrivateKey ? k : null;
      }
      if (o instanceof PEMKeyPair pair) {
        return conv.getKeyPair(pair).getPrivate();
      }
    } catch (IOException e) {
      throw new IllegalArgumentException(flag + ": " + file + " holds an unusable key: " + e.getMessage(), e);
    }
    return null;
  }

  private static List<Object> blocks(Path file, String flag) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException(flag + ": cannot read " + file + ": " + e.getMessage(), e);
    }
    List<Object> out = new ArrayList<>();
    try (PEMParser parser = new PEMParser(new StringReader(text))) {
      Object o;
      while ((o = parser.readObject()) != null) {
        out.add(o);
      }
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(flag + ": " + file + " is not a valid PEM file: " + e.getMessage(), e);
    }
    return out;
  }
}
