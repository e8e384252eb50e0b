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
   * marker (set by the peer proxy itself, never copied).
   */
  public static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-authenticate",
      "proxy-authorization", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "host",
      "authorization", "content-length", FrontProxyHeaders.PEER_PROXIED.toLowerCase());

  private ProxyHop() {
  }

  /**
   * @param in        the caller's request
   * @param user      the authenticated caller
   * @param authority {@code host:port} of the next hop, for the {@code Host} header
   * @return the headers of the outgoing request
   */
  public static MultiMap requestHeaders(HttpServerRequest in, UserInfo user, String authority) {
    MultiMap h = MultiMap.caseInsensitiveMultiMap();
    in.headers().forEach((k, v) -> {
      if (!HOP_BY_HOP.contains(k.toLowerCase())) {
        h.add(k, v);
      }
    });
    FrontProxyHeaders.write(user, h);
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
   * {@code Content-Type}), keeping all of the next hop's values of it ({@code Warning} lines); other headers set on
   * this hop stay.
   *
   * @param from the next hop's response headers
   * @param to   the caller's response headers (changed)
   */
  public static void copyHeaders(MultiMap from, MultiMap to) {
    for (String name : from.names()) {
      if (!HOP_BY_HOP.contains(name.toLowerCase())) {
        to.set(name, from.getAll(name));
      }
    }
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
