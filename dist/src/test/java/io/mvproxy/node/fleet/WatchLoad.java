package io.mvproxy.node.fleet;

import io.mvproxy.security.DevPki;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.OpenSSLEngineOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Many HTTP watches held open through one node, for the watch-starvation test and the watch-scale benchmark
 * ({@code bench/watch-scale}). Over HTTP/1.1 every watch has a connection of its own; over HTTP/2 (ALPN {@code h2})
 * the watches are multiplexed on as few connections as the server's stream limit allows (100 streams each, as
 * kube-apiserver: about N/100 connections), as client-go does. Watches are opened in batches of {@link #BATCH} (as
 * clients arrive) or, in burst mode, all at once. Counts response heads, errors, client connections and how many
 * watches saw a given object name in their events (and when the last one did).
 */
public final class WatchLoad implements AutoCloseable {
  /** Watches opened before waiting for their heads: a few hundred TLS handshakes in the same millisecond on a
   *  2-core machine can exceed the server's 10 s handshake timeout, which is not what the batched mode measures. */
  public static final int BATCH = 25;
  /** Streams per HTTP/2 connection the client plans for: kube-apiserver's (and the node's default) limit. */
  public static final int H2_STREAMS = 100;

  /** How the watches are opened. */
  public enum Protocol {
    /** HTTP/1.1, one connection per watch (ALPN {@code http/1.1}). */
    H1,
    /** HTTP/2 (ALPN {@code h2}), watches multiplexed, at most the server's stream limit per connection. */
    H2;

    /**
     * @param s {@code h1} or {@code h2} (any case)
     * @return the protocol
     * @throws IllegalArgumentException for anything else
     */
    public static Protocol parse(String s) {
      return switch (s.toLowerCase(java.util.Locale.ROOT)) {
        case "h1", "http1", "http/1.1" -> H1;
        case "h2", "http2" -> H2;
        default -> throw new IllegalArgumentException("--protocol must be h1 or h2, not " + s);
      };
    }
  }

  private final Vertx vertx;
  private final HttpClient http;
  private final AtomicInteger heads = new AtomicInteger();
  private final AtomicInteger saw = new AtomicInteger();
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicLong lastHeadNanos = new AtomicLong();
  private final AtomicLong lastSawNanos = new AtomicLong();
  private final List<String> errors = new CopyOnWriteArrayList<>();
  private final String marker;
  private final long startNanos;

  /**
   * Opens the watches over HTTP/1.1 in batches and waits for every head (or error).
   *
   * @param client    a test client (unused beyond compatibility: the load has its own Vert.x)
   * @param pki       the fleet's PKI (admin certificate)
   * @param url       the node's base URL
   * @param path      the collection path, e.g. {@link FleetTest#WIDGETS_V2}
   * @param rv        the resourceVersion to watch from
   * @param count     number of watches
   * @param marker    a string whose appearance in a watch's events counts it in {@link #sawMarker()}
   * @param timeoutMs how long all heads may take
   * @throws AssertionError when the heads do not all come (or fail) within {@code timeoutMs}
   */
  public WatchLoad(HttpsClient client, DevPki pki, String url, String path, String rv, int count, String marker,
                   long timeoutMs) throws Exception {
    this(pki, url, path, rv, count, marker, timeoutMs, Protocol.H1, false);
  }

