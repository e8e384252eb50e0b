package io.mvproxy.aggregated;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * HTTP client options towards an APIService backend, as kube-aggregator builds its proxy transport
 * ({@code pkg/apiserver/handler_proxy.go}, {@code apiserver.go} {@code proxyTransportDial}): HTTP/1.1 (no ALPN),
 * TLS 1.2/1.3; the server verified against {@code spec.caBundle} (host name checked against the resolved URL's host),
 * or not at all with {@code insecureSkipTLSVerify}, or against the JDK roots when neither is set; the node's proxy
 * client key pair presented as client certificate. Stateless.
 */
public final class BackendClients {
  private static final Set<String> PROTOCOLS = Set.of("TLSv1.2", "TLSv1.3");

  private BackendClients() {
  }

  /**
   * @param spec      the validated APIService (caBundle / insecureSkipTLSVerify)
   * @param clientKey the proxy client key pair, or null to present none
   * @param options   connect timeout
   * @return new client options; TLS settings apply to requests made with {@code setSsl(true)}
   */
  public static HttpClientOptions options(ApiServiceSpec spec, PemKeyCertOptions clientKey,
                                          AggregatedOptions options) {
    HttpClientOptions o = new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_1_1).setUseAlpn(false)
        .setKeepAlive(true).setPipelining(false).setConnectTimeout(options.connectTimeoutMs())
        .setMaxHeaderSize(io.mvproxy.api.ClientLimits.MAX_RESPONSE_HEADER_BYTES)
        .setEnabledSecureTransportProtocols(PROTOCOLS);
    if (spec.insecureSkipTlsVerify()) {
      o.setTrustAll(true).setVerifyHost(false);
    } else {
      o.setVerifyHost(true);
      if (spec.caBundlePem() != null) {
        o.setTrustOptions(new PemTrustOptions()
            .addCertValue(Buffer.buffer(spec.caBundlePem(), StandardCharsets.US_ASCII.name())));
      }
    }
    if (clientKey != null) {
      o.setKeyCertOptions(clientKey.copy());
    }
    return o;
  }

  /**
   * @param options pool sizing
   * @return a pool of {@code poolSize} HTTP/1.1 connections and a bounded wait queue
   */
  public static PoolOptions pool(AggregatedOptions options) {
    return new PoolOptions().setHttp1MaxSize(options.poolSize()).setMaxWaitQueueSize(options.maxWaitQueue());
  }
}
