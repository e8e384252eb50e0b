package io.mvproxy.controllers;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;

/**
 * The controllers' client of the API: HTTPS to the node's own secure port with a bearer token the node trusts, so
 * every request takes the node's full request path (authentication, authorization, routing, peer proxy) as a
 * kube-controller-manager's request takes kube-apiserver's. The node's serving certificate is pinned (trusted as
 * is; no host name check, as kube-apiserver's loopback client pins its own certificate). Answers are never
 * exceptions: a status (or 0 with the transport error) and the JSON body.
 *
 * <p>{@link #spread} makes a client that behaves as kube-controller-manager behind an HA control plane's load
 * balancer: each request goes to a server a {@link ServerPicker} chooses, this node (token) or another server of the
 * fleet (mutual TLS with the node's front-proxy client certificate, the identity in {@code X-Remote-*} headers), so
 * discovery and reads may be answered by different servers. Used with the Mixed Version Proxy off, to show what
 * upstream suffers.
 */
public final class ApiClient implements AutoCloseable {
  /** The aggregated discovery media type (apidiscovery.k8s.io/v2). */
  public static final String AGGREGATED_DISCOVERY =
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
  /** Media type of a JSON merge patch. */
  public static final String MERGE_PATCH = "application/merge-patch+json";
  /** Media type of a JSON patch. */
  public static final String JSON_PATCH = "application/json-patch+json";

  private final WebClient client;
  private final String host;
  private final int port;
  private final String authorization;
  private final String userAgent;
  private final long timeoutMs;
  private final WebClient peers;
  private final ServerPicker picker;
  private final io.vertx.core.MultiMap identity;

  /** Chooses the server of each request. */
  @FunctionalInterface
  public interface ServerPicker {
    /** @return {@code https://host:port} of the next server, or null for this node */
    String next();
  }

  /**
   * @param vertx       the node's Vert.x
   * @param servingCert PEM file of the node's serving certificate (chain), trusted as is
   * @param host        address the node listens on (loopback when it binds every interface)
   * @param port        its secure port
   * @param token       the bearer token the node's authenticator maps to the controller identity
   * @param userAgent   {@code User-Agent}, as kube-controller-manager's per-controller clients send
   * @param timeoutMs   per-request deadline, ms
   */
  public ApiClient(Vertx vertx, String servingCert, String host, int port, String token, String userAgent,
                   long timeoutMs) {
    this.client = WebClient.create(vertx, new WebClientOptions().setSsl(true).setVerifyHost(false)
        .setTrustOptions(new PemTrustOptions().addCertPath(servingCert)).setConnectTimeout(5000)
        .setKeepAlive(true).setUserAgent(userAgent));
    this.host = host;
    this.port = port;
    this.authorization = "Bearer " + token;
    this.userAgent = userAgent;
    this.timeoutMs = timeoutMs;
    this.peers = null;
    this.picker = null;
    this.identity = null;
  }

  /**
   * The same connection pool and deadline for another identity (one client per controller, as
   * {@code --use-service-account-credentials}).
   *
   * @param other     a client whose pool to share
   * @param token     the other identity's token
   * @param userAgent its {@code User-Agent}
   */
  public ApiClient(ApiClient other, String token, String userAgent) {
    this.client = other.client;
    this.host = other.host;
    this.port = other.port;
    this.authorization = "Bearer " + token;
    this.userAgent = userAgent;
    this.timeoutMs = other.timeoutMs;
    this.peers = null;
    this.picker = null;
    this.identity = null;
  }

  private ApiClient(ApiClient self, WebClient peers, ServerPicker picker, io.vertx.core.MultiMap identity) {
    this.client = self.client;
    this.host = self.host;
    this.port = self.port;
    this.authorization = self.authorization;
    this.userAgent = self.userAgent;
    this.timeoutMs = self.timeoutMs;
    this.peers = peers;
    this.picker = picker;
    this.identity = identity;
  }

  /**
   * A client whose requests are spread over the fleet's servers.
   *
   * @param peers    client for the other servers: verifies them and presents the front-proxy client certificate
   * @param picker   chooses each request's server (null: this node)
   * @param identity the {@code X-Remote-User} / {@code X-Remote-Group} headers of this client's identity, sent to
   *                 the other servers instead of the token
   * @return the spreading client (same identity, deadline and {@code User-Agent})
   */
  public ApiClient spread(WebClient peers, ServerPicker picker, io.vertx.core.MultiMap identity) {
    return new ApiClient(this, peers, picker, identity);
  }

  private HttpRequest<Buffer> request(HttpMethod method, String path) {
    String server = picker == null ? null : picker.next();
    if (server == null) {
      return client.request(method, port, host, path).ssl(true).timeout(timeoutMs)
          .putHeader("Authorization", authorization).putHeader("User-Agent", userAgent);
    }
    return peers.requestAbs(method, server + path).timeout(timeoutMs).putHeaders(identity)
        .putHeader("User-Agent", userAgent);
  }

