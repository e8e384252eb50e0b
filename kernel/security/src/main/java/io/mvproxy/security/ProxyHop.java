package io.mvproxy.security;

import io.mvproxy.api.UserInfo;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.Set;

/**
 * One proxy hop, shared by the peer proxy and the aggregated-API proxy: the outgoing request headers (the caller's
 * headers minus hop-by-hop ones and credentials, the caller's identity as front-proxy {@code X-Remote-*} headers,
 * {@code X-Forwarded-*}) and the streamed relay of the response (watch included). Follows
 * {@code staging/src/k8s.io/apiserver/pkg/util/proxy} and {@code kube-aggregator/pkg/apiserver/handler_proxy.go}.
 */
public final class ProxyHop {
  /**
   * Headers never forwarded in either direction: hop-by-hop headers (RFC 9110 section 7.6.1), the caller's
   * credentials (the hop authenticates with its own client certificate), lengths (recomputed) and the peer-proxy
   * marker (set by the peer proxy itself, never copied). Matched ignoring case ({@link #isHopByHop}). Headers merely
   * named in a {@code Connection} value are not in it, nor are {@code Impersonate-*} ones (the ingress's
   * impersonation step consumes those before any proxy).
   */
  public static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-authenticate",
      "proxy-authorization", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "host",
      "authorization", "content-length", FrontProxyHeaders.PEER_PROXIED.toLowerCase(java.util.Locale.ROOT));

  /** {@link #HOP_BY_HOP} by name length: a header name is compared with the few names of its length only. */
  private static final String[][] HOP_BY_HOP_BY_LENGTH = byLength(HOP_BY_HOP);

  private ProxyHop() {
  }

  /**
   * Tells whether a header is never forwarded ({@link #HOP_BY_HOP}), ignoring case, without allocating.
   *
   * @param name a header name
   * @return true when the name is in {@link #HOP_BY_HOP}
   */
  public static boolean isHopByHop(String name) {
    int n = name.length();
    if (n >= HOP_BY_HOP_BY_LENGTH.length) {
      return false;
    }
    for (String h : HOP_BY_HOP_BY_LENGTH[n]) {
      if (h.equalsIgnoreCase(name)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Builds the headers of the outgoing request in one pass over the caller's headers: all of them except
   * {@link #HOP_BY_HOP} ones, HTTP/2 pseudo-headers and {@code X-Remote-*} ones, each value in order; then the caller's identity as
   * front-proxy headers ({@link FrontProxyHeaders#write}), {@code Host} and {@code X-Forwarded-For} (appended to
   * the caller's first one), {@code X-Forwarded-Host}, {@code X-Forwarded-Proto}, {@code X-Forwarded-Uri} (replacing
   * the caller's).
   *
   * @param in        the caller's request
   * @param user      the authenticated caller
   * @param authority {@code host:port} of the next hop, for the {@code Host} header
   * @return the headers of the outgoing request
   */
  public static MultiMap requestHeaders(HttpServerRequest in, UserInfo user, String authority) {
    MultiMap h = MultiMap.caseInsensitiveMultiMap();
    in.headers().forEach((k, v) -> {
      // HTTP/2 pseudo-headers (:method, :path, :authority, :scheme) are not headers of the HTTP/1.1 hop
      if (!k.isEmpty() && k.charAt(0) != ':' && !isHopByHop(k) && !FrontProxyHeaders.isIdentityHeader(k)) {
        h.add(k, v);
      }
    });
    FrontProxyHeaders.add(user, h);
    h.set("Host", authority);
    String remote = in.remoteAddress() == null ? "" : in.remoteAddress().hostAddress();
    String prior = in.getHeader("X-Forwarded-For");
    h.set("X-Forwarded-For", prior == null || prior.isEmpty() ? remote : prior + ", " + remote);
    h.set("X-Forwarded-Host", in.authority() == null ? "" : in.authority().toString());
    h.set("X-Forwarded-Proto", in.isSSL() ? "https" : "http");
    h.set("X-Forwarded-Uri", in.uri());
    return h;
  }

  /**
   * Copies a next hop's response headers onto the caller's response: every header the next hop sent (minus
   * hop-by-hop ones) REPLACES a header of the same name already set on this hop (e.g. {@code Audit-Id},
   * {@code Content-Type}), keeping all of the next hop's values of it in order ({@code Warning} lines) under the
   * spelling of its first occurrence; other headers set on this hop stay. One pass over the entries of {@code from}.
   *
   * @param from the next hop's response headers
   * @param to   the caller's response headers (changed)
   */
  public static void copyHeaders(MultiMap from, MultiMap to) {
    from.forEach(new Copy(to));
  }

  /** The pass of {@link #copyHeaders}: the names copied so far (few), to replace a name once and then append. */
  private static final class Copy implements java.util.function.BiConsumer<String, String> {
    private final MultiMap to;
    private String[] seen = new String[8];
    private int count;

    Copy(MultiMap to) {
      this.to = to;
    }

    @Override
    public void accept(String name, String value) {
      if (isHopByHop(name)) {
        return;
      }
      for (int i = 0; i < count; i++) {
        if (seen[i].equalsIgnoreCase(name)) {
          to.add(seen[i], value);
          return;
        }
      }
      if (count == seen.length) {
        seen = java.util.Arrays.copyOf(seen, count * 2);
      }
      seen[count++] = name;
      to.remove(name);
      to.add(name, value);
    }
  }

  private static String[][] byLength(Set<String> names) {
    int max = 0;
    for (String s : names) {
      max = Math.max(max, s.length());
    }
    String[][] out = new String[max + 1][0];
    for (String s : names) {
      String[] b = out[s.length()];
      out[s.length()] = java.util.Arrays.copyOf(b, b.length + 1);
      out[s.length()][b.length] = s;
    }
    return out;
  }

  /**
   * Streams a response back: status, headers minus hop-by-hop ones (replacing this hop's headers of the same name,
   * {@link #copyHeaders}), body with back-pressure. A response without
   * a length is chunked and its head sent at once (a watch's head reaches the client before its first event). A
   * client that goes away resets the upstream request; an upstream failure resets the client's stream.
   *
   * @param resp the next hop's response
   * @param out  the caller's response
   */
  public static void relay(HttpClientResponse resp, HttpServerResponse out) {
    relay(resp, out, false, e -> { });
  }

  /**
   * Streams a response back as {@link #relay(HttpClientResponse, HttpServerResponse)}, choosing what an upstream
   * failure after the head does to the caller's response.
   *
   * @param resp          the next hop's response
   * @param out           the caller's response
   * @param endOnFailure  true for watches: end the response cleanly (final chunk), so the client sees the watch
   *                      end and re-establishes it; false: reset the stream (a cut body must not look complete)
   * @param onLost        told about an upstream failure after the head
   */
  public static void relay(HttpClientResponse resp, HttpServerResponse out, boolean endOnFailure,
                           java.util.function.Consumer<Throwable> onLost) {
    if (out.closed() || out.ended()) {
      // the caller went away before the head came: the reset's StreamResetException is expected, not an error
      resp.exceptionHandler(e -> { });
      resp.request().reset();
      return;
    }
    out.setStatusCode(resp.statusCode()).setStatusMessage(resp.statusMessage());
    copyHeaders(resp.headers(), out.headers());
    String len = resp.getHeader("Content-Length");
    if (len != null) {
      out.putHeader("Content-Length", len);
    } else {
      out.setChunked(true);
      out.writeHead();
    }
    out.closeHandler(v -> resp.request().reset());
    resp.handler(buf -> {
      if (out.closed() || out.ended()) {
        return;
      }
      out.write(buf);
      if (out.writeQueueFull()) {
        resp.pause();
        out.drainHandler(v -> resp.resume());
      }
    });
    resp.exceptionHandler(e -> {
      if (!out.closed() && !out.ended()) {
        onLost.accept(e);
        if (endOnFailure && len == null) {
          out.end();
        } else {
          out.reset();
        }
      }
    });
    resp.endHandler(v -> {
      if (!out.closed() && !out.ended()) {
        out.end();
      }
    });
  }
}
