package io.mvproxy.aggregated;

import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.discovery.DiscoveryGroup;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.DiscoveryVersion;
import io.mvproxy.discovery.DiscoveryCodec;
import io.mvproxy.discovery.DiscoveryFormat;
import io.mvproxy.security.FrontProxyHeaders;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One discovery check of an APIService backend, as kube-aggregator's {@code pkg/apiserver/handler_discovery.go}
 * ({@code fetchFreshDiscoveryForService}): {@code GET /apis} asking for aggregated v2 then v2beta1 then legacy JSON,
 * with {@code If-None-Match}, as {@code system:kube-aggregator} in {@code system:masters}; only the APIService's own
 * group-version is kept. A non-aggregated answer (legacy JSON, 404, 406) or an aggregated one lacking the
 * group-version falls back to legacy {@code GET /apis/<g>/<v>}. The whole check has a deadline. Immutable; the
 * ETag to revalidate is passed in by the caller.
 */
public final class BackendDiscovery {
  /** The {@code Accept} header of the discovery request. */
  public static final String ACCEPT = DiscoveryFormat.V2.contentType() + "," + DiscoveryFormat.V2BETA1.contentType()
      + ",application/json";
  /** The identity the check runs as (kube-aggregator's discovery client user). */
  public static final UserInfo AGGREGATOR = new UserInfo("system:kube-aggregator", "", List.of("system:masters"),
      Map.of());

  /**
   * Outcome of a successful check.
   *
   * @param notModified true when the backend answered 304 to {@code If-None-Match} (resources then null)
   * @param resources   the group-version's resources, or null when not modified
   * @param etag        the aggregated document's ETag, or null (legacy answers carry none we reuse)
   * @param aggregated  true when the resources came from aggregated discovery
   */
  public record Result(boolean notModified, List<DiscoveryResource> resources, String etag, boolean aggregated) {
  }

  private final HttpClient client;
  private final GroupVersion gv;
  private final long timeoutMs;

  /**
   * @param client    client with the backend TLS options ({@link BackendClients})
   * @param gv        the APIService's group-version
   * @param timeoutMs deadline of one check, in milliseconds
   */
  public BackendDiscovery(HttpClient client, GroupVersion gv, long timeoutMs) {
    this.client = client;
    this.gv = gv;
    this.timeoutMs = timeoutMs;
  }

  /**
   * Runs one check. Must be called on a Vert.x thread.
   *
   * @param endpoint the backend
   * @param etag     the ETag of the last aggregated answer, or null
   * @return the result; fails on connection errors, TLS errors, the deadline, a status other than 200/304 (after the
   *     legacy fallback) or an unparseable body, with a message naming the URL
   */
  public Future<Result> fetch(BackendEndpoint endpoint, String etag) {
    MultiMap h = identity().set("Accept", ACCEPT);
    if (etag != null) {
      h.set("If-None-Match", etag);
    }
    String url = endpoint.url() + "/apis";
    return get(endpoint, "/apis", h, resp -> {
      if (resp.statusCode() == 304) {
        return resp.body().map(b -> new Result(true, null, etag, true));
      }
      String ct = resp.getHeader("Content-Type");
      if (resp.statusCode() == 200 && isAggregated(ct)) {
        return bounded(resp).compose(body -> {
          List<DiscoveryResource> mine = select(DiscoveryCodec.decode(body));
          return mine != null ? Future.succeededFuture(new Result(false, mine, resp.getHeader("ETag"), true))
              : legacy(endpoint);
        });
      }
      if (resp.statusCode() == 200 || resp.statusCode() == 404 || resp.statusCode() == 406) {
        return resp.body().compose(b -> legacy(endpoint));
      }
      return resp.body().transform(ar -> Future.failedFuture(badStatus(url, resp.statusCode())));
    }).timeout(timeoutMs, TimeUnit.MILLISECONDS)
        .recover(e -> Future.failedFuture(new IllegalStateException(
            "failing or missing response from " + url + ": " + message(e), e)));
  }

  private Future<Result> legacy(BackendEndpoint endpoint) {
    String path = gv.pathPrefix();
    return get(endpoint, path, identity().set("Accept", "application/json"), resp -> {
      if (resp.statusCode() != 200) {
        return resp.body().transform(ar -> Future.failedFuture(badStatus(endpoint.url() + path, resp.statusCode())));
      }
      return bounded(resp).map(b -> new Result(false,
          LegacyResources.fromApiResourceList(new JsonObject(b), gv), null, false));
    });
  }

  /**
   * The most bytes of one discovery answer read (32 MiB); beyond it the check fails
   * ({@code response body larger than 33554432 bytes}), so a broken backend streaming without end cannot exhaust the
   * node's memory within the check's deadline.
   */
  public static final long MAX_BODY_BYTES = 32L << 20;

  /** @return the body of {@code resp}, failing (and resetting the request) beyond {@link #MAX_BODY_BYTES} */
  static Future<io.vertx.core.buffer.Buffer> bounded(HttpClientResponse resp) {
    return io.mvproxy.security.BoundedBody.read(resp, MAX_BODY_BYTES, IllegalStateException::new);
  }

  /**
   * One GET; {@code read} runs in the send future's own callback, so the body's handlers are set before the
   * response's next event (a callback chained further out may run a task later, after a short answer ended: Vert.x's
   * IllegalStateException, seen in WebhookClient).
   */
  private <T> Future<T> get(BackendEndpoint endpoint, String path, MultiMap headers,
      java.util.function.Function<HttpClientResponse, Future<T>> read) {
    RequestOptions o = new RequestOptions().setMethod(HttpMethod.GET).setHost(endpoint.host())
        .setPort(endpoint.port()).setSsl(endpoint.ssl()).setURI(endpoint.basePath() + path)
        .setHeaders(headers.set("Host", endpoint.authority())).setIdleTimeout(timeoutMs);
    return client.request(o).compose(r -> r.send().compose(read::apply));
  }

  private List<DiscoveryResource> select(List<DiscoveryGroup> groups) {
    for (DiscoveryGroup g : groups) {
      if (g.name().equals(gv.group())) {
        for (DiscoveryVersion v : g.versions()) {
          if (v.version().equals(gv.version())) {
            return v.resources();
          }
        }
      }
    }
    return null;
  }

  private static MultiMap identity() {
    MultiMap h = MultiMap.caseInsensitiveMultiMap();
    FrontProxyHeaders.write(AGGREGATOR, h);
    return h;
  }

  /**
   * @param contentType a response {@code Content-Type}, or null
   * @return true when it names {@code g=apidiscovery.k8s.io} and {@code as=APIGroupDiscoveryList} with v2 or v2beta1
   */
  static boolean isAggregated(String contentType) {
    if (contentType == null) {
      return false;
    }
    String c = contentType.toLowerCase(Locale.ROOT).replace(" ", "");
    return c.startsWith("application/json") && c.contains(";g=apidiscovery.k8s.io")
        && c.contains(";as=apigroupdiscoverylist") && (c.contains(";v=v2;") || c.endsWith(";v=v2")
        || c.contains(";v=v2beta1"));
  }

  private static IllegalStateException badStatus(String url, int status) {
    return new IllegalStateException("bad status from " + url + ": " + status);
  }

  private String message(Throwable e) {
    if (e instanceof java.util.concurrent.TimeoutException) {
      return "timed out after " + timeoutMs + " ms";
    }
    String m = e.getMessage();
    return m == null ? e.getClass().getSimpleName() : m;
  }
}
