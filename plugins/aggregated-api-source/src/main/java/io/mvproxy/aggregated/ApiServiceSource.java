package io.mvproxy.aggregated;

import io.mvproxy.api.ApiSource;
import io.mvproxy.api.ApiSourceContext;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.Freshness;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Logger;

/**
 * The API source of one {@code apiregistration.k8s.io/v1 APIService}: serves its group-version by forwarding to the
 * backend (kube-aggregator {@code pkg/apiserver/handler_proxy.go}), with the resources learned from the backend's
 * discovery ({@code handler_discovery.go}) at start, every {@link AggregatedOptions#refreshIntervalMs()}, once more
 * {@link #RETRY_MS} after a failed check, and on {@link #refresh()}; and an {@code Available} condition like
 * {@code available_controller.go}; after each successful check, the backend's OpenAPI documents of the group-version
 * ({@link BackendOpenApi}, kube-aggregator's openapi controllers), which {@link #openApiV3}/{@link #openApiV2} give
 * the node's documents.
 *
 * <p>State is an immutable snapshot replaced only on the source's Vert.x context; readers on any thread see a
 * consistent view. After each change of the resources, the freshness or the OpenAPI documents, every
 * {@link #onChange(Runnable)} listener runs on that context.
 */
public final class ApiServiceSource implements ApiSource {
  private static final Logger LOG = Logger.getLogger(ApiServiceSource.class.getName());
  /** Delay of the extra check after a failed one, in milliseconds (the backend may just be starting). */
  public static final long RETRY_MS = 5_000;

  /**
   * What the source knows, replaced as a whole.
   *
   * @param resources the last known resources (empty before the first successful check)
   * @param freshness Current after a successful check, else Stale
   * @param etag      ETag of the last aggregated answer, or null
   * @param condition the Available condition
   */
  private record State(List<DiscoveryResource> resources, Freshness freshness, String etag,
                       AvailableCondition condition) {
  }

  private final ApiServiceSpec spec;
  private final ApiSourceContext sources;
  private final AggregatedOptions options;
  private final Vertx vertx;
  private final Context context;
  private final HttpClient client;
  private final BackendDiscovery discovery;
  private final BackendOpenApi openApi;
  /** The backend's OpenAPI documents as last downloaded (after each successful discovery check). */
  private volatile BackendOpenApi.Docs docs = BackendOpenApi.Docs.NONE;
  private final Promise<Void> started = Promise.promise();
  private final BackendProxy proxy;
  private final io.vertx.core.net.NetClient upgrades;
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private volatile State state;
  private Promise<Void> inFlight;
  private long timerId = -1;
  private long retryTimerId = -1;
  private boolean closed;

  /**
   * Builds the source; nothing is fetched until {@link #start()}.
   *
   * @param spec    the validated APIService
   * @param sources node services (Vert.x, service resolution, proxy client key pair)
   * @param options tunables
   */
  public ApiServiceSource(ApiServiceSpec spec, ApiSourceContext sources, AggregatedOptions options) {
    this.spec = Objects.requireNonNull(spec, "spec");
    this.sources = sources;
    this.options = options;
    this.vertx = sources.vertx();
    this.context = vertx.getOrCreateContext();
    this.client = vertx.createHttpClient(BackendClients.options(spec, sources.proxyClientKeyCert(), options),
        BackendClients.pool(options));
    this.discovery = new BackendDiscovery(client, spec.groupVersion(), options.discoveryTimeoutMs());
    this.openApi = new BackendOpenApi(vertx, client, spec.groupVersion(), options.discoveryTimeoutMs());
    io.vertx.core.http.HttpClientOptions httpOptions = BackendClients.options(spec, sources.proxyClientKeyCert(),
        options);
    this.upgrades = vertx.createNetClient(io.mvproxy.security.UpgradeTunnel.clientOptions(httpOptions,
        httpOptions.isVerifyHost()));
    this.proxy = new BackendProxy(vertx, client, upgrades, options.retryAfterSeconds(), options.connectTimeoutMs());
    this.state = new State(List.of(), Freshness.Stale, null, AvailableCondition.pending(Instant.now()));
  }

  /**
   * Starts the first discovery check and the periodic refresh. Does not block.
   *
   * @return completes after the first check (succeeds even when the backend is unavailable: see
   *     {@link #available()})
   */
  public Future<Void> start() {
    context.runOnContext(v -> {
      if (!closed && timerId < 0) {
        timerId = vertx.setPeriodic(options.refreshIntervalMs(), t -> refresh());
      }
      refresh().onComplete(ar -> started.tryComplete());
    });
    return started.future();
  }

