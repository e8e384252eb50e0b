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
   * @param peer the peer
   * @return its core and non-core groups, core first; fails on connection errors, non-200 answers or a
   *     non-aggregated answer
   */
  public Future<List<DiscoveryGroup>> fetch(PeerInfo peer) {
    return get(peer, "/api").compose(core -> get(peer, "/apis").map(groups -> {
      List<DiscoveryGroup> all = new ArrayList<>(core);
      all.addAll(groups);
      return all;
    }));
  }

  private Future<List<DiscoveryGroup>> get(PeerInfo peer, String path) {
    MultiMap h = MultiMap.caseInsensitiveMultiMap().add("Accept", ACCEPT);
    FrontProxyHeaders.write(new io.mvproxy.api.UserInfo("system:apiserver", "", List.of("system:masters"),
        java.util.Map.of()), h);
    RequestOptions o = new RequestOptions().setMethod(HttpMethod.GET).setHost(peer.host()).setPort(peer.port())
        .setURI(path).setSsl(true).setHeaders(h).setConnectTimeout(CONNECT_TIMEOUT_MS).setIdleTimeout(TIMEOUT_MS);
    return client.request(o).compose(req -> req.send()).compose(resp -> body(resp, path));
  }

  private static Future<List<DiscoveryGroup>> body(HttpClientResponse resp, String path) {
    return resp.body().compose(b -> {
      String ct = resp.getHeader("Content-Type");
      if (resp.statusCode() != 200) {
        return Future.failedFuture(path + " answered " + resp.statusCode());
      }
      if (ct == null || !ct.contains("as=APIGroupDiscoveryList")) {
        return Future.failedFuture(path + " answered non-aggregated discovery (" + ct + ")");
      }
      return Future.succeededFuture(decode(b));
    });
  }

  private static List<DiscoveryGroup> decode(Buffer b) {
    return DiscoveryCodec.decode(b);
  }
}
