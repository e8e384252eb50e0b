package io.mvproxy.node.fleet;

import io.mvproxy.controllers.ApiClient;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A blocking HTTPS test client with a client certificate: a facade over the product's client,
 * {@link ApiClient#withCertificate} (real TLS, the server verified against the CA and its host name), each call
 * waiting for {@link ApiClient#exchange}. A transport error (connection refused, handshake, deadline) is thrown.
 */
public final class HttpsClient implements AutoCloseable {
  /** A response. @param status code @param headers headers @param body body */
  public record Resp(int status, MultiMap headers, Buffer body) {
    /** @return the body as JSON */
    public JsonObject json() {
      return body == null ? null : body.toJsonObject();
    }

    /** @return the body as text */
    public String text() {
      return body == null ? "" : body.toString();
    }
  }

  private final Vertx vertx = Vertx.vertx();
  private final ApiClient client;

  /**
   * @param ca   CA that signed the servers
   * @param cert client certificate (null for none)
   * @param key  client key
   */
  public HttpsClient(Path ca, Path cert, Path key) {
    client = ApiClient.withCertificate(vertx, ca, cert, key, 15_000);
  }

  /**
   * @param method  method
   * @param url     base URL of a node
   * @param path    path and query
   * @param headers extra headers
   * @param body    body or null
   * @return the response
   */
  public Resp send(HttpMethod method, String url, String path, Map<String, String> headers, String body)
      throws Exception {
    return send(method, url, path, headers, body, 15_000);
  }

  /**
   * As {@link #send(HttpMethod, String, String, Map, String)} with the client's own timeout.
   *
   * @param timeoutMs how long the client waits for the answer, ms (e.g. past the node's --request-timeout, to see its
   *                  own 504)
   */
  public Resp send(HttpMethod method, String url, String path, Map<String, String> headers, String body,
                   long timeoutMs) throws Exception {
    HttpResponse<Buffer> resp = client.exchange(url, method, path, headers, body == null ? null : Buffer.buffer(body),
            timeoutMs).toCompletionStage().toCompletableFuture().get(timeoutMs + 5_000, TimeUnit.MILLISECONDS);
    return new Resp(resp.statusCode(), resp.headers(), resp.body());
  }

  /** GET with no extra headers. */
  public Resp get(String url, String path) throws Exception {
    return send(HttpMethod.GET, url, path, Map.of(), null);
  }

  /** @return the underlying Vert.x (for streaming tests) */
  public Vertx vertx() {
    return vertx;
  }

  @Override
  public void close() {
    client.close();
    vertx.close();
  }
}
