package io.mvproxy.controllers;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The controllers' client of the API: HTTPS to the node's own secure port with a bearer token the node trusts, so
 * every request takes the node's full request path (authentication, authorization, routing, peer proxy) as a
 * kube-controller-manager's request takes kube-apiserver's. The node's serving certificate is pinned (trusted as
 * is; no host name check, as kube-apiserver's loopback client pins its own certificate). Answers are never
 * exceptions: a status (or 0 with the transport error) and the JSON body (but {@link #exchange}, the raw form).
 *
 * <p>{@link #spread} makes a client that behaves as kube-controller-manager behind an HA control plane's load
 * balancer: each request goes to a server a {@link ServerPicker} chooses, this node (token) or another server of the
 * fleet (mutual TLS with the node's front-proxy client certificate, the identity in {@code X-Remote-*} headers), so
 * discovery and reads may be answered by different servers. Used with the Mixed Version Proxy off, to show what
 * upstream suffers.
 *
 * <p>{@link #withCertificate} makes a client of a whole fleet from outside it, as a kubectl with a client
 * certificate: each request names its server ({@link #sendTo}, {@link #open} for a watch read as a stream), the
 * servers verified against the fleet's CA (the rehearsal's load balancer, {@code FleetClient}, is built on it).
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
  private final HttpClient streams;

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
    this.client = WebClient.create(vertx, io.mvproxy.api.ClientLimits.apply(new WebClientOptions()).setSsl(true)
        .setVerifyHost(false)
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
    this.streams = null;
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
    this.streams = null;
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
    this.streams = null;
  }

  private ApiClient(WebClient servers, HttpClient streams, long timeoutMs) {
    this.client = servers;
    this.host = null;
    this.port = 0;
    this.authorization = null;
    this.userAgent = null;
    this.timeoutMs = timeoutMs;
    this.peers = servers;
    this.picker = null;
    this.identity = io.vertx.core.MultiMap.caseInsensitiveMultiMap();
    this.streams = streams;
  }

  /**
   * A client of a fleet's servers with a client certificate (mutual TLS, each server verified against the CA and
   * its host name, connections within 3 s, Vert.x's own {@code User-Agent}); every request names its server
   * ({@link #sendTo}, {@link #open}).
   *
   * @param vertx     the Vert.x to run on
   * @param ca        PEM file of the CA that signed the servers
   * @param cert      PEM file of the client certificate, or null to present none (an anonymous client, or one
   *                  that authenticates with headers of its own through {@link #exchange})
   * @param key       PEM file of its key (ignored without {@code cert})
   * @param timeoutMs per-request deadline of {@link #sendTo}, ms
   * @return the client; {@link #close()} closes its connections
   */
  public static ApiClient withCertificate(Vertx vertx, Path ca, Path cert, Path key, long timeoutMs) {
    PemTrustOptions trust = new PemTrustOptions().addCertPath(ca.toString());
    PemKeyCertOptions keyCert = cert == null ? null
        : new PemKeyCertOptions().setCertPath(cert.toString()).setKeyPath(key.toString());
    WebClient web = WebClient.create(vertx, io.mvproxy.api.ClientLimits.apply(new WebClientOptions()).setSsl(true)
        .setVerifyHost(true)
        .setTrustOptions(trust).setKeyCertOptions(keyCert).setConnectTimeout(3000));
    HttpClient streams = vertx.createHttpClient(io.mvproxy.api.ClientLimits.apply(new HttpClientOptions()).setSsl(true)
        .setVerifyHost(true)
        .setTrustOptions(trust).setKeyCertOptions(keyCert).setConnectTimeout(3000)
        .setIdleTimeout(60).setIdleTimeoutUnit(TimeUnit.SECONDS));
    return new ApiClient(web, streams, timeoutMs);
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
    return request(method, picker == null ? null : picker.next(), path);
  }

  /** @param server {@code https://host:port}, or null for this node */
  private HttpRequest<Buffer> request(HttpMethod method, String server, String path) {
    if (server == null) {
      return client.request(method, port, host, path).ssl(true).timeout(timeoutMs)
          .putHeader("Authorization", authorization).putHeader("User-Agent", userAgent);
    }
    HttpRequest<Buffer> r = peers.requestAbs(method, server + path).timeout(timeoutMs).putHeaders(identity);
    return userAgent == null ? r : r.putHeader("User-Agent", userAgent);
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
    return send(request(method, path), body, contentType, accept);
  }

  /**
   * Sends one request to a given server (a client of {@link #withCertificate} or {@link #spread}).
   *
   * @param server      {@code https://host:port}
   * @param method      the method
   * @param path        path and query (already escaped)
   * @param body        JSON body or null
   * @param contentType the body's media type (null: {@code application/json})
   * @param accept      {@code Accept} (null: {@code application/json})
   * @return the answer; never failed (status 0 with the transport error)
   */
  public Future<ApiResponse> sendTo(String server, HttpMethod method, String path, JsonObject body,
                                    String contentType, String accept) {
    return send(request(method, server, path), body, contentType, accept);
  }

  /**
   * Sends one request exactly as given to a given server (a client of {@link #withCertificate} or {@link #spread})
   * and answers the raw response, for callers that need more than the JSON view of {@link #sendTo}: other media
   * types, response headers, headers of their own (tokens, impersonation). Nothing is added to the request: no
   * {@code Accept}, {@code Content-Type}, identity or {@code User-Agent} header of this client.
   *
   * @param server    {@code https://host:port}
   * @param method    the method
   * @param path      path and query (already escaped)
   * @param headers   the request's headers
   * @param body      the body, or null for none
   * @param timeoutMs the deadline of this request, ms
   * @return the response (status, headers, body bytes); unlike every other method of this client FAILED on a
   *     transport error (connection refused, TLS handshake, deadline), so a caller tells no answer from an answer
   * @throws IllegalStateException for a client made by neither
   */
  public Future<io.vertx.ext.web.client.HttpResponse<Buffer>> exchange(String server, HttpMethod method, String path,
                                                                       java.util.Map<String, String> headers,
                                                                       Buffer body, long timeoutMs) {
    if (peers == null) {
      throw new IllegalStateException("exchange needs a client made by withCertificate or spread");
    }
    HttpRequest<Buffer> r = peers.requestAbs(method, server + path).timeout(timeoutMs);
    headers.forEach(r::putHeader);
    return body == null ? r.send() : r.sendBuffer(body);
  }

  private static Future<ApiResponse> send(HttpRequest<Buffer> request, JsonObject body, String contentType,
                                          String accept) {
    HttpRequest<Buffer> r = request.putHeader("Accept", accept == null ? "application/json" : accept);
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

  /**
   * Opens a streaming GET (a watch) on a given server of a {@link #withCertificate} client; {@code onHead} reads the
   * body (and may end it with {@code response.request().reset()}); connections idle for 60 s are closed.
   * {@code onHead} runs in the send future's own callback, so the handlers it sets are in place before the
   * response's next event: a callback chained further out runs a task later, when a short answer (a 410, a 503) can
   * have ended already (Vert.x: IllegalStateException from {@code checkEnded}).
   *
   * @param server {@code https://host:port}
   * @param path   the path and query (with {@code watch=true})
   * @param onHead what to do with the response once its head arrived
   * @param <T>    what {@code onHead} answers
   * @return what {@code onHead} answered; failed when no answer came (connection, TLS) or {@code onHead} failed
   * @throws IllegalStateException for a client not made by {@link #withCertificate}
   */
  public <T> Future<T> open(String server, String path,
                            java.util.function.Function<HttpClientResponse, Future<T>> onHead) {
    if (streams == null) {
      throw new IllegalStateException("streams need a client made by withCertificate");
    }
    java.net.URI u = java.net.URI.create(server);
    return streams.request(new RequestOptions().setMethod(HttpMethod.GET).setHost(u.getHost()).setPort(u.getPort())
            .setURI(path).setSsl(true).putHeader("Accept", "application/json").setConnectTimeout(3000))
        .compose(req -> req.send().compose(onHead::apply));
  }

  /** @param b a body, may be null @return it as a JSON object; empty when it is none or not a JSON object */
  public static JsonObject json(Buffer b) {
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
    if (streams != null) {
      streams.close();
    }
  }
}
