package io.mvproxy.security;

import java.net.Socket;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The ingress's trust manager: like kube-apiserver ({@code tls.RequestClientCert}), it accepts any client
 * certificate during the handshake (the client still proves it holds the key) and leaves the decision to the
 * {@link Authenticator}, which verifies the chain against each CA separately per request and answers 401 when none
 * verifies. So a certificate of an unknown CA gets a 401 Status instead of a TLS alert, and never an identity. The
 * accepted issuers sent to clients are the configured CAs. Server-side only.
 */
final class DeferredClientTrust extends X509ExtendedTrustManager {
  private final X509Certificate[] issuers;

  /** @param cas the client and request-header CAs, advertised as acceptable issuers */
  DeferredClientTrust(List<X509Certificate> cas) {
    this.issuers = cas.toArray(new X509Certificate[0]);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType) {
    // verified per request by the Authenticator, per CA
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
    // verified per request by the Authenticator, per CA
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
    // verified per request by the Authenticator, per CA
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType) {
    throw new UnsupportedOperationException("server-side trust manager");
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {
    throw new UnsupportedOperationException("server-side trust manager");
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
    throw new UnsupportedOperationException("server-side trust manager");
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return issuers.clone();
  }

  /**
   * @return Vert.x trust options handing out this trust manager through a plain JDK factory (Vert.x's
   *     {@code TrustOptions.wrap} needs Netty helpers that log through slf4j, which mvproxy does not ship)
   */
  io.vertx.core.net.TrustOptions toTrustOptions() {
    DeferredClientTrust self = this;
    return new io.vertx.core.net.TrustOptions() {
      @Override
      public io.vertx.core.net.TrustOptions copy() {
        return this;
      }

      @Override
      public javax.net.ssl.TrustManagerFactory getTrustManagerFactory(io.vertx.core.Vertx vertx) {
        return new javax.net.ssl.TrustManagerFactory(new javax.net.ssl.TrustManagerFactorySpi() {
          @Override
          protected void engineInit(java.security.KeyStore ks) {
          }

          @Override
          protected void engineInit(javax.net.ssl.ManagerFactoryParameters spec) {
          }

          @Override
          protected javax.net.ssl.TrustManager[] engineGetTrustManagers() {
            return new javax.net.ssl.TrustManager[] {self};
          }
        }, null, "mvproxy-deferred-client-trust") {
        };
      }

      @Override
      public java.util.function.Function<String, javax.net.ssl.TrustManager[]> trustManagerMapper(
          io.vertx.core.Vertx vertx) {
        return null;
      }
    };
  }
}
