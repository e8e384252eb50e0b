package io.mvproxy.node.rehearsal;

import io.mvproxy.controllers.ApiClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The rehearsal's clients' way into the fleet: a round-robin load balancer over the nodes that are in rotation (a
 * node is taken out before it is stopped and put back once {@code /readyz} answers 200, as an HA control plane's
 * load balancer with health checks does), each request to the next node, as admin (client certificate, server
 * verified against the fleet's CA) through the kernel's one kube HTTP client, {@link ApiClient#withCertificate}.
 * Answers are never exceptions: status 0 carries the transport error.
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
  private final ApiClient api;
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
    this.api = ApiClient.withCertificate(vertx, ca, cert, key, 15_000);
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
    return api.sendTo(node, method, path, body, contentType, null).map(r -> new Answer(r.status(),
        r.status() == 0 ? new JsonObject().put("message", r.error()) : r.body(), node));
  }

  /**
   * Opens a watch on a given node ({@link ApiClient#open}: {@code onHead} sets the body's handlers in time).
   *
   * @param node   base URL
   * @param path   the watch path (with {@code watch=true})
   * @param onHead reads the response once its head arrived
   * @param <T>    what {@code onHead} answers
   * @return what {@code onHead} answered (failed when no answer came, or {@code onHead} failed)
   */
  public <T> Future<T> watch(String node, String path,
                             java.util.function.Function<HttpClientResponse, Future<T>> onHead) {
    return api.open(node, path, onHead);
  }

  /** @return the Vert.x instance */
  public Vertx vertx() {
    return vertx;
  }

  /** @param b a body, may be null @return it as a JSON object, empty when it is none */
  static JsonObject json(Buffer b) {
    return ApiClient.json(b);
  }

  @Override
  public void close() {
    api.close();
  }
}