  /** @return completes after the first discovery check of the backend, successful or not (see {@link #start()}) */
  @Override
  public Future<Void> ready() {
    return started.future();
  }

  /** @return {@code apiservice/<name>}, e.g. {@code apiservice/v1alpha1.wardle.example.com} */
  /** @return true: like kube-aggregator, every path under the APIService's group-version goes to the backend */
  @Override
  public boolean servesWholeGroupVersion() {
    return true;
  }

  @Override
  public String name() {
    return "apiservice/" + spec.name();
  }

  /** @return the validated APIService */
  public ApiServiceSpec spec() {
    return spec;
  }

  /**
   * @return one group-version with the APIService's priorities and the last known resources; {@code Current} after a
   *     successful discovery check, {@code Stale} before the first one, after a failed one (last known resources
   *     kept) and while the service cannot be resolved. May change after a refresh: see {@link #onChange(Runnable)}.
   */
  @Override
  public List<ServedGroupVersion> groupVersions() {
    State s = state;
    return List.of(new ServedGroupVersion(spec.groupVersion(), spec.groupPriorityMinimum(), spec.versionPriority(),
        s.resources(), s.freshness()));
  }

  /** @return Current or Stale, as in {@link #groupVersions()} */
  public Freshness freshness() {
    return state.freshness();
  }

