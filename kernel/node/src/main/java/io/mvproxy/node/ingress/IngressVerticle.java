package io.mvproxy.node.ingress;

import io.mvproxy.api.GroupVersion;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.authz.Authorizer;
import io.mvproxy.discovery.DiscoveryHandler;
import io.mvproxy.node.fleet.FleetViewRef;
import io.mvproxy.node.metrics.NodeMetrics;
import io.mvproxy.node.proxy.PeerProxy;
import io.mvproxy.openapi.OpenApiHandler;
import io.mvproxy.security.Authenticator;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.mvproxy.node.config.NodeConfig;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * TLS ingress: the HTTPS server (ALPN {@code h2}, {@code http/1.1} with {@link ServerLimits#http2} settings;
 * {@link ServerLimits}: 1 MiB headers, 414/431 as Status; {@link ConnectionTimeouts}: read-header and idle timeouts
 * per HTTP/1.1 request, Go's idle rule on HTTP/2) and the handler chain, assembled in {@link #chain} in order, like kube-apiserver's
 * {@code DefaultBuildHandlerChain}: request ID ({@link AuditIds}) -> {@code --goaway-chance}
 * ({@link ProbabilisticGoaway}, when above 0) -> authentication -> audit (when a policy is set:
 * {@link io.mvproxy.node.audit.AuditFilter}) -> health and version (public) ->
 * request info -> {@code --request-timeout} ({@link RequestDeadline}) -> impersonation ({@link ImpersonationFilter})
 * -> max-in-flight ({@link MaxInFlight}) -> authorization ({@link AuthorizationFilter}) -> metrics -> body (3 MiB
 * limit) -> non-resource (discovery, OpenAPI) or resource (peer-proxy decision, local routing) handlers. Every
 * failure on the way, thrown or asynchronous, is answered by {@link RequestFailures}.
 */
public final class IngressVerticle extends VerticleBase {
  /** Request body limit, bytes: kube-apiserver's 3 MiB. */
  public static final long MAX_BODY_BYTES = 3L * 1024 * 1024;
  private static final Set<HttpMethod> WITH_BODY = Set.of(HttpMethod.POST, HttpMethod.PUT, HttpMethod.PATCH,
      HttpMethod.DELETE);

  private final HttpServerOptions options;
  private final Authenticator authenticator;
  private final HealthHandler health;
  private final FleetViewRef view;
  private final NodeMetrics metrics;
  private final Function<io.vertx.core.Vertx, PeerProxy> proxyFactory;
  private final boolean peersEnabled;
  private final io.mvproxy.node.NodeLifecycle lifecycle;
  private final NodeConfig.ServingLimits limits;
  private final Authorizer authorizer;
  private final MaxInFlight inFlight;
  private final io.mvproxy.node.audit.AuditFilter audit;
  private final java.util.function.Supplier<io.mvproxy.security.serviceaccount.OpenIdMetadata> openId;
  private HttpServer server;

  /**
   * @param options       HTTPS server options (host, port, TLS)
   * @param authenticator the authentication handler
   * @param health        health and version handler
   * @param view          the fleet view
   * @param metrics       node metrics (served at /metrics)
   * @param proxyFactory  builds the peer proxy on this verticle's Vert.x (null when peers are disabled)
   * @param peersEnabled  gate on and {@code --peer-ca-file} set
   * @param lifecycle     shutdown state and in-flight counter
   * @param authorizer    the {@code --authorization-mode} chain (impersonation and authorization steps)
   * @param limits        request time-out and max-in-flight limits
   * @param inFlight      the node's max-in-flight counters, shared by every ingress instance
   * @param audit         the audit steps ({@code --audit-policy-file}), or null when auditing is off
   * @param openId        the service account issuer discovery documents, or a supplier of null while the node
   *                      serves none (no service account tokens, or an issuer that is not an https URL)
   */
  public IngressVerticle(HttpServerOptions options, Authenticator authenticator, HealthHandler health,
                         FleetViewRef view, NodeMetrics metrics, Function<io.vertx.core.Vertx, PeerProxy> proxyFactory,
                         boolean peersEnabled, io.mvproxy.node.NodeLifecycle lifecycle, Authorizer authorizer,
                         NodeConfig.ServingLimits limits, MaxInFlight inFlight,
                         io.mvproxy.node.audit.AuditFilter audit,
                         java.util.function.Supplier<io.mvproxy.security.serviceaccount.OpenIdMetadata> openId) {
    this.openId = openId;
    this.inFlight = inFlight;
    this.audit = audit;
    this.lifecycle = lifecycle;
    this.authorizer = authorizer;
    this.limits = limits;
    this.options = options;
    this.authenticator = authenticator;
    this.health = health;
    this.view = view;
    this.metrics = metrics;
    this.proxyFactory = proxyFactory;
    this.peersEnabled = peersEnabled;
  }

  /** @return the port actually bound (after start) */
  public int actualPort() {
    return server.actualPort();
  }

  @Override
  public Future<?> start() {
    RequestFailures.install(vertx);
    PeerProxy proxy = proxyFactory == null ? null : proxyFactory.apply(vertx);
    Router router = Router.router(vertx);
    chain(router, proxy);
    ConnectionTimeouts timeouts = ConnectionTimeouts.kubeApiserver();
    HttpServerOptions o = ServerLimits.apply(new HttpServerOptions(options));
    if (o.isUseAlpn()) {
      ServerLimits.http2(o, limits.http2MaxStreams());
    }
    HttpServer s = vertx.createHttpServer(o)
        .connectionHandler(timeouts::connected)
        .invalidRequestHandler(ServerLimits::invalid)
        .requestHandler(req -> {
          if (ServerLimits.pathDecodes(req)) {
            router.handle(HeadResponses.wrap(req));
          }
        });
    return s.listen().onSuccess(x -> server = x);
  }

  /**
   * The handler chain, in order, one named step per line (kube-apiserver's {@code DefaultBuildHandlerChain}); the
   * steps run on every request except where a step answers itself.
   */
  private void chain(Router router, PeerProxy proxy) {
    router.route().failureHandler(StatusResponses::onFailure);
    router.route().handler(IngressVerticle::cacheControl);
    if (limits.responseCompression()) {
      router.route().handler(IngressVerticle::responseEncoding);
    }
    router.route().handler(new AuditIds());
    if (limits.goawayChance() > 0) {
      router.route().handler(new ProbabilisticGoaway(limits.goawayChance()));
    }
    if (audit != null) {
      router.route().handler(audit.received());
    }
    router.route().handler(authenticator);
    if (audit != null) {
      router.route().handler(audit);
    }
    router.route().handler(this::publicEndpoints);
    router.route().handler(this::requestInfo);
    router.route().handler(new RequestDeadline(limits.requestTimeout()));
    router.route().handler(new ImpersonationFilter(authorizer));
    router.route().handler(inFlight);
    router.route().handler(new AuthorizationFilter(authorizer));
    router.route().handler(this::metricsEndpoint);
    router.route().handler(this::openIdEndpoints);
    BodyHandler body = BodyHandler.create(false).setBodyLimit(MAX_BODY_BYTES);
    router.route().handler(ctx -> readBody(ctx, body));
    ResourceHandler resources = new ResourceHandler(view, proxy, peersEnabled, metrics);
    DiscoveryHandler discovery = new DiscoveryHandler(() -> view.get().discovery(), resources::handleGroupVersion,
        v -> metrics.discoveryServed(v == io.mvproxy.discovery.DiscoveryDocuments.View.LOCAL));
    OpenApiHandler openApi = new OpenApiHandler(() -> view.get().openapi(),
        ctx -> io.mvproxy.api.RequestScope.of(ctx).peerProxied(), resources::handleGroupVersion);
    router.route().handler(ctx -> dispatch(ctx, resources, openApi, discovery, health));
    router.route().handler(ctx -> StatusResponses.send(ctx, StatusException.resourceNotFound()));
  }

  private static final CharSequence CACHE_CONTROL = io.vertx.core.http.HttpHeaders.createOptimized("Cache-Control");
  private static final CharSequence NO_CACHE_PRIVATE = io.vertx.core.http.HttpHeaders.createOptimized(
      "no-cache, private");

  private static final CharSequence DATE = io.vertx.core.http.HttpHeaders.createOptimized("Date");
  private static final java.time.format.DateTimeFormatter HTTP_DATE = java.time.format.DateTimeFormatter
      .ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", java.util.Locale.ROOT).withZone(java.time.ZoneOffset.UTC);
  /** A formatted {@code Date} value and the second it is of. */
  private record HttpDate(long second, CharSequence text) {
  }

  /** The {@code Date} value of the current second (formatted once a second, shared by every event loop). */
  private static volatile HttpDate dateCache = new HttpDate(-1, "");

  /**
   * {@code Cache-Control: no-cache, private} on every answer (apiserver {@code filters/cachecontrol.go
   * WithCacheControl}), so that no cache between client and node keeps an authenticated answer; a handler may set
   * its own (the service account issuer discovery documents), a proxied answer carries the peer's. Also {@code Date}
   * (RFC 9110, in {@code http.TimeFormat}), which Go's server sends on every answer.
   */
  /**
   * Records the answer's encoding ({@code gzip} when the client offers it) for the writers of large answers
   * ({@link io.mvproxy.api.ResponseCompression}; kube-apiserver's {@code APIResponseCompression}).
   */
  private static void responseEncoding(RoutingContext ctx) {
    String enc = io.mvproxy.api.ResponseCompression.supported(ctx.request().getHeader("Accept-Encoding"));
    if (enc != null) {
      io.mvproxy.api.RequestScope.of(ctx).contentEncoding(enc);
    }
    ctx.next();
  }

  private static void cacheControl(RoutingContext ctx) {
    long second = System.currentTimeMillis() / 1000;
    HttpDate d = dateCache;
    if (d.second() != second) {
      d = new HttpDate(second, io.vertx.core.http.HttpHeaders.createOptimized(
          HTTP_DATE.format(java.time.Instant.ofEpochSecond(second))));
      dateCache = d;
    }
    ctx.response().headers().set(CACHE_CONTROL, NO_CACHE_PRIVATE).set(DATE, d.text());
    ctx.next();
  }

  /** Health checks and {@code /version} (GET): answered before request info, authorization and limits. */
  private void publicEndpoints(RoutingContext ctx) {
    String path = ctx.request().path();
    if (ctx.request().method() == HttpMethod.GET && (path.equals("/version") || isHealth(path, "/healthz")
        || isHealth(path, "/livez") || isHealth(path, "/readyz"))) {
      health.handle(ctx);
    } else {
      ctx.next();
    }
  }

  /** @return true for {@code prefix} itself or one of its checks ({@code prefix/...}) */
  private static boolean isHealth(String path, String prefix) {
    return path.startsWith(prefix) && (path.length() == prefix.length() || path.charAt(prefix.length()) == '/');
  }

  /** {@code GET /metrics}: the node's Prometheus metrics (after authorization, as kube-apiserver's). */
  private void metricsEndpoint(RoutingContext ctx) {
    if (ctx.request().method() == HttpMethod.GET && "/metrics".equals(ctx.request().path())) {
      ctx.response().putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8").end(metrics.scrape());
    } else {
      ctx.next();
    }
  }

  /**
   * Service account issuer discovery (after authorization, as kube-apiserver's {@code routes.OpenIDMetadataServer}:
   * RBAC's {@code system:service-account-issuer-discovery} lets service accounts read it): the exact paths
   * {@code /.well-known/openid-configuration} ({@code application/json}) and {@code /openid/v1/jwks}
   * ({@code application/jwk-set+json}), {@code 200} with {@code Cache-Control: public, max-age=3600} to a GET, 405 to
   * any other method (go-restful's GET-only routes); without the documents both fall through to {@code 404}.
   */
  private void openIdEndpoints(RoutingContext ctx) {
    String path = ctx.request().path();
    io.mvproxy.security.serviceaccount.OpenIdMetadata m;
    boolean config = io.mvproxy.security.serviceaccount.OpenIdMetadata.CONFIG_PATH.equals(path);
    if ((config || io.mvproxy.security.serviceaccount.OpenIdMetadata.JWKS_PATH.equals(path))
        && (m = openId.get()) != null) {
      if (ctx.request().method() != HttpMethod.GET) {
        StatusResponses.send(ctx, StatusException.methodNotAllowed());
        return;
      }
      ctx.response().putHeader("Content-Type", config ? io.mvproxy.security.serviceaccount.OpenIdMetadata
              .CONFIG_CONTENT_TYPE : io.mvproxy.security.serviceaccount.OpenIdMetadata.JWKS_CONTENT_TYPE)
          .putHeader("Cache-Control", io.mvproxy.security.serviceaccount.OpenIdMetadata.CACHE_CONTROL)
          .end(io.vertx.core.buffer.Buffer.buffer(config ? m.configJson() : m.keysetJson()));
    } else {
      ctx.next();
    }
  }

  /** Reads the body of methods that carry one (at most {@link #MAX_BODY_BYTES}); others go on at once. */
  private static void readBody(RoutingContext ctx, BodyHandler body) {
    if (WITH_BODY.contains(ctx.request().method())) {
      body.handle(ctx);
    } else {
      ctx.next();
    }
  }

  /**
   * The last step: health checks by a method other than GET (any method, as kube's NonGoRestfulMux) and
   * {@code /version} by one (405); resource requests to the decide-then-act {@link ResourceHandler}; OpenAPI and
   * discovery paths to their handlers (which hand group-versions this node lacks back to it); anything else 404.
   */
  private static void dispatch(RoutingContext ctx, ResourceHandler resources, OpenApiHandler openApi,
                               DiscoveryHandler discovery, HealthHandler health) {
    RequestInfo info = io.mvproxy.api.RequestScope.of(ctx).info();
    String path = ctx.request().path();
    if (isHealth(path, "/healthz") || isHealth(path, "/livez") || isHealth(path, "/readyz")) {
      // healthz.InstallHandler registers the checks on the NonGoRestfulMux, which serves every method; a GET was
      // answered before authorization, another method (a load balancer's HEAD) is answered once authorized
      health.handle(ctx);
    } else if (path.equals("/version")) {
      StatusResponses.send(ctx, StatusException.methodNotAllowed()); // routes/version.go: a go-restful GET route
    } else if (info.resourceRequest() && !RequestInfo.routable(path)) {
      StatusResponses.send(ctx, StatusException.resourceNotFound());
    } else if (info.resourceRequest()) {
      resources.handle(ctx);
    } else if (path.equals("/openapi/v2") || path.startsWith("/openapi/v3")) {
      openApi.handle(ctx);
    } else if (isDiscovery(info)) {
      // GET and HEAD served, another method 405 (DiscoveryHandler): the answer of the go-restful /api and built-in
      // group-version routes (which also answer HEAD 405); kube-aggregator's /apis and /apis/<group> handlers and a
      // CRD's version discovery serve every method, which is not told apart here
      discovery.handle(ctx);
    } else {
      StatusResponses.send(ctx, StatusException.resourceNotFound());
    }
  }

  /** Parses the request info (400 for a malformed path or query escape) and counts the request for shutdown and metrics. */
  private void requestInfo(RoutingContext ctx) {
    String watch;
    try {
      watch = ctx.request().getParam("watch");
    } catch (IllegalArgumentException e) {
      throw StatusException.badRequest("invalid URL query: " + e.getMessage());
    }
    RequestInfo info = RequestInfo.parse(ctx.request().method().name(), ctx.request().path(), watch);
    io.mvproxy.api.RequestScope.of(ctx).info(info);
    track(ctx, info);
    ctx.next();
  }

  /** Counts the request in flight (not watches) and records its metrics when it ends. */
  private void track(RoutingContext ctx, RequestInfo info) {
    long start = System.nanoTime();
    boolean watch = LongRunning.is(ctx.request(), info);
    if (!watch) {
      lifecycle.requestStarted();
    }
    ctx.addEndHandler(ar -> {
      if (!watch) {
        lifecycle.requestEnded();
      }
      metrics.requests().record(info, ctx.response().getStatusCode(), io.mvproxy.api.RequestScope.of(ctx).served(),
          java.time.Duration.ofNanos(System.nanoTime() - start));
    });
  }

  /**
   * Graceful stop of the HTTPS server: no new connections; requests in flight may finish within {@code grace}.
   *
   * @param grace the longest wait
   * @return completes when the server is closed
   */
  public Future<Void> shutdown(java.time.Duration grace) {
    return server == null ? Future.succeededFuture()
        : server.shutdown(grace.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  private static boolean isDiscovery(RequestInfo info) {
    return !info.apiPrefix().isEmpty();
  }

  @Override
  public Future<?> stop() {
    return server == null ? Future.succeededFuture() : server.close();
  }
}
