package io.mvproxy.security;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Vert.x TLS option factories for the ingress server and the peer-hop client, from kube-apiserver flag values. Every
 * file is read, parsed and checked eagerly; the PEM content (normalized: certificates, PKCS#8 key) is handed to Vert.x
 * as values, so later changes to the files need a new call plus {@code updateSSLOptions(opts, true)}. Stateless.
 */
public final class TlsOptions {
  /** TLS versions offered and accepted: TLS 1.2 and 1.3 only. */
  public static final Set<String> PROTOCOLS = Set.of("TLSv1.2", "TLSv1.3");
  /** Maximum HTTP/1.1 connections per peer. */
  public static final int PEER_POOL_SIZE = 32;
  /** HTTP/2 stream window and frame size of the h2 peer hop, bytes: the ingress's (kube-apiserver's 256 KiB). */
  public static final int HTTP2_STREAM_WINDOW_BYTES = 256 * 1024;
  /** HTTP/2 connection window of the h2 peer hop, bytes: 100 full stream windows (Go's MaxUploadBufferPerConnection). */
  public static final int HTTP2_CONNECTION_WINDOW_BYTES = 100 * HTTP2_STREAM_WINDOW_BYTES;
  /** Maximum requests waiting for a pooled peer connection; beyond that requests fail at once. */
  public static final int PEER_WAIT_QUEUE = 1024;
  /** TCP connect timeout for peer hops, in milliseconds. */
  public static final int PEER_CONNECT_TIMEOUT_MS = 2000;
  /** TLS handshake timeout for peer hops, in seconds. */
  public static final int PEER_HANDSHAKE_TIMEOUT_S = 5;

  /** {@code --tls-engine} value for the JDK's TLS (JSSE). */
  public static final String ENGINE_JDK = "jdk";
  /** {@code --tls-engine} value for OpenSSL (BoringSSL through netty-tcnative). */
  public static final String ENGINE_OPENSSL = "openssl";
  /**
   * {@code --tls-engine} value (the default) for OpenSSL where netty-tcnative loads (linux-x86_64 with glibc), the
   * JDK's TLS elsewhere: measured side by side (bench/compare, README "Performance"), OpenSSL accepts 2.3x the new TLS
   * connections per second of the JDK engine and takes about a third off the peer hop's CPU per request.
   */
  public static final String ENGINE_AUTO = "auto";

  private TlsOptions() {
  }

  /**
   * The TLS engine named by {@code --tls-engine}, with its session cache on (TLS 1.2 session IDs and TLS 1.3 tickets:
   * the JDK server issues stateless tickets and the JDK client caches sessions per peer host and port by default;
   * OpenSSL's server and client caches are Vert.x's {@link io.vertx.core.net.OpenSSLEngineOptions#setSessionCacheEnabled}), handshakes
   * on the event loop (no worker thread, as Vert.x's default).
   *
   * @param name {@value #ENGINE_JDK}, {@value #ENGINE_OPENSSL} or {@value #ENGINE_AUTO} (see {@link #resolve})
   * @return new engine options
   * @throws IllegalArgumentException naming {@code --tls-engine} for another name, or for openssl when
   *                                  netty-tcnative cannot be loaded on this machine (with the cause)
   */
  public static io.vertx.core.net.SSLEngineOptions engine(String name) {
    name = resolve(name);
    if (ENGINE_JDK.equals(name)) {
      return new io.vertx.core.net.JdkSSLEngineOptions();
    }
    if (!ENGINE_OPENSSL.equals(name)) {
      throw new IllegalArgumentException("--tls-engine: must be auto, jdk or openssl, got \"" + name + "\"");
    }
    if (!io.netty.handler.ssl.OpenSsl.isAvailable()) {
      Throwable why = io.netty.handler.ssl.OpenSsl.unavailabilityCause();
      throw new IllegalArgumentException("--tls-engine=openssl: OpenSSL (netty-tcnative-boringssl-static) is not"
          + " available on this machine (" + System.getProperty("os.name") + "/" + System.getProperty("os.arch")
          + "): " + (why == null ? "unknown reason" : why.toString()), why);
    }
    return new io.vertx.core.net.OpenSSLEngineOptions().setSessionCacheEnabled(true);
  }

  /**
   * The engine {@code --tls-engine} stands for on this machine.
   *
   * @param name {@value #ENGINE_JDK}, {@value #ENGINE_OPENSSL} or {@value #ENGINE_AUTO}
   * @return {@code name}, except {@value #ENGINE_AUTO}: {@value #ENGINE_OPENSSL} when netty-tcnative can be loaded
   *         here, else {@value #ENGINE_JDK}
   */
  public static String resolve(String name) {
    if (!ENGINE_AUTO.equals(name)) {
      return name;
    }
    return io.netty.handler.ssl.OpenSsl.isAvailable() ? ENGINE_OPENSSL : ENGINE_JDK;
  }

  /**
   * The ingress options of {@link #server} on another TLS engine and with HTTP/2: ALPN offering {@code h2} then
   * {@code http/1.1} (kube-apiserver's {@code NextProtos}), plain HTTP still answered 400 ({@link PlainHttpAnswer}).
   *
   * @param o      options from {@link #server}
   * @param engine from {@link #engine}
   * @param http2  true to offer {@code h2} through ALPN; false for HTTP/1.1 only (no ALPN)
   * @return {@code o}
   */
  public static HttpServerOptions serverEngine(HttpServerOptions o, io.vertx.core.net.SSLEngineOptions engine,
                                               boolean http2) {
    o.setSslEngineOptions(new PlainHttpAnswer(engine)).setUseAlpn(http2);
    if (http2) {
      o.setAlpnVersions(List.of(HttpVersion.HTTP_2, HttpVersion.HTTP_1_1));
    }
    return o;
  }

  /**
   * WebSocket subprotocols a watch over WebSocket may ask for; the one requested is echoed in the {@code 101}, as
   * kube-apiserver's websocket server does ({@code golang.org/x/net/websocket} via {@code apiserver/pkg/endpoints/
   * handlers/watch.go}; the names of {@code apimachinery/pkg/util/httpstream/wsstream}).
   */
  public static final List<String> WEBSOCKET_SUB_PROTOCOLS = List.of("binary.k8s.io", "base64.binary.k8s.io");

  /**
   * Options for the HTTPS ingress: TLS only (plain HTTP answered 400 as Go does, {@link PlainHttpAnswer}), TLS 1.2/1.3,
   * HTTP/1.1, {@link #WEBSOCKET_SUB_PROTOCOLS}, the serving key pair, and client certificates
   * requested (not required) and trusted when they chain to either CA, so that user certs ({@code --client-ca-file})
   * and peer-hop certs ({@code --requestheader-client-ca-file}) both pass the handshake; {@link Authenticator} then
   * tells them apart. Host and port are left to the caller.
   *
   * @param tlsCertFile               {@code --tls-cert-file}: PEM serving certificate (chain), required
   * @param tlsPrivateKeyFile         {@code --tls-private-key-file}: PEM private key, required
   * @param clientCaFile              {@code --client-ca-file}: PEM CA bundle, or null
   * @param requestheaderClientCaFile {@code --requestheader-client-ca-file}: PEM CA bundle, or null
   * @return new server options; client auth is {@link ClientAuth#NONE} when both CA files are null
   * @throws IllegalArgumentException naming the flag when a file is missing, unreadable or invalid, or the key does
   *                                  not match the certificate
   */
  public static HttpServerOptions server(String tlsCertFile, String tlsPrivateKeyFile, String clientCaFile,
                                         String requestheaderClientCaFile) {
    HttpServerOptions o = new HttpServerOptions().setSsl(true).setUseAlpn(false)
        .setWebSocketSubProtocols(WEBSOCKET_SUB_PROTOCOLS)
        .setSslEngineOptions(new PlainHttpAnswer()).setEnabledSecureTransportProtocols(PROTOCOLS)
        .setKeyCertOptions(keyCert(tlsCertFile, "--tls-cert-file", tlsPrivateKeyFile, "--tls-private-key-file"));
    PemTrustOptions trust = new PemTrustOptions();
    List<X509Certificate> cas = new ArrayList<>();
    if (clientCaFile != null) {
      cas.addAll(Pem.readCertificates(path(clientCaFile, "--client-ca-file"), "--client-ca-file"));
    }
    if (requestheaderClientCaFile != null) {
      cas.addAll(Pem.readCertificates(path(requestheaderClientCaFile, "--requestheader-client-ca-file"),
          "--requestheader-client-ca-file"));
    }
    if (cas.isEmpty()) {
      return o.setClientAuth(ClientAuth.NONE);
    }
    // any client certificate completes the handshake; the Authenticator verifies it per CA (401 when unknown)
    return o.setTrustOptions(new DeferredClientTrust(cas).toTrustOptions())
        .setClientAuth(ClientAuth.REQUEST);
  }

  /**
   * Options of the clustered Vert.x event bus (breaker F11): TLS 1.2/1.3 both ways, client certificate required;
   * each node presents its serving key pair and accepts only certificates chaining to {@code caFile} (the JDK's PKIX
   * checks, with the serverAuth usage for the listening side and clientAuth for the connecting side), so the bus is
   * encrypted and only holders of a key pair from that CA connect. Vert.x rebuilds its bus client and server options
   * from {@code toJson()}, so only serializable PEM options are used here (no custom trust manager).
   *
   * @param host     the address the bus listens on and advertises ({@code --cluster-host})
   * @param certFile {@code --tls-cert-file}: the node's serving certificate (needs serverAuth and clientAuth usages)
   * @param keyFile  {@code --tls-private-key-file}
   * @param caFile   the CA that signs the nodes' serving certificates ({@code --peer-ca-file})
   * @param caFlag   the flag that named {@code caFile}, for errors
   * @return new event bus options (port 0: any free port, as members learn it through the cluster)
   * @throws IllegalArgumentException naming the flag when a file is missing, unreadable or invalid
   */
  public static io.vertx.core.eventbus.EventBusOptions eventBus(String host, String certFile, String keyFile,
                                                               String caFile, String caFlag) {
    io.vertx.core.eventbus.EventBusOptions o = new io.vertx.core.eventbus.EventBusOptions().setHost(host).setPort(0)
        .setSsl(true).setEnabledSecureTransportProtocols(PROTOCOLS).setClientAuth(ClientAuth.REQUIRED)
        .setKeyCertOptions(keyCert(certFile, "--tls-cert-file", keyFile, "--tls-private-key-file"))
        .setTrustOptions(pemTrust(caFile, caFlag));
    o.setSslHandshakeTimeout(PEER_HANDSHAKE_TIMEOUT_S).setSslHandshakeTimeoutUnit(TimeUnit.SECONDS);
    return o;
  }

  private static PemTrustOptions pemTrust(String caFile, String caFlag) {
    PemTrustOptions trust = new PemTrustOptions();
    for (X509Certificate ca : Pem.readCertificates(path(caFile, caFlag), caFlag)) {
      trust.addCertValue(Buffer.buffer(Pem.encodeCertificates(List.of(ca)), StandardCharsets.US_ASCII.name()));
    }
    return trust;
  }

  /**
   * Options for the peer-hop HTTPS client (KEP-4020): mutual TLS with the proxy client key pair, peers' serving
   * certs verified against {@code --peer-ca-file} including the host name, TLS 1.2/1.3, HTTP/1.1 keep-alive (no ALPN),
   * connect timeout {@value #PEER_CONNECT_TIMEOUT_MS} ms, handshake timeout {@value #PEER_HANDSHAKE_TIMEOUT_S} s.
   * Create the client with {@code vertx.createHttpClient(options, TlsOptions.peerPool())}.
   *
   * @param peerCaFile          {@code --peer-ca-file}: PEM CA bundle that signs peers' serving certs, required
   * @param proxyClientCertFile {@code --proxy-client-cert-file}: PEM client certificate (chain), required
   * @param proxyClientKeyFile  {@code --proxy-client-key-file}: PEM private key, required
   * @return new client options
   * @throws IllegalArgumentException naming the flag when a file is missing, unreadable or invalid
   */
  public static HttpClientOptions peerClient(String peerCaFile, String proxyClientCertFile,
                                             String proxyClientKeyFile) {
    PemTrustOptions trust = new PemTrustOptions();
    for (X509Certificate ca : Pem.readCertificates(path(peerCaFile, "--peer-ca-file"), "--peer-ca-file")) {
      trust.addCertValue(Buffer.buffer(Pem.encodeCertificates(List.of(ca)), StandardCharsets.US_ASCII.name()));
    }
    HttpClientOptions o = new HttpClientOptions().setSsl(true).setUseAlpn(false)
        .setProtocolVersion(HttpVersion.HTTP_1_1).setKeepAlive(true).setPipelining(false)
        .setVerifyHost(true).setEnabledSecureTransportProtocols(PROTOCOLS)
        .setConnectTimeout(PEER_CONNECT_TIMEOUT_MS).setTrustOptions(trust)
        .setMaxHeaderSize(io.mvproxy.api.ClientLimits.MAX_RESPONSE_HEADER_BYTES)
        .setKeyCertOptions(keyCert(proxyClientCertFile, "--proxy-client-cert-file", proxyClientKeyFile,
            "--proxy-client-key-file"));
    o.setSslHandshakeTimeout(PEER_HANDSHAKE_TIMEOUT_S).setSslHandshakeTimeoutUnit(TimeUnit.SECONDS);
    return o;
  }

  /**
   * Makes peer-hop client options offer HTTP/2 through ALPN ({@code h2}, then {@code http/1.1}: a peer that does not
   * offer h2 is spoken to in HTTP/1.1 on that connection), with the stream window and frame size the ingress offers
   * ({@value #HTTP2_STREAM_WINDOW_BYTES} bytes, as kube-apiserver's h2 server), a header list of up to
   * {@link io.mvproxy.api.ClientLimits#MAX_RESPONSE_HEADER_BYTES} (Vert.x's default is 8 KiB) and the peer's own
   * stream limit
   * ({@code SETTINGS_MAX_CONCURRENT_STREAMS}) as the multiplexing limit.
   *
   * @param o options from {@link #peerClient}
   * @return {@code o}
   */
  public static HttpClientOptions offerHttp2(HttpClientOptions o) {
    return o.setProtocolVersion(HttpVersion.HTTP_2).setUseAlpn(true).setHttp2MultiplexingLimit(-1)
        .setInitialSettings(new io.vertx.core.http.Http2Settings().setInitialWindowSize(HTTP2_STREAM_WINDOW_BYTES)
            .setMaxFrameSize(HTTP2_STREAM_WINDOW_BYTES).setPushEnabled(false)
            .setMaxHeaderListSize(io.mvproxy.api.ClientLimits.MAX_RESPONSE_HEADER_BYTES))
        .setHttp2ConnectionWindowSize(HTTP2_CONNECTION_WINDOW_BYTES);
  }

  /**
   * Connection pool sizing for peer hops: {@value #PEER_POOL_SIZE} HTTP/1.1 connections per peer and a bounded wait
   * queue of {@value #PEER_WAIT_QUEUE} (Vert.x defaults: 5 connections, unbounded queue).
   *
   * @return new pool options
   */
  public static PoolOptions peerPool() {
    return new PoolOptions().setHttp1MaxSize(PEER_POOL_SIZE).setMaxWaitQueueSize(PEER_WAIT_QUEUE);
  }

  /**
   * Reads and checks a certificate/key pair and returns it as normalized PEM values.
   *
   * @param certFile certificate file path
   * @param certFlag its flag name, for errors
   * @param keyFile  key file path
   * @param keyFlag  its flag name, for errors
   * @return Vert.x key/cert options holding the PEM values
   * @throws IllegalArgumentException naming the flag on any problem
   */
  public static PemKeyCertOptions keyCert(String certFile, String certFlag, String keyFile, String keyFlag) {
    List<X509Certificate> chain = Pem.readCertificates(path(certFile, certFlag), certFlag);
    PrivateKey key = Pem.readPrivateKey(path(keyFile, keyFlag), keyFlag);
    checkPair(chain.get(0), key, certFlag, keyFlag);
    return new PemKeyCertOptions()
        .setCertValue(Buffer.buffer(Pem.encodeCertificates(chain), StandardCharsets.US_ASCII.name()))
        .setKeyValue(Buffer.buffer(Pem.encodePrivateKey(key), StandardCharsets.US_ASCII.name()));
  }

  private static Path path(String file, String flag) {
    if (file == null || file.isBlank()) {
      throw new IllegalArgumentException(flag + " is required");
    }
    try {
      return Path.of(file);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(flag + ": invalid path '" + file + "'", e);
    }
  }

  private static void checkPair(X509Certificate cert, PrivateKey key, String certFlag, String keyFlag) {
    String alg = switch (key.getAlgorithm()) {
      case "EC", "ECDSA" -> "SHA256withECDSA";
      case "RSA" -> "SHA256withRSA";
      case "Ed25519", "EdDSA" -> "Ed25519";
      default -> null;
    };
    if (alg == null) {
      return; // unknown algorithm: leave the check to the TLS engine
    }
    try {
      byte[] probe = "mvproxy key pair check".getBytes(StandardCharsets.US_ASCII);
      Signature s = Signature.getInstance(alg);
      s.initSign(key);
      s.update(probe);
      byte[] sig = s.sign();
      Signature v = Signature.getInstance(alg);
      v.initVerify(cert.getPublicKey());
      v.update(probe);
      if (!v.verify(sig)) {
        throw new IllegalArgumentException(keyFlag + " does not match the certificate in " + certFlag);
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(keyFlag + " does not match the certificate in " + certFlag + ": "
          + e.getMessage(), e);
    }
  }
}