  /**
   * Sends one request.
   *
   * @param method      the method
   * @param path        path and query (already escaped)
   * @param body        JSON body or null
   * @param contentType the body's media type (null: {@code application/json})
   * @param accept      {@code Accept} (null: {@code application/json})
   * @return the answer; never failed
   */
  public Future<ApiResponse> send(HttpMethod method, String path, JsonObject body, String contentType,
                                  String accept) {
    HttpRequest<Buffer> r = request(method, path)
        .putHeader("Accept", accept == null ? "application/json" : accept);
    Future<io.vertx.ext.web.client.HttpResponse<Buffer>> f;
    if (body == null) {
      f = r.send();
    } else {
      r.putHeader("Content-Type", contentType == null ? "application/json" : contentType);
      f = r.sendBuffer(body.toBuffer());
    }
    return f.map(resp -> new ApiResponse(resp.statusCode(), json(resp.body()), null))
        .otherwise(t -> new ApiResponse(0, new JsonObject(), String.valueOf(t.getMessage())));
  }

  /** GET. @param path path and query @return the answer */
  public Future<ApiResponse> get(String path) {
    return send(HttpMethod.GET, path, null, null, null);
  }

  /** POST (create). @param path collection path @param body the object @return the answer */
  public Future<ApiResponse> create(String path, JsonObject body) {
    return send(HttpMethod.POST, path, body, null, null);
  }

  /** PUT (update). @param path object path @param body the object with its resourceVersion @return the answer */
  public Future<ApiResponse> update(String path, JsonObject body) {
    return send(HttpMethod.PUT, path, body, null, null);
  }

  /**
   * PATCH.
   *
   * @param path      object path
   * @param patchType {@link #MERGE_PATCH} or {@link #JSON_PATCH}
   * @param patch     the patch document (a JSON object for a merge patch, a JSON array for a JSON patch)
   * @return the answer
   */
  public Future<ApiResponse> patch(String path, String patchType, io.vertx.core.buffer.Buffer patch) {
    HttpRequest<Buffer> r = request(HttpMethod.PATCH, path)
        .putHeader("Accept", "application/json").putHeader("Content-Type", patchType);
    return r.sendBuffer(patch).map(resp -> new ApiResponse(resp.statusCode(), json(resp.body()), null))
        .otherwise(t -> new ApiResponse(0, new JsonObject(), String.valueOf(t.getMessage())));
  }

  /**
   * DELETE with {@code DeleteOptions}.
   *
   * @param path    object or collection path
   * @param options the DeleteOptions (propagationPolicy, preconditions), or null
   * @return the answer
   */
  public Future<ApiResponse> delete(String path, JsonObject options) {
    return send(HttpMethod.DELETE, path, options == null ? null : options.copy()
        .put("kind", "DeleteOptions").put("apiVersion", "v1"), null, null);
  }

  /**
   * Opens a watch and delivers its events as they arrive (client-go's {@code Watch} over a JSON stream).
   *
   * @param path     the watch path and query ({@code ?watch=true&resourceVersion=...&timeoutSeconds=...})
   * @param idleMs   longest silence before the client gives up on the stream, ms (more than the server's
   *                 {@code timeoutSeconds})
   * @param onEvent  called on the caller's context with each {@code {"type": ..., "object": ...}} event
   *                 ({@code ADDED}, {@code MODIFIED}, {@code DELETED}, {@code BOOKMARK}, {@code ERROR})
   * @return when the stream ended: its HTTP status (200 for a watch the server closed, e.g. at
   *     {@code timeoutSeconds}; 403, 410, ... when refused; 0 with the transport error); never failed
   */
  public Future<ApiResponse> watch(String path, long idleMs, java.util.function.Consumer<JsonObject> onEvent) {
    io.vertx.core.parsetools.JsonParser parser = io.vertx.core.parsetools.JsonParser.newParser().objectValueMode();
    JsonObject[] status = {new JsonObject()};
    parser.handler(e -> {
      if (e.type() != io.vertx.core.parsetools.JsonEventType.VALUE || !(e.value() instanceof JsonObject o)) {
        return;
      }
      if (o.containsKey("type") && o.getValue("object") instanceof JsonObject) {
        onEvent.accept(o);
      } else {
        status[0] = o;
      }
    });
    parser.exceptionHandler(t -> { });
    return request(HttpMethod.GET, path).timeout(idleMs).putHeader("Accept", "application/json")
        .as(io.vertx.ext.web.codec.BodyCodec.jsonStream(parser)).send()
        .map(resp -> new ApiResponse(resp.statusCode(), status[0], null))
        .otherwise(t -> new ApiResponse(0, new JsonObject(), String.valueOf(t.getMessage())));
  }

  private static JsonObject json(Buffer b) {
    if (b == null || b.length() == 0) {
      return new JsonObject();
    }
    try {
      return b.toJsonObject();
    } catch (DecodeException | ClassCastException e) {
      return new JsonObject();
    }
  }

  @Override
  public void close() {
    client.close();
  }
}
