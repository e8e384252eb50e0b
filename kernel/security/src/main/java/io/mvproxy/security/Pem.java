package io.mvproxy.security;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.ASN1String;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x500.style.IETFUtils;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemWriter;

/**
 * PEM reading and writing for certificates ({@code CERTIFICATE}) and private keys (read: {@code PRIVATE KEY},
 * {@code EC PRIVATE KEY}, {@code RSA PRIVATE KEY}; written: PKCS#8 {@code PRIVATE KEY}), plus subject helpers.
 * Stateless; every method is a pure function of its arguments.
 */
public final class Pem {
  private Pem() {
  }

  /**
   * Reads every {@code CERTIFICATE} block of a PEM file (a CA bundle may hold several).
   *
   * @param file the PEM file
   * @param flag the command-line flag that named the file, used in error messages (e.g. {@code --client-ca-file})
   * @return the certificates in file order, never empty
   * @throws IllegalArgumentException if the file is missing, unreadable, or holds no valid certificate
   */
  public static List<X509Certificate> readCertificates(Path file, String flag) {
    String text = readText(file, flag);
    List<X509Certificate> out = new ArrayList<>();
    try (PEMParser parser = new PEMParser(new StringReader(text))) {
      JcaX509CertificateConverter conv = new JcaX509CertificateConverter();
      Object o;
      while ((o = parser.readObject()) != null) {
        if (o instanceof X509CertificateHolder h) {
          out.add(conv.getCertificate(h));
        }
      }
    } catch (IOException | CertificateException | RuntimeException e) {
      throw new IllegalArgumentException(flag + ": " + file + " is not a valid PEM certificate file: " + e.getMessage(),
          e);
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(flag + ": " + file + " contains no PEM CERTIFICATE block");
    }
    return List.copyOf(out);
  }

  /**
   * Reads the first private key of a PEM file.
   *
   * @param file the PEM file
   * @param flag the flag that named the file, for error messages (e.g. {@code --tls-private-key-file})
   * @return the key
   * @throws IllegalArgumentException if the file is missing, unreadable or holds no supported private key
   */
  public static PrivateKey readPrivateKey(Path file, String flag) {
    String text = readText(file, flag);
    try (PEMParser parser = new PEMParser(new StringReader(text))) {
      JcaPEMKeyConverter conv = new JcaPEMKeyConverter();
      Object o;
      while ((o = parser.readObject()) != null) {
        if (o instanceof PrivateKeyInfo info) {
          return conv.getPrivateKey(info);
        }
        if (o instanceof PEMKeyPair pair) {
          return conv.getKeyPair(pair).getPrivate();
        }
      }
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(flag + ": " + file + " is not a valid PEM private key file: " + e.getMessage(),
          e);
    }
    throw new IllegalArgumentException(flag + ": " + file
        + " contains no PEM private key (PRIVATE KEY, EC PRIVATE KEY or RSA PRIVATE KEY)");
  }

  /**
   * Encodes certificates as concatenated PEM {@code CERTIFICATE} blocks.
   *
   * @param certs the certificates
   * @return the PEM text
   * @throws IllegalStateException if a certificate cannot be encoded
   */
  public static String encodeCertificates(List<X509Certificate> certs) {
    StringWriter sw = new StringWriter();
    try (PemWriter w = new PemWriter(sw)) {
      for (X509Certificate c : certs) {
        w.writeObject(new PemObject("CERTIFICATE", c.getEncoded()));
      }
    } catch (IOException | CertificateException e) {
      throw new IllegalStateException("cannot encode certificate", e);
    }
    return sw.toString();
  }

  /**
   * Encodes a private key as a PKCS#8 PEM {@code PRIVATE KEY} block.
   *
   * @param key the key (its {@link PrivateKey#getEncoded()} must be PKCS#8, as for all JCA EC/RSA keys)
   * @return the PEM text
   */
  public static String encodePrivateKey(PrivateKey key) {
    StringWriter sw = new StringWriter();
    try (PemWriter w = new PemWriter(sw)) {
      w.writeObject(new PemObject("PRIVATE KEY", key.getEncoded()));
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode private key", e);
    }
    return sw.toString();
  }

  /**
   * Parses certificates from DER or PEM bytes with the JDK's X.509 factory.
   *
   * @param bytes the encoded certificate(s)
   * @return the certificates
   * @throws IllegalArgumentException if the bytes are not certificates
   */
  public static List<X509Certificate> parseCertificates(byte[] bytes) {
    try {
      List<X509Certificate> out = new ArrayList<>();
      for (var c : CertificateFactory.getInstance("X.509")
          .generateCertificates(new java.io.ByteArrayInputStream(bytes))) {
        out.add((X509Certificate) c);
      }
      return out;
    } catch (CertificateException e) {
      throw new IllegalArgumentException("not an X.509 certificate: " + e.getMessage(), e);
    }
  }

  /**
   * Returns the first common name (CN) of a certificate subject, parsed from the DER name (not a string split).
   *
   * @param cert the certificate
   * @return the CN, or {@code ""} when the subject has none
   */
  public static String commonName(X509Certificate cert) {
    List<String> cns = attributes(cert, true);
    return cns.isEmpty() ? "" : cns.get(0);
  }

  /**
   * Returns all organization (O) values of a certificate subject, in subject order (Kubernetes maps them to groups,
   * {@code staging/src/k8s.io/apiserver/pkg/authentication/request/x509/x509.go} {@code CommonNameUserConversion}).
   *
   * @param cert the certificate
   * @return the O values, possibly empty
   */
  public static List<String> organizations(X509Certificate cert) {
    return attributes(cert, false);
  }

  private static List<String> attributes(X509Certificate cert, boolean cn) {
    X500Name name = X500Name.getInstance(cert.getSubjectX500Principal().getEncoded());
    List<String> out = new ArrayList<>();
    for (RDN rdn : name.getRDNs(cn ? BCStyle.CN : BCStyle.O)) {
      for (var atv : rdn.getTypesAndValues()) {
        if (atv.getType().equals(cn ? BCStyle.CN : BCStyle.O)) {
          out.add(atv.getValue() instanceof ASN1String str ? str.getString()
              : IETFUtils.valueToString(atv.getValue()));
        }
      }
    }
    return out;
  }

  private static String readText(Path file, String flag) {
    if (file == null) {
      throw new IllegalArgumentException(flag + " is required");
    }
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException(flag + ": file " + file + " does not exist or is not a regular file");
    }
    try {
      return Files.readString(file, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new IllegalArgumentException(flag + ": cannot read " + file + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(flag + ": " + file + " is not a text PEM file", e);
    }
  }
}
