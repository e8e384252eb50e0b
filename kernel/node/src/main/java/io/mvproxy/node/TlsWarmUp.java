package io.mvproxy.node;

import io.mvproxy.security.Pem;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.logging.Logger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.TrustManagerFactory;

/**
 * Warms the JVM's TLS stack (JSSE: the handshake, the node's key type's signatures, key exchange, certificate
 * parsing and PKIX validation, AES-GCM) on a background thread while the node joins its cluster, by running TLS 1.3
 * and TLS 1.2 handshakes between two in-memory {@link SSLEngine}s with the node's own serving key pair. A restarted
 * JVM otherwise pays that class loading and first-use cost on its critical path, several times over: the event bus
 * (always JSSE), the HTTPS ingress and the peer hop when {@code --tls-engine} resolves to {@code jdk} (with OpenSSL
 * they do not use JSSE), the controllers' loopback clients (README "Routing rules": the
 * start-up stages). Nothing waits for it and nothing depends on it; a failure is logged at FINE and ignored; its duration is logged at INFO.
 */
final class TlsWarmUp {
  private static final Logger LOG = Logger.getLogger(TlsWarmUp.class.getName());
  private static final char[] PASSWORD = "warm-up".toCharArray();

  private TlsWarmUp() {
  }

  /**
   * Starts the warm-up on a daemon thread (returns at once).
   *
   * @param certFile the node's serving certificate chain (PEM), {@code --tls-cert-file}
   * @param keyFile  its private key (PEM), {@code --tls-private-key-file}
   * @param caFile   the CA that signed it ({@code --peer-ca-file} or {@code --client-ca-file}), or null: then the
   *                 client side presents no certificate
   */
  static void start(Path certFile, Path keyFile, Path caFile) {
    if (certFile == null || keyFile == null) {
      return;
    }
    Thread t = new Thread(() -> {
      long t0 = System.nanoTime();
      try {
        run(certFile, keyFile, caFile);
        LOG.info("TLS warm-up done in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
      } catch (Exception | LinkageError e) {
        LOG.fine("TLS warm-up failed (harmless): " + e);
      }
    }, "mvproxy-tls-warm-up");
    t.setDaemon(true);
    t.setPriority(Thread.MIN_PRIORITY);
    t.start();
  }

  /**
   * Runs the handshakes (blocking).
   *
   * @param certFile as {@link #start}
   * @param keyFile  as {@link #start}
   * @param caFile   as {@link #start}
   * @throws Exception whatever the PEM files or JSSE throw
   */
  static void run(Path certFile, Path keyFile, Path caFile) throws Exception {
    List<X509Certificate> chain = Pem.readCertificates(certFile, "--tls-cert-file");
    PrivateKey key = Pem.readPrivateKey(keyFile, "--tls-private-key-file");
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    ks.setKeyEntry("node", key, PASSWORD, chain.toArray(new X509Certificate[0]));
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, PASSWORD);
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    List<X509Certificate> roots = caFile == null ? List.of(chain.get(chain.size() - 1))
        : Pem.readCertificates(caFile, "--peer-ca-file");
    for (int i = 0; i < roots.size(); i++) {
      trust.setCertificateEntry("ca-" + i, roots.get(i));
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    for (String protocol : new String[] {"TLSv1.3", "TLSv1.2"}) {
      SSLContext ctx = SSLContext.getInstance(protocol);
      // mutual TLS as the event bus and the peer hop: both sides present the node's key pair
      ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
      SSLEngine server = ctx.createSSLEngine();
      server.setUseClientMode(false);
      if (caFile != null) {
        server.setNeedClientAuth(true);
      }
      server.setEnabledProtocols(new String[] {protocol});
      SSLEngine client = ctx.createSSLEngine("localhost", 443);
      client.setUseClientMode(true);
      client.setEnabledProtocols(new String[] {protocol});
      handshake(client, server);
    }
  }

  /** Drives both engines until their handshakes finish and one record went each way. */
  private static void handshake(SSLEngine client, SSLEngine server) throws Exception {
    int size = Math.max(client.getSession().getPacketBufferSize(), server.getSession().getPacketBufferSize());
    int app = Math.max(client.getSession().getApplicationBufferSize(),
        server.getSession().getApplicationBufferSize());
    ByteBuffer toServer = ByteBuffer.allocate(size * 4);
    ByteBuffer toClient = ByteBuffer.allocate(size * 4);
    ByteBuffer clientIn = ByteBuffer.allocate(app * 2);
    ByteBuffer serverIn = ByteBuffer.allocate(app * 2);
    ByteBuffer ping = ByteBuffer.wrap("ping".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    client.beginHandshake();
    server.beginHandshake();
    for (int i = 0; i < 200; i++) {
      step(client, ping, toServer, toClient, clientIn);
      step(server, ByteBuffer.allocate(0), toClient, toServer, serverIn);
      if (serverIn.position() > 0 && !handshaking(client) && !handshaking(server)) {
        return;
      }
    }
    throw new IllegalStateException("TLS warm-up handshake did not finish");
  }

  private static boolean handshaking(SSLEngine e) {
    SSLEngineResult.HandshakeStatus s = e.getHandshakeStatus();
    return s != SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING && s != SSLEngineResult.HandshakeStatus.FINISHED;
  }

  /** One turn of an engine: run delegated tasks, wrap what it has to send, unwrap what it received. */
  private static void step(SSLEngine e, ByteBuffer out, ByteBuffer net, ByteBuffer in, ByteBuffer app)
      throws Exception {
    Runnable task;
    while ((task = e.getDelegatedTask()) != null) {
      task.run();
    }
    e.wrap(out, net);
    in.flip();
    while (in.hasRemaining()) {
      SSLEngineResult r = e.unwrap(in, app);
      while ((task = e.getDelegatedTask()) != null) {
        task.run();
      }
      if (r.getStatus() != SSLEngineResult.Status.OK || r.bytesConsumed() == 0) {
        break;
      }
    }
    in.compact();
  }
}
