package io.mvproxy.security;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpRequestEncoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.core.net.ClientOptionsBase;
import io.vertx.core.net.ConnectOptions;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Logger;

/**
 * An HTTP/1.1 protocol upgrade ({@code Connection: Upgrade} with {@code Upgrade: websocket} or {@code SPDY/3.1}:
 * WebSocket watches, {@code exec}/{@code attach}/{@code portforward}-style subresources) tunnelled to the next hop
 * (a peer or an APIService backend), as {@code k8s.io/apimachinery/pkg/util/proxy/upgradeaware.go}
 * {@code UpgradeAwareHandler.tryUpgrade}: a dedicated HTTP/1.1 (TLS) connection per upgrade, never a pooled or
 * HTTP/2 one ({@link #dial}); the request line and headers written on it; the next hop's response head read
 * ({@link Dialed}); then, on {@code 101 Switching Protocols}, the caller's connection is taken over
 * ({@code HttpServerRequest.toNetSocket()}), the 101 relayed with every header of the next hop's and raw bytes
 * pumped both ways, with back-pressure, both connections closed as soon as either closes or fails
 * ({@link Dialed#splice}); an error answer (status 400 or more) relayed as a normal response ({@link Dialed#relay}); any other status is {@code 503} "invalid upgrade response: status code N"
 * (upstream's text). Everything runs on the caller's event loop (the Vert.x context the request is handled on).
 */
public final class UpgradeTunnel {
  /**
   * Longest response head (status line and headers) of the next hop, bytes: the ingress's own header limit
   * ({@code ServerLimits}, Go's {@code DefaultMaxHeaderBytes}).
   */
  public static final int MAX_RESPONSE_HEAD_BYTES = 1 << 20;
  /** Longest status line of the next hop's response, bytes. */
  public static final int MAX_STATUS_LINE_BYTES = 8192;
  /**
   * How long an error answer of the next hop may take to be relayed, ms (upstream's 10 s read/write deadline for
   * echoing a non-101 response to the hijacked connection); then both connections are cut.
   */
  public static final long ERROR_ANSWER_TIMEOUT_MS = 10_000;
  private static final Logger LOG = Logger.getLogger(UpgradeTunnel.class.getName());
  /** Response headers never copied onto the caller's 101 (a 101 has no body). */
  private static final java.util.Set<String> NO_BODY = java.util.Set.of("content-length", "transfer-encoding");

  private UpgradeTunnel() {
  }

