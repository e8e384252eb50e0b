package io.mvproxy.api;

/**
 * Limits every HTTP client of a node applies to what it reads: the peer hop, aggregated API backends, admission and
 * conversion webhooks, audit webhooks and the controllers' loopback client. Go's {@code http.Transport}, which
 * kube-apiserver's clients use, reads up to 10 MiB of response headers ({@code MaxResponseHeaderBytes} 0); Vert.x's
 * client stops at 8 KiB ({@code HttpClientOptions.DEFAULT_MAX_HEADER_SIZE}, and as much for an HTTP/2 header list),
 * which failed a call whose answer carried many warnings though the other side had done the work (a proxied write
 * stored and answered {@code 503}; a webhook call {@code 500 HTTP header is larger than 8192 bytes}).
 */
public final class ClientLimits {
  /**
   * Largest response head a node's clients read, bytes: 1 MiB, what a node itself accepts as request headers
   * ({@code ServerLimits}, Go's {@code DefaultMaxHeaderBytes}); a node's own answers stay far below it (the warning
   * recorder keeps warnings to 4,096 runes, {@link Warnings}).
   */
  public static final int MAX_RESPONSE_HEADER_BYTES = 1 << 20;

  private ClientLimits() {
  }

  /**
   * @param o client options (an HTTP/1.1 client; see {@code TlsOptions.offerHttp2} for the HTTP/2 header list)
   * @return {@code o} reading up to {@link #MAX_RESPONSE_HEADER_BYTES} of response headers
   */
  public static <T extends io.vertx.core.http.HttpClientOptions> T apply(T o) {
    o.setMaxHeaderSize(MAX_RESPONSE_HEADER_BYTES);
    return o;
  }
}
