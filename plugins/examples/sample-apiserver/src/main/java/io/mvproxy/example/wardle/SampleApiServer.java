package io.mvproxy.example.wardle;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Set;

/**
 * A small extension API server like kubernetes/sample-apiserver (the backend of the
 * {@code v1alpha1.wardle.example.com} APIService): HTTPS only; aggregated discovery v2 and v2beta1 at {@code /apis}
 * with exact {@code Content-Type}, ETag and 304 (or legacy only with {@code --legacy-discovery-only}); legacy
 * {@code /apis}, {@code /apis/wardle.example.com}, {@code /apis/wardle.example.com/v1alpha1}; {@code flunders}
 * ({@link FlunderHandlers}); {@code /openapi/v2}, {@code /openapi/v3} and its group-version's document
 * ({@link WardleOpenApi}); {@code /healthz}, {@code /livez}, {@code /readyz}, {@code /version}. Callers are
 * identified by {@link RequestHeaderAuthenticator}; with a request-header CA configured, resource requests without a
 * trusted front-proxy identity get 401. Does not depend on mvproxy modules.
 */
public final class SampleApiServer {
  private static final Set<String> OPEN_PATHS = Set.of("/healthz", "/livez", "/readyz", "/version", "/apis",
      "/apis/" + WardleApi.GROUP, WardleApi.PREFIX, "/openapi/v2", "/openapi/v3", WardleOpenApi.V3_PATH);

  private SampleApiServer() {
  }

  /**
   * Command-line entry point: parses the flags ({@link SampleApiServerOptions#USAGE}), starts the server and prints
   * its address. Exits with code 2 on bad flags, 1 when the server cannot start.
   *
   * @param args the flags
   */
  public static void main(String[] args) {
    if (args.length > 0 && (args[0].equals("--help") || args[0].equals("-h"))) {
      System.out.println(SampleApiServerOptions.USAGE);
      return;
    }
    SampleApiServerOptions options;
    try {
      options = SampleApiServerOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("sample-apiserver: " + e.getMessage() + "\n" + SampleApiServerOptions.USAGE);
      System.exit(2);
      return;
    }
    Vertx vertx = Vertx.vertx();
    start(vertx, options).onSuccess(s -> System.out.println("wardle sample API server listening on https://"
        + options.bindAddress() + ":" + s.actualPort())).onFailure(e -> {
          System.err.println("sample-apiserver: cannot start: " + e.getMessage());
          vertx.close();
          System.exit(1);
        });
  }

  /**
   * Starts a server (for in-process tests use {@code securePort} 0 and read {@link HttpServer#actualPort()}).
   *
   * @param vertx   the Vert.x instance
   * @param options the options
   * @return the listening server; fails when a file cannot be read or the port cannot be bound
   */
  public static Future<HttpServer> start(Vertx vertx, SampleApiServerOptions options) {
    RequestHeaderAuthenticator authn;
    HttpServerOptions so;
    try {
      authn = options.requestheaderClientCaFile() == null ? null
          : RequestHeaderAuthenticator.fromFile(Path.of(options.requestheaderClientCaFile()));
      so = new HttpServerOptions().setSsl(true).setUseAlpn(false).setHost(options.bindAddress())
          .setPort(options.securePort()).setEnabledSecureTransportProtocols(Set.of("TLSv1.2", "TLSv1.3"))
          .setKeyCertOptions(new PemKeyCertOptions().setCertPath(options.tlsCertFile())
              .setKeyPath(options.tlsPrivateKeyFile()));
      if (authn != null) {
        so.setTrustOptions(authn.tlsTrust()).setClientAuth(ClientAuth.REQUEST);
      }
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    Router router = Router.router(vertx);
    router.route().handler(ctx -> authenticate(ctx, authn));
    for (String p : new String[] {"/healthz", "/livez", "/readyz"}) {
      router.get(p).handler(ctx -> ctx.response().putHeader("Content-Type", "text/plain").end("ok"));
    }
    router.get("/version").handler(ctx -> json(ctx, 200, new JsonObject().put("major", "1").put("minor", "33")
        .put("gitVersion", "v1.33.0-wardle-sample").put("platform", System.getProperty("os.name"))));
    router.get("/apis").handler(ctx -> apis(ctx, options.legacyDiscoveryOnly()));
    router.get("/apis/" + WardleApi.GROUP).handler(ctx -> json(ctx, 200, WardleApi.apiGroup()));
    router.get(WardleApi.PREFIX).handler(ctx -> json(ctx, 200, WardleApi.apiResourceList()));
    router.get("/openapi/v2").handler(ctx -> json(ctx, 200, WardleOpenApi.v2()));
    router.get("/openapi/v3").handler(ctx -> json(ctx, 200, WardleOpenApi.v3Root()));
    router.get(WardleOpenApi.V3_PATH).handler(ctx -> {
      ctx.response().putHeader("ETag", WardleOpenApi.v3Etag());
      if (WardleOpenApi.v3Etag().equals(ctx.request().getHeader("If-None-Match"))) {
        ctx.response().setStatusCode(304).end();
      } else {
        json(ctx, 200, WardleOpenApi.v3());
      }
    });
    new FlunderHandlers(new FlunderStore()).mount(router);
    router.route().handler(ctx -> Statuses.send(ctx.response(), Statuses.failure(404, "NotFound",
        "the server could not find the requested resource", new JsonObject())));
    return vertx.createHttpServer(so).requestHandler(router).listen();
  }

  private static void authenticate(RoutingContext ctx, RequestHeaderAuthenticator authn) {
    Caller caller = authn == null ? null : authn.authenticate(ctx.request());
    if (caller == null && authn != null && !OPEN_PATHS.contains(ctx.request().path())) {
      Statuses.send(ctx.response(), Statuses.failure(401, "Unauthorized", "Unauthorized", null));
      return;
    }
    ctx.put(Caller.CONTEXT_KEY, caller == null ? Caller.ANONYMOUS : caller);
    ctx.next();
  }

  private static void apis(RoutingContext ctx, boolean legacyOnly) {
    String version = legacyOnly ? DiscoveryNegotiation.LEGACY
        : DiscoveryNegotiation.negotiate(ctx.request().getHeader("Accept"));
    if (version == null) {
      Statuses.send(ctx.response(), Statuses.failure(406, "NotAcceptable", "only the following media types are "
          + "accepted: " + DiscoveryNegotiation.contentType("v2") + ", " + DiscoveryNegotiation.contentType("v2beta1")
          + ", application/json", null));
      return;
    }
    if (DiscoveryNegotiation.LEGACY.equals(version)) {
      json(ctx, 200, WardleApi.apiGroupList());
      return;
    }
    String body = WardleApi.aggregated(version).encode();
    String etag = "\"" + sha512Hex(body) + "\"";
    ctx.response().putHeader("ETag", etag).putHeader("Vary", "Accept").putHeader("Cache-Control", "public");
    if (etag.equals(ctx.request().getHeader("If-None-Match"))) {
      ctx.response().setStatusCode(304).end();
      return;
    }
    ctx.response().putHeader("Content-Type", DiscoveryNegotiation.contentType(version)).end(body);
  }

  private static void json(RoutingContext ctx, int code, JsonObject body) {
    ctx.response().setStatusCode(code).putHeader("Content-Type", "application/json").end(body.encode());
  }

  /** @return the upper-case hex SHA-512 of {@code s}'s UTF-8 bytes (kube's discovery and OpenAPI hashes) */
  static String sha512Hex(String s) {
    try {
      return HexFormat.of().withUpperCase().formatHex(MessageDigest.getInstance("SHA-512")
          .digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
