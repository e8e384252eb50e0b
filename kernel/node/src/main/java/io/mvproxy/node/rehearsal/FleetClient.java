package io.mvproxy.node.rehearsal;

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
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The rehearsal's clients' way into the fleet: a round-robin load balancer over the nodes that are in rotation (a
 * node is taken out before it is stopped and put back once {@code /readyz} answers 200, as an HA control plane's
 * load balancer with health checks does), each request to the next node, as admin (client certificate, server
 * verified against the fleet's CA). Answers are never exceptions: status 0 carries the transport error.
 */
public final class FleetClient implements AutoCloseable {
  /** One answer. @param status HTTP status, 0 when none @param body JSON body (empty when none) @param node URL */
  public record Answer(int status, JsonObject body, String node) {
    /** @return true for 2xx */
    public boolean ok() {
      return status >= 200 && status < 300;
    }
  }

  private final Vertx vertx;
  private final WebClient web;
  private final HttpClient stream;
  private final List<String> rotation = new CopyOnWriteArrayList<>();
  private final AtomicLong next = new AtomicLong();

  /**
   * @param vertx the rehearsal's Vert.x
   * @param ca    the fleet's CA
   * @param cert  admin client certificate
   * @param key   its key
   */
  public FleetClient(Vertx vertx, Path ca, Path cert, Path key) {
    this.vertx = vertx;
    PemTrustOptions trust = new PemTrustOptions().addCertPath(ca.toString());
    PemKeyCertOptions keyCert = new PemKeyCertOptions().setCertPath(cert.toString()).setKeyPath(key.toString());
    this.web = WebClient.create(vertx, new WebClientOptions().setSsl(true).setVerifyHost(true)
        .setTrustOptions(trust).setKeyCertOptions(keyCert).setConnectTimeout(3000));
    this.stream = vertx.createHttpClient(new HttpClientOptions().setSsl(true).setVerifyHost(true)
        .setTrustOptions(trust).setKeyCertOptions(keyCert).setConnectTimeout(3000)
        .setIdleTimeout(60).setIdleTimeoutUnit(TimeUnit.SECONDS));
  }

  /** @param url a node's base URL, put in rotation */
  public void add(String url) {
    if (!rotation.contains(url)) {
      rotation.add(url);
    }
  }

  /** @param url a node's base URL, taken out of rotation */
  public void remove(String url) {
    rotation.remove(url);
  }

  /** @return the nodes in rotation now */
  public List<String> rotation() {
    return List.copyOf(rotation);
  }

  /** @return the next node in rotation (round robin) */
  public String pick() {
    List<String> r = List.copyOf(rotation);
    if (r.isEmpty()) {
      throw new IllegalStateException("no node in rotation");
    }
    return r.get((int) Math.floorMod(next.getAndIncrement(), (long) r.size()));
  }

  /**
   * One request through the load balancer.
   *
   * @param method      method
   * @param path        path and query
   * @param body        JSON body or null
   * @param contentType its media type (null: application/json)
   * @return the answer (never failed)
   */
  public Future<Answer> send(HttpMethod method, String path, JsonObject body, String contentType) {
    return sendTo(pick(), method, path, body, contentType);
  }

  /**
   * One request to a given node.
   *
   * @param node        base URL
   * @param method      method
   * @param path        path and query
   * @param body        JSON body or null
   * @param contentType its media type (null: application/json)
   * @return the answer (never failed)
   */
  public Future<Answer> sendTo(String node, HttpMethod method, String path, JsonObject body, String contentType) {
    HttpRequest<Buffer> r = web.requestAbs(method, node + path).timeout(15_000).putHeader("Accept",
        "application/json");
    Future<io.vertx.ext.web.client.HttpResponse<Buffer>> f;
    if (body == null) {
      f = r.send();
    } else {
      f = r.putHeader("Content-Type", contentType == null ? "application/json" : contentType)
          .sendBuffer(body.toBuffer());
    }
    return f.map(resp -> new Answer(resp.statusCode(), json(resp.body()), node))
        .otherwise(t -> new Answer(0, new JsonObject().put("message", String.valueOf(t.getMessage())), node));
  }

  /**
   * Opens a watch through the load balancer.
   *
   * @param path the watch path (with {@code watch=true})
   * @return the response once its head arrived (failed when no answer)
   */
  public Future<HttpClientResponse> watch(String path) {
    return watch(pick(), path);
  }

  /**
   * Opens a watch on a given node.
   *
   * @param node base URL
   * @param path the watch path (with {@code watch=true})
   * @return the response once its head arrived (failed when no answer)
   */
  public Future<HttpClientResponse> watch(String node, String path) {
    java.net.URI u = java.net.URI.create(node);
    return stream.request(new RequestOptions().setMethod(HttpMethod.GET).setHost(u.getHost()).setPort(u.getPort())
            .setURI(path).setSsl(true).putHeader("Accept", "application/json").setConnectTimeout(3000))
        .compose(req -> req.send());
  }

  /** @return the Vert.x instance */
  public Vertx vertx() {
    return vertx;
  }

  /** @param b a body, may be null @return it as a JSON object, empty when it is none */
  static JsonObject json(Buffer b) {
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
    web.close();
    stream.close();
  }
}
