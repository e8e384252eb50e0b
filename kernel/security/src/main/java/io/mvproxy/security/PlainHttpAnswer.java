package io.mvproxy.security;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.ApplicationProtocolNegotiator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.vertx.core.net.JdkSSLEngineOptions;
import io.vertx.core.net.OpenSSLEngineOptions;
import io.vertx.core.net.SSLEngineOptions;
import io.vertx.core.spi.tls.SslContextFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The answer Go's {@code net/http} server (hence kube-apiserver) gives a client that speaks plain HTTP to its TLS
 * port ({@code net/http/server.go conn.serve}, {@code tlsRecordHeaderLooksLikeHTTP}): when the first five bytes of
 * the connection are {@code "GET /"}, {@code "HEAD "}, {@code "POST "}, {@code "PUT /"} or {@code "OPTIO"}, it writes
 * {@value #ANSWER_TEXT} ({@code HTTP/1.0 400 Bad Request}, no headers) on the raw connection and closes it; any other
 * bytes that are not TLS fail the handshake and the connection is closed without an answer.
 *
 * <p>Installed as the HTTPS server's {@link SSLEngineOptions} around the engine chosen by {@code --tls-engine} (the
 * JDK's, or OpenSSL's through netty-tcnative): the {@link SslContext}s it makes create {@link SslHandler}s that look
 * at the first record header before TLS does. Everything else (protocols, ciphers, ALPN, client auth, certificates,
 * the session cache) is the wrapped engine's, configured by Vert.x, except that OpenSSL server contexts cache their key
 * material instead of converting it on every handshake.
 */
public final class PlainHttpAnswer extends SSLEngineOptions {
  /** The body Go writes after the status line and the empty header block. */
  public static final String ANSWER_TEXT = "Client sent an HTTP request to an HTTPS server.\n";
  /** The bytes written: status line, no headers, {@link #ANSWER_TEXT}. */
  public static final String ANSWER = "HTTP/1.0 400 Bad Request\r\n\r\n" + ANSWER_TEXT;
  private static final byte[] ANSWER_BYTES = ANSWER.getBytes(StandardCharsets.US_ASCII);
  private static final Set<String> HTTP_STARTS = Set.of("GET /", "HEAD ", "POST ", "PUT /", "OPTIO");
  private static final int RECORD_HEADER_BYTES = 5;

  private final SSLEngineOptions engine;

  /** JDK engine, no worker thread (Vert.x's defaults). */
  public PlainHttpAnswer() {
    this(new JdkSSLEngineOptions());
  }

  /**
   * @param engine the TLS engine doing the work ({@link JdkSSLEngineOptions} or {@link OpenSSLEngineOptions})
   */
  public PlainHttpAnswer(SSLEngineOptions engine) {
    this.engine = engine.copy();
  }

  private PlainHttpAnswer(PlainHttpAnswer that) {
    super(that);
    this.engine = that.engine.copy();
  }

  /** @return the wrapped engine's options */
  public SSLEngineOptions engine() {
    return engine;
  }

  /** @return a copy (Vert.x copies the engine options with the server options) */
  @Override
  public PlainHttpAnswer copy() {
    return new PlainHttpAnswer(this);
  }

  /** @return the wrapped engine's factory, whose server contexts answer plain HTTP as Go does */
  @Override
  public SslContextFactory sslContextFactory() {
    SslContextFactory jdk = engine.sslContextFactory();
    return new SslContextFactory() {
      @Override
      public SslContextFactory useAlpn(boolean useAlpn) {
        jdk.useAlpn(useAlpn);
        return this;
      }

      @Override
      public SslContextFactory clientAuth(ClientAuth clientAuth) {
        jdk.clientAuth(clientAuth);
        return this;
      }

      @Override
      public SslContextFactory forClient(boolean forClient) {
        jdk.forClient(forClient);
        return this;
      }

      @Override
      public SslContextFactory keyMananagerFactory(KeyManagerFactory kmf) {
        // OpenSSL: Netty converts the key and chain to PEM and into a native BIO on every handshake unless the factory
        // says its material is fixed (a JFR profile of new connections per request put that at ~6 % of the node's
        // CPU); a context's certificate files are values (new files mean a new context), so caching is safe
        jdk.keyMananagerFactory(kmf != null && engine instanceof OpenSSLEngineOptions
            ? new io.netty.handler.ssl.OpenSslCachingX509KeyManagerFactory(kmf) : kmf);
        return this;
      }

      @Override
      public SslContextFactory trustManagerFactory(TrustManagerFactory tmf) {
        jdk.trustManagerFactory(tmf);
        return this;
      }

      @Override
      public SslContextFactory enabledCipherSuites(Set<String> enabledCipherSuites) {
        jdk.enabledCipherSuites(enabledCipherSuites);
        return this;
      }

      @Override
      public SslContextFactory applicationProtocols(List<String> applicationProtocols) {
        jdk.applicationProtocols(applicationProtocols);
        return this;
      }

      @Override
      public SslContextFactory serverName(String serverName) {
        jdk.serverName(serverName);
        return this;
      }

      @Override
      public SslContext create() throws SSLException {
        SslContext ctx = jdk.create();
        return ctx.isClient() ? ctx : new Context(ctx);
      }
    };
  }

