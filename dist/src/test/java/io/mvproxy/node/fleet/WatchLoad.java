package io.mvproxy.node.fleet;

import io.mvproxy.security.DevPki;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Many HTTP watches held open through one node (one connection each), for the watch-starvation test and the
 * watch-scale benchmark: opened in batches of {@link #BATCH} (as clients arrive), counting response heads, errors
 * and how many watches saw a given object name in their events.
 */
public final class WatchLoad implements AutoCloseable {
  /** Watches opened before waiting for their heads: a few hundred TLS handshakes in the same millisecond on a
   *  2-core machine can exceed the server's 10 s handshake timeout, which is not what these measure. */
  public static final int BATCH = 25;

  private final HttpClient http;
  private final AtomicInteger heads = new AtomicInteger();
  private final AtomicInteger saw = new AtomicInteger();
  private final List<String> errors = new CopyOnWriteArrayList<>();
  private final String marker;

  /**
   * Opens the watches and waits for every head (or error).
   *
   * @param client    a test client (its Vert.x is used)
   * @param pki       the fleet's PKI (admin certificate)
   * @param url       the node's base URL
   * @param path      the collection path, e.g. {@link FleetTest#WIDGETS_V2}
   * @param rv        the resourceVersion to watch from
   * @param count     number of watches
   * @param marker    a string whose appearance in a watch's events counts it in {@link #sawMarker()}
   * @param timeoutMs how long all heads may take
   */
  public WatchLoad(HttpsClient client, DevPki pki, String url, String path, String rv, int count, String marker,
                   long timeoutMs) throws Exception {
    this.marker = marker;
    http = client.vertx().createHttpClient(new HttpClientOptions().setSsl(true)
        .setTrustOptions(new PemTrustOptions().addCertPath(pki.caCert().toString()))
        .setKeyCertOptions(new PemKeyCertOptions().setCertPath(pki.adminCert().toString())
            .setKeyPath(pki.adminKey().toString())), new PoolOptions().setHttp1MaxSize(count + 10));
    long end = System.currentTimeMillis() + timeoutMs;
    for (int i = 0; i < count; i++) {
      if (i % BATCH == 0 && i > 0) {
        int opened = i;
        FleetTest.await(opened + " watch heads", Math.max(1, end - System.currentTimeMillis()),
            () -> heads.get() + errors.size() >= opened);
      }
      open(url + path + "?watch=true&resourceVersion=" + rv);
    }
    FleetTest.await(count + " watch heads", Math.max(1, end - System.currentTimeMillis()),
        () -> heads.get() + errors.size() >= count);
  }

  private void open(String uri) {
    StringBuilder seen = new StringBuilder();
    boolean[] counted = {false};
    http.request(new RequestOptions().setAbsoluteURI(uri)).compose(req -> req.send()).onSuccess(resp -> {
      if (resp.statusCode() == 200) {
        heads.incrementAndGet();
      } else {
        errors.add("watch answered " + resp.statusCode());
      }
      resp.handler(buf -> {
        if (counted[0]) {
          return;
        }
        seen.append(buf);
        if (seen.indexOf(marker) >= 0) {
          counted[0] = true;
          saw.incrementAndGet();
        }
        if (seen.length() > 1 << 16) {
          seen.delete(0, seen.length() - marker.length());
        }
      });
    }).onFailure(e -> errors.add(String.valueOf(e)));
  }

  /** @return watches whose head was 200 */
  public int heads() {
    return heads.get();
  }

  /** @return watch errors (non-200 heads, failed connections) */
  public List<String> errors() {
    return List.copyOf(errors);
  }

  /** @return watches that saw the marker */
  public int sawMarker() {
    return saw.get();
  }

  @Override
  public void close() {
    http.close();
  }
}
