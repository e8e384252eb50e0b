package io.mvproxy.node.fleet;

import io.mvproxy.node.membership.PeerInfo;
import io.mvproxy.security.FrontProxyHeaders;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.util.List;

/**
 * Fetches one of a peer's LOCAL OpenAPI documents ({@code /openapi/v3/apis/<g>/<v>}, {@code /openapi/v3/api/v1},
 * {@code /openapi/v2}) as JSON over mutual TLS, as {@code system:apiserver} in {@code system:masters} with
 * {@code X-Kubernetes-Peer-Proxied: true}, which makes the peer answer without what it merged from its own peers
 * (the OpenAPI counterpart of {@link PeerDiscoveryClient}'s {@code profile=nopeer}). Revalidates with
 * {@code If-None-Match}.
 */
public final class PeerOpenApiClient {
  /** Idle timeout of one fetch, ms (documents of big CRDs are a few MiB). */
  static final long TIMEOUT_MS = 10_000;

  private final HttpClient client;

  /** @param client HTTP client with the peer TLS options (the proxy-client certificate) */
  public PeerOpenApiClient(HttpClient client) {
    this.client = client;
  }

  /**
   * A fetched document.
   *
   * @param body the document's JSON bytes (decoded off the event loop by the caller), or null when the peer has none
   *             (404)
   * @param etag its ETag (null when none)
   */
  public record Fetched(io.vertx.core.buffer.Buffer body, String etag) {
  }

  /**
   * @param peer the peer
   * @param path the document's path
   * @param last the previous answer for the same path, or null
   * @return {@code last} when the peer answered 304, the document on 200, a {@code Fetched} with a null body on
   *     404; fails on connection errors and other statuses
   */
  public Future<Fetched> fetch(PeerInfo peer, String path, Fetched last) {
    MultiMap h = MultiMap.caseInsensitiveMultiMap().add("Accept", "application/json")
        .add(FrontProxyHeaders.PEER_PROXIED, "true");
    if (last != null && last.etag() != null) {
      h.add("If-None-Match", last.etag());
    }
    FrontProxyHeaders.write(new io.mvproxy.api.UserInfo("system:apiserver", "", List.of("system:masters"),
        java.util.Map.of()), h);
    RequestOptions o = new RequestOptions().setMethod(HttpMethod.GET).setHost(peer.host()).setPort(peer.port())
        .setURI(path).setSsl(true).setHeaders(h).setConnectTimeout(PeerDiscoveryClient.CONNECT_TIMEOUT_MS)
        .setIdleTimeout(TIMEOUT_MS);
    // the body is read in the send future's own callback, before the response's next event (see PeerDiscoveryClient)
    return client.request(o).compose(req -> req.send().compose(resp -> resp.body().compose(b -> {
      if (resp.statusCode() == 304 && last != null) {
        return Future.succeededFuture(last);
      }
      if (resp.statusCode() == 404) {
        return Future.succeededFuture(new Fetched(null, null));
      }
      if (resp.statusCode() != 200) {
        return Future.failedFuture(path + " answered " + resp.statusCode());
      }
      return Future.succeededFuture(new Fetched(b, resp.getHeader("ETag")));
    })));
  }
}