  /** @return true when a connection's first five bytes are one of Go's plain-HTTP starts */
  static boolean looksLikeHttp(ByteBuf in) {
    return HTTP_STARTS.contains(in.toString(in.readerIndex(), RECORD_HEADER_BYTES, StandardCharsets.ISO_8859_1));
  }

  /** A server context that is the wrapped engine's but makes {@link Handler}s. */
  private static final class Context extends SslContext {
    private final SslContext jdk;

    Context(SslContext jdk) {
      this.jdk = jdk;
    }

    @Override
    public boolean isClient() {
      return false;
    }

    @Override
    public List<String> cipherSuites() {
      return jdk.cipherSuites();
    }

    @Override
    public long sessionCacheSize() {
      return jdk.sessionCacheSize();
    }

    @Override
    public long sessionTimeout() {
      return jdk.sessionTimeout();
    }

    @Override
    public ApplicationProtocolNegotiator applicationProtocolNegotiator() {
      return jdk.applicationProtocolNegotiator();
    }

    @Override
    public SSLEngine newEngine(ByteBufAllocator alloc) {
      return jdk.newEngine(alloc);
    }

    @Override
    public SSLEngine newEngine(ByteBufAllocator alloc, String peerHost, int peerPort) {
      return jdk.newEngine(alloc, peerHost, peerPort);
    }

    @Override
    public SSLSessionContext sessionContext() {
      return jdk.sessionContext();
    }

    @Override
    protected SslHandler newHandler(ByteBufAllocator alloc, boolean startTls) {
      return new Handler(newEngine(alloc), startTls, null);
    }

    @Override
    public SslHandler newHandler(ByteBufAllocator alloc, Executor delegatedTaskExecutor) {
      return new Handler(newEngine(alloc), false, delegatedTaskExecutor);
    }

    @Override
    protected SslHandler newHandler(ByteBufAllocator alloc, boolean startTls, Executor delegatedTaskExecutor) {
      return new Handler(newEngine(alloc), startTls, delegatedTaskExecutor);
    }

    @Override
    protected SslHandler newHandler(ByteBufAllocator alloc, String peerHost, int peerPort, boolean startTls) {
      return new Handler(newEngine(alloc, peerHost, peerPort), startTls, null);
    }

    @Override
    public SslHandler newHandler(ByteBufAllocator alloc, String peerHost, int peerPort,
                                 Executor delegatedTaskExecutor) {
      return new Handler(newEngine(alloc, peerHost, peerPort), false, delegatedTaskExecutor);
    }

    @Override
    protected SslHandler newHandler(ByteBufAllocator alloc, String peerHost, int peerPort, boolean startTls,
                                    Executor delegatedTaskExecutor) {
      return new Handler(newEngine(alloc, peerHost, peerPort), startTls, delegatedTaskExecutor);
    }
  }

  /** An {@link SslHandler} that first looks at the connection's first five bytes. */
  private static final class Handler extends SslHandler {
    private boolean looked;
    private boolean answered;

    Handler(SSLEngine engine, boolean startTls, Executor executor) {
      super(engine, startTls, executor == null ? io.netty.util.concurrent.ImmediateExecutor.INSTANCE : executor);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws SSLException {
      if (answered) {
        in.skipBytes(in.readableBytes());
        return;
      }
      if (!looked) {
        if (in.readableBytes() < RECORD_HEADER_BYTES) {
          return; // Go waits for the whole record header too
        }
        looked = true;
        if (looksLikeHttp(in)) {
          answered = true;
          in.skipBytes(in.readableBytes());
          // written and closed from this handler's context: below TLS, so no TLS record (or close_notify) follows
          ctx.writeAndFlush(Unpooled.wrappedBuffer(ANSWER_BYTES)).addListener(f -> ctx.close());
          return;
        }
      }
      super.decode(ctx, in, out);
    }
  }
}