  /**
   * Tells whether a request asks for a protocol upgrade, as {@code httpstream.IsUpgradeRequest}: an HTTP/1.x request
   * with a {@code Connection} header value containing {@code upgrade} (ignoring case; Firefox sends
   * {@code keep-alive, Upgrade}) and an {@code Upgrade} header. HTTP/2 requests never are (RFC 9113 8.2.2).
   *
   * @param req the caller's request
   * @return true for an upgrade request
   */
  public static boolean isUpgradeRequest(HttpServerRequest req) {
    if (req.version() == io.vertx.core.http.HttpVersion.HTTP_2 || req.getHeader("Upgrade") == null) {
      return false;
    }
    for (String c : req.headers().getAll("Connection")) {
      if (c.toLowerCase(Locale.ROOT).contains("upgrade")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Options of the client dialling upgrades: the TCP and TLS settings of an HTTP client's options (trust, client key
   * pair, protocols, handshake and connect timeouts, TLS engine), HTTP/1.1 only (no ALPN: a peer offering h2 speaks
   * HTTP/1.1 on this connection), the server's host name (or IP) checked against its certificate when
   * {@code verifyHost} (as the HTTP client's {@code verifyHost}).
   *
   * @param http       the HTTP client options of the same hop (peer-hop or APIService backend options)
   * @param verifyHost whether the server certificate must name the host dialled
   * @return new NetClient options
   */
  public static NetClientOptions clientOptions(ClientOptionsBase http, boolean verifyHost) {
    NetClientOptions o = new NetClientOptions(http);
    o.setUseAlpn(false).setApplicationLayerProtocols(null).setHostnameVerificationAlgorithm(verifyHost ? "HTTPS" : "");
    o.setTcpKeepAlive(true);
    return o;
  }

  /**
   * Where the upgrade goes.
   *
   * @param host      host name or IP dialled
   * @param port      port
   * @param ssl       TLS (always for peers)
   * @param authority {@code Host} header value
   */
  public record Target(String host, int port, boolean ssl, String authority) {
  }

  /**
   * The request line and headers sent on the dedicated connection: the caller's method and URI, the headers built by
   * {@link ProxyHop#requestHeaders} (identity as front-proxy headers, {@code X-Forwarded-*}, hop-by-hop ones dropped)
   * plus the caller's {@code Connection: Upgrade} and {@code Upgrade} values, and its body when it had one.
   *
   * @param in      the caller's request
   * @param uri     request URI on the next hop (path and query)
   * @param headers headers from {@link ProxyHop#requestHeaders}, plus any of the hop's own (changed: the upgrade
   *                headers are added)
   * @param body    the caller's body as read by the ingress, or null
   * @return the encoded request head (and body)
   * @throws IllegalArgumentException when a header name or value is not valid HTTP (e.g. holds CR or LF)
   */
  static ByteBuf encodeRequest(HttpServerRequest in, String uri, MultiMap headers, Buffer body) {
    headers.set("Connection", "Upgrade");
    headers.remove("Upgrade");
    for (String u : in.headers().getAll("Upgrade")) {
      headers.add("Upgrade", u);
    }
    ByteBuf content = body == null || body.length() == 0 ? Unpooled.EMPTY_BUFFER
        : Unpooled.wrappedBuffer(body.getBytes());
    DefaultFullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1,
        io.netty.handler.codec.http.HttpMethod.valueOf(in.method().name()), uri, content);
    for (Map.Entry<String, String> h : headers) {
      req.headers().add(h.getKey(), h.getValue());  // validates names and values (no CR/LF injection)
    }
    if (content.isReadable()) {
      req.headers().set("Content-Length", content.readableBytes());
    }
    EmbeddedChannel enc = new EmbeddedChannel(new HttpRequestEncoder());
    enc.writeOutbound(req);
    ByteBuf out = Unpooled.buffer();
    for (Object o = enc.readOutbound(); o != null; o = enc.readOutbound()) {
      ByteBuf b = (ByteBuf) o;
      out.writeBytes(b);
      b.release();
    }
    enc.finishAndReleaseAll();
    return out;
  }

  /**
   * Opens a dedicated connection to the next hop, sends the upgrade request and reads the response head.
   * Call on the caller's request context. Nothing is sent to the caller.
   *
   * @param vertx         for the head timer
   * @param client        client from {@link #clientOptions} (no pooling: each call opens its own connection)
   * @param target        where to
   * @param in            the caller's request (method, URI, {@code Upgrade} values)
   * @param uri           request URI on the next hop
   * @param headers       headers for the next hop ({@link ProxyHop#requestHeaders} plus the hop's own)
   * @param body          the caller's body as read by the ingress, or null
   * @param connectMs     connect (TCP and TLS) limit, ms
   * @param headTimeoutMs how long the response head may take after the request was sent, ms
   * @return the next hop's answer; fails with {@link DialException} ({@code sent} false when the request never
   *     reached the next hop: connection refused, TLS failure, connect timeout)
   */
  public static Future<Dialed> dial(Vertx vertx, NetClient client, Target target, HttpServerRequest in, String uri,
                                    MultiMap headers, Buffer body, int connectMs, long headTimeoutMs) {
    ByteBuf request;
    try {
      request = encodeRequest(in, uri, headers, body);
    } catch (IllegalArgumentException e) {
      return Future.failedFuture(new DialException("error sending request: " + e.getMessage(), e, false));
    }
    Promise<Dialed> promise = Promise.promise();
    ConnectOptions co = new ConnectOptions().setHost(target.host()).setPort(target.port()).setSsl(target.ssl())
        .setTimeout(connectMs);
    client.connect(co).onComplete(ar -> {
      if (ar.failed()) {
        request.release();
        promise.fail(new DialException("error dialing backend: " + ar.cause().getMessage(), ar.cause(), false));
        return;
      }
      new Reader(vertx, ar.result(), promise, headTimeoutMs).start(request);
    });
    return promise.future();
  }

  /** A failure before the next hop's response head. */
  public static final class DialException extends Exception {
    private final boolean sent;

    DialException(String message, Throwable cause, boolean sent) {
      super(message, cause);
      this.sent = sent;
    }

    /** @return true when the request may have reached the next hop (written on an open connection) */
    public boolean sent() {
      return sent;
    }
  }

  /** Reads the response head from the dedicated connection, then hands it over as {@link Dialed}. */
  private static final class Reader {
    final Vertx vertx;
    final NetSocket socket;
    final Promise<Dialed> promise;
    final long headTimeoutMs;
    final EmbeddedChannel decoder = new EmbeddedChannel(new HttpResponseDecoder(new HttpDecoderConfig()
        .setMaxInitialLineLength(MAX_STATUS_LINE_BYTES).setMaxHeaderSize(MAX_RESPONSE_HEAD_BYTES)));
    long timer = -1;
    Dialed dialed;

    Reader(Vertx vertx, NetSocket socket, Promise<Dialed> promise, long headTimeoutMs) {
      this.vertx = vertx;
      this.socket = socket;
      this.promise = promise;
      this.headTimeoutMs = headTimeoutMs;
    }

    void start(ByteBuf request) {
      timer = vertx.setTimer(headTimeoutMs, t -> fail("timeout awaiting response headers after "
          + headTimeoutMs + " ms"));
      socket.handler(this::read);
      socket.exceptionHandler(e -> fail(String.valueOf(e.getMessage())));
      socket.closeHandler(v -> {
        if (dialed == null) {
          fail("the connection was closed before the response head (EOF)");
        }
      });
      socket.write(BufferInternal.buffer(request)).onFailure(e -> fail("error sending request: " + e.getMessage()));
    }

    private void fail(String why) {
      if (dialed != null || promise.future().isComplete()) {
        return;
      }
      vertx.cancelTimer(timer);
      socket.close();
      decoder.finishAndReleaseAll();
      promise.tryFail(new DialException(why, null, true));
    }

    private void read(Buffer buf) {
      decoder.writeInbound(Unpooled.wrappedBuffer(buf.getBytes()));
      List<Object> parts = new ArrayList<>();
      for (Object o = decoder.readInbound(); o != null; o = decoder.readInbound()) {
        parts.add(o);
      }
      if (dialed != null) {
        dialed.parts(parts);
        return;
      }
      if (parts.isEmpty()) {
        return;
      }
      Object first = parts.get(0);
      if (!(first instanceof HttpResponse head) || head.decoderResult().isFailure()) {
        parts.forEach(io.netty.util.ReferenceCountUtil::release);
        Throwable cause = first instanceof HttpResponse h ? h.decoderResult().cause() : null;
        fail("malformed HTTP response: " + (cause == null ? "not a response" : cause.getMessage()));
        return;
      }
      vertx.cancelTimer(timer);
      socket.pause();
      dialed = new Dialed(vertx, socket, decoder, head);
      dialed.parts(parts.subList(1, parts.size()));
      promise.complete(dialed);
    }
  }

  /**
   * The next hop's answer to an upgrade request, read up to the end of its head; the connection is paused until
   * {@link #splice}, {@link #relay} or {@link #close} decides what happens to it.
   */
  public static final class Dialed {
    private final Vertx vertx;
    private final NetSocket backend;
    private final EmbeddedChannel decoder;
    private final HttpResponse head;
    private final MultiMap headers = MultiMap.caseInsensitiveMultiMap();
    /** Bytes or HTTP parts received after the head and not passed on yet. */
    private final List<Object> pending = new ArrayList<>();
    private java.util.function.Consumer<Object> sink;
    private boolean closed;

    Dialed(Vertx vertx, NetSocket backend, EmbeddedChannel decoder, HttpResponse head) {
      this.vertx = vertx;
      this.backend = backend;
      this.decoder = decoder;
      this.head = head;
      head.headers().forEach(e -> headers.add(e.getKey(), e.getValue()));
    }

    /** @return the next hop's status code */
    public int statusCode() {
      return head.status().code();
    }

    /** @return the next hop's response headers */
    public MultiMap headers() {
      return headers;
    }

    private void parts(List<Object> parts) {
      for (Object p : parts) {
        if (sink != null) {
          sink.accept(p);
        } else {
          pending.add(p);
        }
      }
    }

    private void drainTo(java.util.function.Consumer<Object> to) {
      sink = to;
      List<Object> p = new ArrayList<>(pending);
      pending.clear();
      p.forEach(to);
    }

    /** Closes the connection to the next hop (idempotent). */
    public void close() {
      if (!closed) {
        closed = true;
        pending.forEach(io.netty.util.ReferenceCountUtil::release);
        pending.clear();
        backend.close();
        decoder.finishAndReleaseAll();
      }
    }

    /**
     * Takes over the caller's connection after a {@code 101}: sends the caller a {@code 101 Switching Protocols}
     * with every header of the next hop's (its {@code Upgrade}, {@code Sec-WebSocket-Accept},
     * {@code Sec-WebSocket-Protocol}, {@code X-Stream-Protocol-Version}...), then the bytes the next hop already
     * sent after its head, then pumps bytes both ways until either side closes, and closes both.
     *
     * @param in the caller's upgrade request (HTTP/1.1, nothing answered yet)
     * @return completes when the tunnel closed; fails when the caller's connection could not be taken over (the
     *     next hop's connection is then closed)
     */
    public Future<Void> splice(HttpServerRequest in) {
      HttpServerResponse out = in.response();
      head.headers().forEach(e -> {
        if (!NO_BODY.contains(e.getKey().toLowerCase(Locale.ROOT))) {
          out.headers().add(e.getKey(), e.getValue());
        }
      });
      Promise<Void> done = Promise.promise();
      hijack(in).onComplete(ar -> {
        if (ar.failed()) {
          close();
          done.fail(ar.cause());
          return;
        }
        NetSocket caller = ar.result();
        Runnable closeBoth = () -> {
          caller.close();
          close();
          done.tryComplete();
        };
        // the bytes the next hop sent right after its head (its decoder passed them on raw: UPGRADED state)
        List<Object> early = new ArrayList<>(pending);
        pending.clear();
        for (Object p : early) {
          ByteBuf b = p instanceof HttpContent c ? c.content() : p instanceof ByteBuf bb ? bb : null;
          if (b != null && b.isReadable()) {
            caller.write(copy(b));
          }
          io.netty.util.ReferenceCountUtil.release(p);
        }
        // from now on raw bytes both ways, without the decoder
        pump(backend, caller);
        pump(caller, backend);
        for (NetSocket s : List.of(backend, caller)) {
          s.endHandler(v -> closeBoth.run());
          s.closeHandler(v -> closeBoth.run());
          s.exceptionHandler(e -> closeBoth.run());
        }
        backend.resume();
      });
      return done.future();
    }

    /** Copies every buffer of {@code from} to {@code to}, pausing {@code from} while {@code to}'s queue is full. */
    private static void pump(NetSocket from, NetSocket to) {
      from.handler(b -> {
        to.write(b);
        if (to.writeQueueFull()) {
          from.pause();
          to.drainHandler(v -> from.resume());
        }
      });
    }

  /**
     * Relays an error answer (status 400 or more) of the next hop to the caller as a normal response: status,
     * headers (minus hop-by-hop ones, {@link ProxyHop#copyHeaders}), body streamed (upstream writes it to the
     * hijacked connection and closes that; here the caller's connection stays as HTTP/1.1 keeps it). The next hop's
     * connection is closed at the end; after {@link #ERROR_ANSWER_TIMEOUT_MS} the caller's response is reset.
     *
     * @param out the caller's response (nothing sent yet)
     */
    public void relay(HttpServerResponse out) {
      out.setStatusCode(statusCode());
      ProxyHop.copyHeaders(headers, out.headers());
      String len = headers.get("Content-Length");
      if (len != null) {
        out.putHeader("Content-Length", len);
      } else {
        out.setChunked(true);
      }
      long timer = vertx.setTimer(ERROR_ANSWER_TIMEOUT_MS, t -> {
        LOG.info("the next hop's answer to an upgrade request took over " + ERROR_ANSWER_TIMEOUT_MS + " ms: cut");
        close();
        if (!out.ended()) {
          out.reset();
        }
      });
      backend.closeHandler(v -> {
        if (!closed && !out.ended()) {
          // a body delimited by the connection's close: the decoder ends it now (or it was cut short)
          decoder.finish();
          List<Object> rest = new ArrayList<>();
          for (Object o = decoder.readInbound(); o != null; o = decoder.readInbound()) {
            rest.add(o);
          }
          parts(rest);
          if (!out.ended()) {
            out.reset();
          }
        }
        vertx.cancelTimer(timer);
      });
      out.closeHandler(v -> close());
      drainTo(p -> {
        if (p instanceof HttpContent c) {
          if (c.content().isReadable() && !out.ended()) {
            out.write(copy(c.content()));
          }
          c.release();
          if (p instanceof LastHttpContent && !out.ended()) {
            vertx.cancelTimer(timer);
            out.end();
            close();
          }
        } else {
          io.netty.util.ReferenceCountUtil.release(p);
        }
      });
      backend.resume();
    }
  }

  /**
   * Answers the caller with the next hop's answer, as {@code tryUpgrade}: {@code 101}: the tunnel
   * ({@link Dialed#splice}); 400 or more: relayed ({@link Dialed#relay}); anything else: {@code 503} Status
   * "invalid upgrade response: status code N" (the next hop's connection closed).
   *
   * @param ctx               the caller's upgrade request
   * @param dialed            the next hop's answer
   * @param retryAfterSeconds {@code Retry-After} of a 503
   * @return completes when the tunnel closed or the answer was sent
   */
  public static Future<Void> answer(io.vertx.ext.web.RoutingContext ctx, Dialed dialed, int retryAfterSeconds) {
    int code = dialed.statusCode();
    if (code == 101) {
      return dialed.splice(ctx.request()).onFailure(e -> {
        LOG.warning("upgrade of " + ctx.request().path() + " not tunnelled: " + e.getMessage());
        if (!ctx.response().headWritten()) {
          refuse(ctx, io.mvproxy.api.StatusException.internal(e));
        } else {
          ctx.request().connection().close();
        }
      });
    }
    if (code >= 400) {
      dialed.relay(ctx.response());
      return Future.succeededFuture();
    }
    dialed.close();
    refuse(ctx, io.mvproxy.api.StatusException.unavailable("invalid upgrade response: status code " + code,
        retryAfterSeconds));
    return Future.succeededFuture();
  }

  /**
   * Answers an upgrade request that could not be tunnelled with an error Status (kube's responder: {@code 503} for
   * dial failures), on the caller's connection kept alive as Go's {@code http.Error} before a hijack.
   *
   * @param ctx the caller's upgrade request (nothing answered yet)
   * @param e   the error
   */
  public static void refuse(io.vertx.ext.web.RoutingContext ctx, io.mvproxy.api.StatusException e) {
    e.respond(ctx);
  }

  /** @return the readable bytes of a Netty buffer as a Vert.x buffer of their own (the Netty one is released apart) */
  private static Buffer copy(ByteBuf b) {
    return Buffer.buffer(io.netty.buffer.ByteBufUtil.getBytes(b));
  }

  /**
   * Takes over the caller's HTTP/1.1 connection, sending the {@code 101} with the response's headers. Vert.x does
   * this through {@code toNetSocket()} for {@code GET} only ({@code HttpUtils.isConnectOrUpgrade}); SPDY upgrades of
   * {@code exec}, {@code attach} and {@code portforward} come as {@code POST} (client-go's {@code remotecommand}), so
   * for other methods the same Vert.x step is called with the method it accepts.
   *
   * @param in the caller's upgrade request
   * @return the caller's raw connection
   */
  static Future<NetSocket> hijack(HttpServerRequest in) {
    if (in.method() == HttpMethod.GET) {
      return in.toNetSocket();
    }
    HttpServerResponse resp = in.response();
    try {
      java.lang.reflect.Method m = resp.getClass().getDeclaredMethod("netSocket", HttpMethod.class, MultiMap.class);
      m.setAccessible(true);
      @SuppressWarnings("unchecked")
      Future<NetSocket> f = (Future<NetSocket>) m.invoke(resp, HttpMethod.GET, in.headers());
      return f;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return Future.failedFuture(new IllegalStateException("cannot take over the connection of a "
          + in.method() + " upgrade on " + resp.getClass().getName() + ": " + e, e));
    }
  }

}