  /**
   * @return the APIService this source serves as an {@code apiregistration.k8s.io/v1} manifest (built from the
   *     validated spec; {@code caBundle} base64 again), published by the node as a read-only API object
   */
  @Override
  public Optional<JsonObject> apiService() {
    JsonObject s = new JsonObject().put("group", spec.group()).put("version", spec.version())
        .put("groupPriorityMinimum", spec.groupPriorityMinimum()).put("versionPriority", spec.versionPriority());
    if (!spec.local()) {
      s.put("service", new JsonObject().put("namespace", spec.serviceNamespace()).put("name", spec.serviceName())
          .put("port", spec.servicePort()));
    }
    if (spec.caBundlePem() != null) {
      s.put("caBundle", java.util.Base64.getEncoder().encodeToString(
          spec.caBundlePem().getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
    }
    if (spec.insecureSkipTlsVerify()) {
      s.put("insecureSkipTLSVerify", true);
    }
    return Optional.of(new JsonObject().put("apiVersion", "apiregistration.k8s.io/v1").put("kind", "APIService")
        .put("metadata", new JsonObject().put("name", spec.name())).put("spec", s));
  }

  /** @return the {@code Available} condition (kube-aggregator {@code status.conditions[type=Available]}) */
  public AvailableCondition available() {
    return state.condition();
  }

  /** @return the APIService {@code status} object: {@code {"conditions": [<Available>]}} */
  @Override
  public JsonObject status() {
    return new JsonObject().put("conditions", new JsonArray().add(available().toJson()));
  }

  /**
   * Registers a listener told about every change of the resources or the freshness of {@link #groupVersions()}, or
   * of the OpenAPI documents.
   * It runs on the source's Vert.x context (the context current when the source was built, else a new event-loop
   * context), after the new state is visible.
   *
   * @param listener the callback; exceptions it throws are logged and ignored
   */
  @Override
  public void onChange(Runnable listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Runs a discovery check now (coalesced with one already running) and updates the resources, freshness and
   * Available condition.
   *
   * @return succeeds when the backend answered; fails with the reason (also in {@link #available()}) otherwise, or
   *     when the source is closed
   */
  @Override
  public Future<Void> refresh() {
    Promise<Void> p = Promise.promise();
    context.runOnContext(v -> {
      if (closed) {
        p.fail(new IllegalStateException(name() + " is closed"));
        return;
      }
      if (inFlight != null) {
        inFlight.future().onComplete(p);
        return;
      }
      inFlight = p;
      check().onComplete(ar -> {
        inFlight = null;
        p.handle(ar);
      });
    });
    return p.future();
  }

  private Future<Void> check() {
    Optional<BackendEndpoint> ep;
    try {
      ep = endpoint();
    } catch (IllegalArgumentException e) {
      String msg = "service/" + spec.serviceName() + " in \"" + spec.serviceNamespace() + "\" cannot be resolved: "
          + e.getMessage();
      update(state.resources(), Freshness.Stale, state.etag(), false, AvailableCondition.SERVICE_NOT_FOUND, msg);
      return Future.failedFuture(StatusException.unavailable(msg, options.retryAfterSeconds()));
    }
    if (ep.isEmpty()) {
      String msg = notResolvable();
      update(state.resources(), Freshness.Stale, state.etag(), false, AvailableCondition.SERVICE_NOT_FOUND, msg);
      return Future.failedFuture(StatusException.unavailable(msg, options.retryAfterSeconds()));
    }
    return discovery.fetch(ep.get(), state.etag()).transform(ar -> {
      if (ar.succeeded()) {
        BackendDiscovery.Result r = ar.result();
        List<DiscoveryResource> res = r.notModified() ? state.resources() : r.resources();
        update(res, Freshness.Current, r.etag(), true, AvailableCondition.PASSED, "all checks passed");
        // the documents follow the check (not part of its verdict): a change re-publishes the node's OpenAPI
        return openApi.fetch(ep.get(), docs).map(d -> {
          BackendOpenApi.Docs old = docs;
          docs = d;
          if (d.differs(old)) {
            changed();
          }
          return (Void) null;
        });
      }
      LOG.fine(() -> name() + ": " + ar.cause().getMessage());
      update(state.resources(), Freshness.Stale, state.etag(), false, AvailableCondition.FAILED_DISCOVERY_CHECK,
          ar.cause().getMessage());
      scheduleRetry();
      return Future.failedFuture(ar.cause());
    });
  }

  /** After a failed check, checks again after {@link #RETRY_MS} (or the refresh interval when shorter). */
  private void scheduleRetry() {
    if (closed || retryTimerId >= 0 || options.refreshIntervalMs() <= RETRY_MS) {
      return;
    }
    retryTimerId = vertx.setTimer(RETRY_MS, t -> {
      retryTimerId = -1;
      refresh();
    });
  }

  private void update(List<DiscoveryResource> resources, Freshness freshness, String etag, boolean available,
                      String reason, String message) {
    State old = state;
    state = new State(List.copyOf(resources), freshness, etag,
        old.condition().next(available, reason, message, Instant.now()));
    if (!old.resources().equals(resources) || old.freshness() != freshness) {
      changed();
    }
  }

  private void changed() {
    for (Runnable l : listeners) {
      try {
        l.run();
      } catch (RuntimeException e) {
        LOG.warning(name() + ": change listener failed: " + e);
      }
    }
  }

  /**
   * @return the backend's OpenAPI 3 document of the group-version (a copy), as last downloaded after a discovery
   *     check ({@link BackendOpenApi}), or null when it has none (yet)
   */
  @Override
  public JsonObject openApiV3(io.mvproxy.api.GroupVersion gv) {
    JsonObject d = docs.v3();
    return d == null || !gv.equals(spec.groupVersion()) ? null : d.copy();
  }

  /** @return the backend's Swagger 2.0 paths of the group-version and its definitions (a copy), or null */
  @Override
  public JsonObject openApiV2(io.mvproxy.api.GroupVersion gv) {
    JsonObject d = docs.v2();
    return d == null || !gv.equals(spec.groupVersion()) ? null : d.copy();
  }

  private Optional<BackendEndpoint> endpoint() {
    return sources.serviceUrl(spec.serviceNamespace(), spec.serviceName(), spec.servicePort())
        .map(BackendEndpoint::parse);
  }

  private String notResolvable() {
    return "service/" + spec.serviceName() + " in \"" + spec.serviceNamespace() + "\" is not present (no "
        + "serviceResolution entry for " + spec.serviceKey() + ")";
  }

  /**
   * Forwards a request under {@code /apis/<group>/<version>} to the backend and streams its answer back.
   * Answers {@code 503} Status with {@code Retry-After} when the service cannot be resolved or the backend cannot be
   * reached (kube-aggregator: {@code service unavailable} / {@code error trying to reach service}).
   */
  @Override
  public void handle(RoutingContext ctx, RequestInfo info, UserInfo user) {
    Optional<BackendEndpoint> ep;
    try {
      ep = endpoint();
    } catch (IllegalArgumentException e) {
      ep = Optional.empty();
    }
    if (ep.isEmpty()) {
      BackendProxy.fail(ctx, StatusException.unavailable("service unavailable: " + notResolvable(),
          options.retryAfterSeconds()));
      return;
    }
    proxy.forward(ctx, user, ep.get());
  }

  /** Stops the periodic refresh and closes the backend connections. @return completes when closed */
  @Override
  public Future<Void> close() {
    Promise<Void> p = Promise.promise();
    context.runOnContext(v -> {
      closed = true;
      started.tryComplete();
      if (timerId >= 0) {
        vertx.cancelTimer(timerId);
        timerId = -1;
      }
      if (retryTimerId >= 0) {
        vertx.cancelTimer(retryTimerId);
        retryTimerId = -1;
      }
      upgrades.close();
      client.close().onComplete(p);
    });
    return p.future();
  }
}
