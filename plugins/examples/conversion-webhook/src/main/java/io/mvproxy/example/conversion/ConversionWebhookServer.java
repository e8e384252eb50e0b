package io.mvproxy.example.conversion;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;

/**
 * A small CRD conversion webhook, like the one of Kubernetes' e2e tests ({@code test/images/agnhost/crd-conversion-webhook}):
 * HTTPS only, {@code POST /convert} takes an {@code apiextensions.k8s.io/v1} (or {@code v1beta1}) ConversionReview and
 * answers it with every object converted to {@code desiredAPIVersion}. It converts between {@code v1} and {@code v2}
 * of one group (the demo's {@code gizmos.demo.mvproxy.io}, or any CRD shaped alike): v1's {@code spec.size} is v2's
 * {@code spec.diameter} (a field rename); every other field is kept, {@code apiVersion} set. Any other pair of
 * versions is answered {@code result.status: Failure}.
 * {@code GET /healthz} answers {@code ok}. Depends on no mvproxy module.
 */
public final class ConversionWebhookServer {
  /** The group of the demo's gizmos. */
  public static final String GROUP = "demo.mvproxy.io";
  /** Usage text. */
  public static final String USAGE = """
      usage: java -jar mvproxy-conversion-webhook.jar --tls-cert-file FILE --tls-private-key-file FILE
                  [--secure-port 9443] [--bind-address 127.0.0.1]""";

  private ConversionWebhookServer() {
  }

  /**
   * Command-line entry point: starts the server and prints its address; exit code 2 on bad flags, 1 when it cannot
   * start.
   *
   * @param args {@code --secure-port N}, {@code --bind-address IP}, {@code --tls-cert-file}, {@code --tls-private-key-file}
   */
  public static void main(String[] args) {
    int port = 9443;
    String bind = "127.0.0.1";
    String cert = null;
    String key = null;
    try {
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        String v = a.contains("=") ? a.substring(a.indexOf('=') + 1) : i + 1 < args.length ? args[++i] : null;
        String flag = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
        switch (flag) {
          case "--secure-port" -> port = Integer.parseInt(v);
          case "--bind-address" -> bind = v;
          case "--tls-cert-file" -> cert = v;
          case "--tls-private-key-file" -> key = v;
          default -> throw new IllegalArgumentException("unknown flag " + flag);
        }
      }
      if (cert == null || key == null) {
        throw new IllegalArgumentException("--tls-cert-file and --tls-private-key-file are required");
      }
    } catch (RuntimeException e) {
      System.err.println("conversion-webhook: " + e.getMessage() + "\n" + USAGE);
      System.exit(2);
      return;
    }
    Vertx vertx = Vertx.vertx();
    String shownBind = bind;
    start(vertx, bind, port, cert, key).onSuccess(s -> System.out.println("conversion webhook listening on https://"
        + shownBind + ":" + s.actualPort() + "/convert")).onFailure(e -> {
          System.err.println("conversion-webhook: cannot start: " + e.getMessage());
          vertx.close();
          System.exit(1);
        });
  }

  /**
   * Starts the server.
   *
   * @param vertx    the Vert.x to run on
   * @param bind     IP to listen on
   * @param port     port (0: any free one)
   * @param certFile PEM serving certificate
   * @param keyFile  its PEM key
   * @return the listening server
   */
  public static Future<HttpServer> start(Vertx vertx, String bind, int port, String certFile, String keyFile) {
    return vertx.createHttpServer(new HttpServerOptions().setSsl(true)
            .setKeyCertOptions(new PemKeyCertOptions().setCertPath(certFile).setKeyPath(keyFile)))
        .requestHandler(ConversionWebhookServer::handle).listen(port, bind);
  }

  private static void handle(HttpServerRequest req) {
    if ("/healthz".equals(req.path())) {
      req.response().end("ok");
      return;
    }
    if (!"/convert".equals(req.path()) || !"POST".equals(req.method().name())) {
      req.response().setStatusCode(404).end();
      return;
    }
    req.body().onSuccess(b -> {
      JsonObject review;
      try {
        review = b.toJsonObject();
      } catch (RuntimeException e) {
        req.response().setStatusCode(400).end("invalid JSON: " + e.getMessage());
        return;
      }
      req.response().putHeader("Content-Type", "application/json").end(review(review).encode());
    });
  }

  /**
   * Answers a ConversionReview.
   *
   * @param review the review sent ({@code request.uid}, {@code request.desiredAPIVersion}, {@code request.objects})
   * @return the review with {@code response} ({@code uid}, {@code result}, {@code convertedObjects})
   */
  public static JsonObject review(JsonObject review) {
    JsonObject request = review.getJsonObject("request", new JsonObject());
    String desired = request.getString("desiredAPIVersion", "");
    JsonObject response = new JsonObject().put("uid", request.getString("uid", ""));
    JsonArray out = new JsonArray();
    try {
      for (Object o : request.getJsonArray("objects", new JsonArray())) {
        out.add(convert(((JsonObject) o).copy(), desired));
      }
      response.put("convertedObjects", out).put("result", new JsonObject().put("status", "Success"));
    } catch (IllegalArgumentException e) {
      response.put("convertedObjects", new JsonArray()).put("result", new JsonObject().put("status", "Failure")
          .put("message", e.getMessage()));
    }
    return new JsonObject().put("apiVersion", review.getString("apiVersion", "apiextensions.k8s.io/v1"))
        .put("kind", "ConversionReview").put("response", response);
  }

  /**
   * Converts one gizmo.
   *
   * @param o       the object (changed in place)
   * @param desired {@code <group>/v1} or {@code <group>/v2}, the group of {@code o}
   * @return {@code o} converted
   * @throws IllegalArgumentException for another pair of versions
   */
  static JsonObject convert(JsonObject o, String desired) {
    String from = o.getString("apiVersion", "");
    if (from.equals(desired)) {
      return o;
    }
    JsonObject spec = o.getValue("spec") instanceof JsonObject s ? s : null;
    String group = from.contains("/") ? from.substring(0, from.indexOf('/')) : "";
    if (from.equals(group + "/v1") && desired.equals(group + "/v2")) {
      if (spec != null && spec.containsKey("size")) {
        spec.put("diameter", spec.remove("size"));
      }
    } else if (from.equals(group + "/v2") && desired.equals(group + "/v1")) {
      if (spec != null && spec.containsKey("diameter")) {
        spec.put("size", spec.remove("diameter"));
      }
    } else {
      throw new IllegalArgumentException("unexpected conversion from " + from + " to " + desired);
    }
    return o.put("apiVersion", desired);
  }
}
