package io.mvproxy.aggregated;

import io.mvproxy.api.GroupVersion;
import io.mvproxy.security.FrontProxyHeaders;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.TimeUnit;

/**
 * Downloads an APIService backend's OpenAPI documents, as kube-aggregator's {@code pkg/controllers/openapi} (v2) and
 * {@code openapiv3} controllers do ({@code aggregator/downloader.go}), as {@link BackendDiscovery#AGGREGATOR}:
 * {@code GET /openapi/v3}, the root, then the document its {@code paths} list for the APIService's group-version
 * (its {@code serverRelativeURL}, revalidated with {@code If-None-Match}); {@code GET /openapi/v2}, of which the
 * paths under the group-version and every definition are kept (kube-aggregator merges the whole spec). A backend
 * that has no such document (404, no path for the group-version) gives none; a failed download keeps the last
 * documents. Bodies are bounded ({@link BackendDiscovery#MAX_BODY_BYTES}) and parsed off the event loop.
 */
public final class BackendOpenApi {
  /**
   * What was downloaded.
   *
   * @param v3     the group-version's OpenAPI 3 document, or null
   * @param v3Etag its ETag, or null
   * @param v2     the Swagger 2.0 fragment ({@code paths} under the group-version, {@code definitions}), or null
   */
  public record Docs(JsonObject v3, String v3Etag, JsonObject v2) {
    /** Nothing downloaded yet. */
    public static final Docs NONE = new Docs(null, null, null);

    /** @return true when the documents differ from {@code o}'s (ETags aside) */
    boolean differs(Docs o) {
      return !java.util.Objects.equals(v3, o.v3) || !java.util.Objects.equals(v2, o.v2);
    }
  }

  private final Vertx vertx;
  private final HttpClient client;
  private final GroupVersion gv;
  private final long timeoutMs;

  /**
   * @param vertx     for parsing off the event loop
   * @param client    client with the backend TLS options ({@link BackendClients})
   * @param gv        the APIService's group-version
   * @param timeoutMs deadline of each download, in milliseconds
   */
  public BackendOpenApi(Vertx vertx, HttpClient client, GroupVersion gv, long timeoutMs) {
    this.vertx = vertx;
    this.client = client;
    this.gv = gv;
    this.timeoutMs = timeoutMs;
  }

  /**
   * Downloads both documents. Must be called on a Vert.x thread.
   *
   * @param endpoint the backend
   * @param last     what the last download gave ({@link Docs#NONE} at first)
   * @return the documents; never fails (a document that cannot be downloaded keeps its last copy)
   */
  public Future<Docs> fetch(BackendEndpoint endpoint, Docs last) {
    Future<Object[]> v3 = v3(endpoint, last).map(d -> new Object[] {d.v3(), d.v3Etag()})
        .otherwise(new Object[] {last.v3(), last.v3Etag()});
    Future<JsonObject> v2 = v2(endpoint).otherwise(last.v2());
    return Future.join(v3, v2).transform(ar -> Future.succeededFuture(new Docs((JsonObject) v3.result()[0],
        (String) v3.result()[1], v2.result())));
  }

  private Future<Docs> v3(BackendEndpoint endpoint, Docs last) {
    return get(endpoint, "/openapi/v3", null, resp -> {
      if (resp.statusCode() == 404) {
        return resp.body().map(b -> Docs.NONE);
      }
      if (resp.statusCode() != 200) {
        return resp.body().transform(x -> Future.failedFuture(new IllegalStateException("/openapi/v3: "
            + resp.statusCode())));
      }
      return BackendDiscovery.bounded(resp).compose(this::parse).compose(root -> {
        String key = gv.pathPrefix().substring(1);  // "apis/<g>/<v>" or "api/v1"
        JsonObject paths = root.getValue("paths") instanceof JsonObject p ? p : new JsonObject();
        if (!(paths.getValue(key) instanceof JsonObject entry)
            || !(entry.getValue("serverRelativeURL") instanceof String url) || !url.startsWith("/")) {
          return Future.succeededFuture(Docs.NONE);
        }
        return get(endpoint, url, last.v3Etag(), doc -> {
          if (doc.statusCode() == 304 && last.v3() != null) {
            return doc.body().map(b -> last);
          }
          if (doc.statusCode() != 200) {
            return doc.body().transform(x -> Future.failedFuture(new IllegalStateException(url + ": "
                + doc.statusCode())));
          }
          String etag = doc.getHeader("ETag");
          return BackendDiscovery.bounded(doc).compose(this::parse).map(d -> new Docs(d, etag, null));
        });
      });
    });
  }

  private Future<JsonObject> v2(BackendEndpoint endpoint) {
    return get(endpoint, "/openapi/v2", null, resp -> {
      if (resp.statusCode() == 404) {
        return resp.body().map(b -> (JsonObject) null);
      }
      if (resp.statusCode() != 200) {
        return resp.body().transform(x -> Future.failedFuture(new IllegalStateException("/openapi/v2: "
            + resp.statusCode())));
      }
      return BackendDiscovery.bounded(resp).compose(this::parse).map(this::v2Fragment);
    });
  }

  /** @return the paths of {@code spec} under the group-version and all its definitions, or null without paths */
  JsonObject v2Fragment(JsonObject spec) {
    JsonObject paths = new JsonObject();
    if (spec.getValue("paths") instanceof JsonObject all) {
      String prefix = gv.pathPrefix();
      all.forEach(e -> {
        if (e.getKey().equals(prefix) || e.getKey().startsWith(prefix + "/")) {
          paths.put(e.getKey(), e.getValue());
        }
      });
    }
    if (paths.isEmpty()) {
      return null;
    }
    return new JsonObject().put("paths", paths).put("definitions",
        spec.getValue("definitions") instanceof JsonObject d ? d : new JsonObject());
  }

  private Future<JsonObject> parse(Buffer body) {
    return vertx.executeBlocking(() -> new JsonObject(body), false);
  }

  /** One GET as the aggregator; {@code read} runs in the send future's own callback (see BackendDiscovery). */
  private <T> Future<T> get(BackendEndpoint endpoint, String uri, String etag,
                            java.util.function.Function<HttpClientResponse, Future<T>> read) {
    MultiMap h = MultiMap.caseInsensitiveMultiMap();
    FrontProxyHeaders.write(BackendDiscovery.AGGREGATOR, h);
    h.set("Accept", "application/json").set("Host", endpoint.authority());
    if (etag != null) {
      h.set("If-None-Match", etag);
    }
    RequestOptions o = new RequestOptions().setMethod(HttpMethod.GET).setHost(endpoint.host())
        .setPort(endpoint.port()).setSsl(endpoint.ssl()).setURI(endpoint.basePath() + uri).setHeaders(h)
        .setIdleTimeout(timeoutMs);
    return client.request(o).compose(r -> r.send().compose(read::apply)).timeout(timeoutMs, TimeUnit.MILLISECONDS);
  }
}
