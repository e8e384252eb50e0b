package io.mvproxy.node.fleet;

import io.mvproxy.api.discovery.DiscoveryGroup;
import io.mvproxy.discovery.DiscoveryCodec;
import io.mvproxy.node.membership.PeerInfo;
import io.mvproxy.security.FrontProxyHeaders;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.util.ArrayList;
import java.util.List;

/**
 * Fetches a peer's LOCAL discovery ({@code /api} and {@code /apis} with {@code profile=nopeer}) over mutual TLS,
 * as user {@code system:apiserver} in {@code system:masters}, like kube-apiserver's peer discovery
 * ({@code staging/src/k8s.io/apiserver/pkg/util/peerproxy/peer_discovery.go}).
 */
public final class PeerDiscoveryClient {
  /** The Accept kube-apiserver peers send (peer-proxy.md section 2). */
  public static final String ACCEPT = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=nopeer,"
      + "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";
  /** Idle timeout of one discovery fetch, ms (discovery.md: 5 s). */
  static final long TIMEOUT_MS = 5000;
  /**
   * Connect (TCP + TLS handshake) timeout, ms: generous because a JVM's first TLS connection, while several nodes
   * start on one small machine, was measured to take over 5 s; refused connections fail at once anyway.
   */
  static final long CONNECT_TIMEOUT_MS = 15_000;

  private final HttpClient client;

  /** @param client HTTP client with the peer TLS options */
  public PeerDiscoveryClient(HttpClient client) {
    this.client = client;
  }

  /**
   * A fetched document pair with the ETags to revalidate it.
   *
   * @param groups  core and non-core groups, core first
   * @param apiEtag ETag of {@code /api}
   * @param apisEtag ETag of {@code /apis}
   */
  public record Fetched(List<DiscoveryGroup> groups, String apiEtag, String apisEtag) {
  }

  /**
   * Fetches a peer's local discovery, revalidating with {@code If-None-Match} against {@code last}.
   *
   * @param peer the peer
   * @param last the previous answer, or null
   * @return {@code last} itself when both documents answered 304, else the new documents; fails on connection
   *     errors, non-200/304 answers or a non-aggregated answer
   */
  public Future<Fetched> fetch(PeerInfo peer, Fetched last) {
    return get(peer, "/api", last == null ? null : last.apiEtag()).compose(core ->
        get(peer, "/apis", last == null ? null : last.apisEtag()).map(apis -> {
          if (core.groups() == null && apis.groups() == null) {
            return last;
          }
          List<DiscoveryGroup> all = new ArrayList<>(core.groups() != null ? core.groups()
              : last.groups().stream().filter(g -> g.name().isEmpty()).toList());
          all.addAll(apis.groups() != null ? apis.groups()
              : last.groups().stream().filter(g -> !g.name().isEmpty()).toList());
          return new Fetched(List.copyOf(all), core.etag(), apis.etag());
        }));
  }

  /** One document: null groups when 304 Not Modified. */
  private record Doc(List<DiscoveryGroup> groups, String etag) {
  }

  private Future<Doc> get(PeerInfo peer, String path, String etag) {
    MultiMap h = MultiMap.caseInsensitiveMultiMap().add("Accept", ACCEPT);
    if (etag != null && !etag.isEmpty()) {
      h.add("If-None-Match", etag);
    }
    FrontProxyHeaders.write(new io.mvproxy.api.UserInfo("system:apiserver", "", List.of("system:masters"),
        java.util.Map.of()), h);
    RequestOptions o = new RequestOptions().setMethod(HttpMethod.GET).setHost(peer.host()).setPort(peer.port())
        .setURI(path).setSsl(true).setHeaders(h).setConnectTimeout(CONNECT_TIMEOUT_MS).setIdleTimeout(TIMEOUT_MS);
    // the body is read in the send future's own callback: one chained further out runs a task later, and a short
    // answer (a 304) can have ended by then (Vert.x: IllegalStateException from checkEnded; see WebhookClient)
    return client.request(o).compose(req -> req.send().compose(resp -> body(resp, path, etag)));
  }

  private static Future<Doc> body(HttpClientResponse resp, String path, String etag) {
    return resp.body().compose(b -> {
      String ct = resp.getHeader("Content-Type");
      if (resp.statusCode() == 304) {
        return Future.succeededFuture(new Doc(null, etag));
      }
      if (resp.statusCode() != 200) {
        return Future.failedFuture(path + " answered " + resp.statusCode());
      }
      if (ct == null || !ct.contains("as=APIGroupDiscoveryList")) {
        return Future.failedFuture(path + " answered non-aggregated discovery (" + ct + ")");
      }
      return Future.succeededFuture(new Doc(decode(b), resp.getHeader("ETag")));
    });
  }

  private static List<DiscoveryGroup> decode(Buffer b) {
    return DiscoveryCodec.decode(b);
  }
}
