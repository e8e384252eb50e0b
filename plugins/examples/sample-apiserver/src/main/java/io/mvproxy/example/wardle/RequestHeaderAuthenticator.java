package io.mvproxy.example.wardle;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.TrustOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.CertPath;
import java.security.cert.CertPathValidator;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.util.function.Function;
import javax.net.ssl.ManagerFactoryParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.TrustManagerFactorySpi;
import javax.net.ssl.X509TrustManager;

/**
 * Believes {@code X-Remote-User} / {@code X-Remote-Group} only from clients whose TLS certificate chains to the
 * {@code --requestheader-client-ca-file} bundle (Kubernetes {@code apiserver/pkg/authentication/request/headerrequest}
 * with the {@code x509} verifier): the chain is checked with the JDK {@link CertPathValidator} (PKIX, no revocation),
 * and the leaf must allow client authentication when it has an extended key usage. Immutable.
 */
public final class RequestHeaderAuthenticator {
  private static final String CLIENT_AUTH_EKU = "1.3.6.1.5.5.7.3.2";
  private final List<X509Certificate> cas;
  private final Set<TrustAnchor> anchors = new HashSet<>();

  /**
   * @param cas the front-proxy CA certificates (empty: nobody is trusted)
   */
  public RequestHeaderAuthenticator(List<X509Certificate> cas) {
    this.cas = List.copyOf(cas);
    this.cas.forEach(c -> anchors.add(new TrustAnchor(c, null)));
  }

  /**
   * @param file a PEM bundle
   * @return an authenticator trusting its certificates
   * @throws IllegalArgumentException when the file cannot be read or holds no certificate
   */
  public static RequestHeaderAuthenticator fromFile(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      List<X509Certificate> certs = new ArrayList<>();
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        certs.add((X509Certificate) c);
      }
      if (certs.isEmpty()) {
        throw new IllegalArgumentException("--requestheader-client-ca-file: " + file + " holds no certificate");
      }
      return new RequestHeaderAuthenticator(certs);
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException("--requestheader-client-ca-file: cannot read " + file + ": " + e.getMessage(),
          e);
    }
  }

  /**
   * @param req a request on a TLS connection
   * @return the caller named by {@code X-Remote-User} / {@code X-Remote-Group} when the client certificate is
   *     trusted and the user header is present; null otherwise
   */
  public Caller authenticate(HttpServerRequest req) {
    String user = req.getHeader("X-Remote-User");
    if (user == null || user.isEmpty() || !req.isSSL()) {
      return null;
    }
    List<Certificate> chain;
    try {
      chain = req.connection().peerCertificates();
    } catch (Exception e) {
      return null;
    }
    if (chain == null || chain.isEmpty() || !verify(chain)) {
      return null;
    }
    return new Caller(user, req.headers().getAll("X-Remote-Group"));
  }

  /**
   * @param chain the presented chain, leaf first
   * @return true when it validates (PKIX) to one of the CAs and the leaf may be used for client authentication
   */
  public boolean verify(List<Certificate> chain) {
    if (anchors.isEmpty()) {
      return false;
    }
    try {
      List<Certificate> path = new ArrayList<>();
      for (Certificate c : chain) {
        if (!cas.contains(c)) {
          path.add(c);
        }
      }
      if (path.isEmpty()) {
        return false;
      }
      X509Certificate leaf = (X509Certificate) path.get(0);
      List<String> eku = leaf.getExtendedKeyUsage();
      if (eku != null && !eku.contains(CLIENT_AUTH_EKU) && !eku.contains("2.5.29.37.0")) {
        return false;
      }
      CertPath cp = CertificateFactory.getInstance("X.509").generateCertPath(path);
      PKIXParameters params = new PKIXParameters(anchors);
      params.setRevocationEnabled(false);
      CertPathValidator.getInstance("PKIX").validate(cp, params);
      return true;
    } catch (GeneralSecurityException | ClassCastException e) {
      return false;
    }
  }

  /**
   * TLS trust for the server side: any client certificate passes the handshake (the CAs are advertised as acceptable
   * issuers) and {@link #verify} decides afterwards, so an untrusted certificate makes the caller anonymous instead of
   * breaking the connection.
   *
   * @return Vert.x trust options
   */
  public TrustOptions tlsTrust() {
    X509Certificate[] issuers = cas.toArray(new X509Certificate[0]);
    X509TrustManager tm = new X509TrustManager() {
      @Override
      public void checkClientTrusted(X509Certificate[] chain, String authType) {
        // decided per request by verify()
      }

      @Override
      public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("server-side trust manager only");
      }

      @Override
      public X509Certificate[] getAcceptedIssuers() {
        return issuers.clone();
      }
    };
    return new ClientTrust(tm);
  }

  /** Trust options handing Vert.x a factory of one trust manager (no Netty/slf4j helpers involved). */
  private record ClientTrust(X509TrustManager manager) implements TrustOptions {
    @Override
    public TrustOptions copy() {
      return this;
    }

    @Override
    public TrustManagerFactory getTrustManagerFactory(Vertx vertx) {
      TrustManager[] managers = {manager};
      return new TrustManagerFactory(new TrustManagerFactorySpi() {
        @Override
        protected void engineInit(KeyStore ks) {
        }

        @Override
        protected void engineInit(ManagerFactoryParameters spec) {
        }

        @Override
        protected TrustManager[] engineGetTrustManagers() {
          return managers.clone();
        }
      }, null, "wardle-request-header") {
      };
    }

    @Override
    public Function<String, TrustManager[]> trustManagerMapper(Vertx vertx) {
      return null;
    }
  }
}
