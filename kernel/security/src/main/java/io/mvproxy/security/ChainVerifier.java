package io.mvproxy.security;

import java.security.GeneralSecurityException;
import java.security.cert.CertPath;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Verifies a client certificate chain against one CA bundle with the JDK PKIX {@link CertPathValidator} (revocation
 * off, current time), then requires the leaf's extended key usage, when present, to allow client authentication
 * (as Go's {@code x509.Verify} with {@code ExtKeyUsageClientAuth} in {@code request/x509/x509.go}). Immutable.
 */
final class ChainVerifier {
  private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
  private static final String ANY_EKU = "2.5.29.37.0";

  private final Set<TrustAnchor> anchors;
  private final List<X509Certificate> caCerts;

  /**
   * @param cas the trusted CAs (at least one)
   */
  ChainVerifier(List<X509Certificate> cas) {
    Set<TrustAnchor> a = new HashSet<>();
    for (X509Certificate ca : cas) {
      a.add(new TrustAnchor(ca, null));
    }
    this.anchors = Set.copyOf(a);
    this.caCerts = List.copyOf(cas);
  }

  /**
   * @param chain the peer chain, leaf first, as sent in the TLS handshake (may include intermediates or the root)
   * @return true if the leaf chains to one of the CAs and may be used for client authentication
   */
  boolean verifies(List<X509Certificate> chain) {
    List<X509Certificate> path = new ArrayList<>();
    for (X509Certificate c : chain) {
      if (!path.isEmpty() && caCerts.contains(c)) {
        break; // the anchor itself does not belong in the path
      }
      path.add(c);
    }
    try {
      X509Certificate leaf = path.get(0);
      List<String> eku = leaf.getExtendedKeyUsage();
      if (eku != null && !eku.contains(CLIENT_AUTH) && !eku.contains(ANY_EKU)) {
        return false;
      }
      CertPath cp = CertificateFactory.getInstance("X.509").generateCertPath(path);
      PKIXParameters params = new PKIXParameters(anchors);
      params.setRevocationEnabled(false);
      CertPathValidator.getInstance("PKIX").validate(cp, params);
      return true;
    } catch (GeneralSecurityException | RuntimeException e) {
      return false;
    }
  }
}