  /**
   * Opens the watches and waits for every head (or error).
   *
   * @param pki       the fleet's PKI (admin certificate)
   * @param url       the node's base URL
   * @param path      the collection path, e.g. {@link FleetTest#WIDGETS_V2}
   * @param rv        the resourceVersion to watch from
   * @param count     number of watches
   * @param marker    a string whose appearance in a watch's events counts it in {@link #sawMarker()}
   * @param timeoutMs how long all heads may take
   * @param protocol  HTTP/1.1 (a connection per watch) or HTTP/2 (multiplexed)
   * @param burst     true: every watch requested at once; false: in batches of {@link #BATCH}
   * @throws AssertionError when the heads do not all come (or fail) within {@code timeoutMs}
   */
  public WatchLoad(DevPki pki, String url, String path, String rv, int count, String marker, long timeoutMs,
                   Protocol protocol, boolean burst) {
    this.marker = marker;
    vertx = Vertx.vertx();
    boolean h2 = protocol == Protocol.H2;
    HttpClientOptions options = new HttpClientOptions().setSsl(true).setUseAlpn(true)
        .setProtocolVersion(h2 ? HttpVersion.HTTP_2 : HttpVersion.HTTP_1_1)
        // a burst waits for its TLS handshakes behind thousands of others: measure how long, rather than give up
        // at Vert.x's 10 s handshake limit (client-go's TLSHandshakeTimeout is 10 s too: compare with the target)
        .setConnectTimeout(120_000).setSslHandshakeTimeout(120).setSslHandshakeTimeoutUnit(TimeUnit.SECONDS)
        .setTrustOptions(new PemTrustOptions().addCertPath(pki.caCert().toString()))
        .setKeyCertOptions(new PemKeyCertOptions().setCertPath(pki.adminCert().toString())
            .setKeyPath(pki.adminKey().toString()));
    if (OpenSSLEngineOptions.isAvailable()) { // BoringSSL as the node's default engine: Go-like handshake cost
      options.setSslEngineOptions(new OpenSSLEngineOptions());
    }
    PoolOptions pool = new PoolOptions().setHttp1MaxSize(count + 10)
        .setHttp2MaxSize((count + H2_STREAMS - 1) / H2_STREAMS + 1);
    http = vertx.httpClientBuilder().with(options).with(pool)
        .withConnectHandler(conn -> connections.incrementAndGet()).build();
    startNanos = System.nanoTime();
    long end = System.currentTimeMillis() + timeoutMs;
    String uri = url + path + "?watch=true&resourceVersion=" + rv;
    try {
      for (int i = 0; i < count; i++) {
        if (!burst && i % BATCH == 0 && i > 0) {
          int opened = i;
          FleetTest.await(opened + " watch heads", Math.max(1, end - System.currentTimeMillis()),
              () -> heads.get() + errors.size() >= opened);
        }
        open(uri);
      }
      FleetTest.await(count + " watch heads", Math.max(1, end - System.currentTimeMillis()),
          () -> heads.get() + errors.size() >= count);
    } catch (RuntimeException | Error e) {
      close();
      throw e;
    }
  }

  private void open(String uri) {
    StringBuilder seen = new StringBuilder();
    boolean[] counted = {false};
    http.request(new RequestOptions().setAbsoluteURI(uri)).compose(req -> req.send().onSuccess(resp -> {
      if (resp.statusCode() == 200) {
        lastHeadNanos.accumulateAndGet(System.nanoTime(), Math::max);
        heads.incrementAndGet();
      } else {
        errors.add("watch answered " + resp.statusCode());
      }
      resp.exceptionHandler(e -> errors.add("watch stream failed after its head: " + e));
      resp.handler(buf -> {
        if (counted[0]) {
          return;
        }
        seen.append(buf);
        if (seen.indexOf(marker) >= 0) {
          counted[0] = true;
          lastSawNanos.accumulateAndGet(System.nanoTime(), Math::max);
          saw.incrementAndGet();
        }
        if (seen.length() > 1 << 16) {
          seen.delete(0, seen.length() - marker.length());
        }
      });
    })).onFailure(e -> errors.add(describe(e)));
  }

  private static String describe(Throwable e) {
    StringBuilder b = new StringBuilder(String.valueOf(e));
    for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      b.append(" <- ").append(c);
    }
    return b.toString();
  }

  /** @return watches whose head was 200 */
  public int heads() {
    return heads.get();
  }

  /** @return watch errors (non-200 heads, failed connections, streams failed after their head) */
  public List<String> errors() {
    return List.copyOf(errors);
  }

  /** @return watches that saw the marker */
  public int sawMarker() {
    return saw.get();
  }

  /** @return connections the client opened to the node (one per watch on HTTP/1.1, about N/100 on HTTP/2) */
  public int connections() {
    return connections.get();
  }

  /** @return ms from the first watch requested to the last 200 head received (0 when none came) */
  public long lastHeadMs() {
    long t = lastHeadNanos.get();
    return t == 0 ? 0 : (t - startNanos) / 1_000_000;
  }

  /**
   * @param fromNanos a {@link System#nanoTime()} stamp (e.g. just before the marked object was written)
   * @return ms from it to the last watch that saw the marker (negative when none has)
   */
  public long lastSawMs(long fromNanos) {
    long t = lastSawNanos.get();
    return t == 0 ? -1 : (t - fromNanos) / 1_000_000;
  }

  @Override
  public void close() {
    http.close().await();
    vertx.close().await();
  }
}
