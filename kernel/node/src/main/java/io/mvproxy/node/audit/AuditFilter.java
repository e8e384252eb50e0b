package io.mvproxy.node.audit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.RequestScope;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.authz.Attributes;
import io.mvproxy.node.ingress.LongRunning;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The audit steps of the handler chain, as kube-apiserver's {@code filters/audit.go} {@code WithAudit} and
 * {@code filters/authn_audit.go} {@code WithFailedAuthenticationAudit}. Installed only when a policy and a backend
 * are configured (no cost otherwise).
 * <ul>
 *   <li>{@link #received()} (before authentication) stamps the received time; a request that authentication refuses
 *       (401) gets one event at stage {@code ResponseStarted} with an empty user and the message
 *       {@code Authentication failed, attempted: ...} / {@code Authentication failed, no credentials provided}.</li>
 *   <li>{@link #handle} (after authentication, before impersonation) asks the policy about the authenticated user
 *       and the request, then writes {@code RequestReceived}; {@code ResponseStarted} when the head of a long-running
 *       response (watch) is sent; {@code ResponseComplete} when the response ends, or {@code Panic} (500, "APIServer
 *       panic'd: ...") when it failed unexpectedly; each unless omitted by the rule. The user is who authenticated (on a
 *       peer hop: the original user from the front-proxy headers, never the proxying node); {@code impersonatedUser}
 *       who the request ran as. {@code requestObject} is the JSON body (level Request and up), {@code responseObject}
 *       the JSON answer written by this node (RequestResponse).</li>
 * </ul>
 * Events go to every {@link AuditSink} without blocking the event loop.
 */
public final class AuditFilter implements Handler<RoutingContext> {
  private static final String RECEIVED = "mvproxy.audit.received";
  private static final String EVALUATED = "mvproxy.audit.evaluated";
  private final AuditPolicy policy;
  private final List<AuditSink> sinks;
  private final Map<AuditPolicy.Level, Counter> levels = new EnumMap<>(AuditPolicy.Level.class);
  private final Counter events;

  /**
   * @param policy   the {@code --audit-policy-file} policy
   * @param sinks    the backends (at least one)
   * @param registry where {@code apiserver_audit_level_total} and {@code apiserver_audit_event_total} go
   */
  public AuditFilter(AuditPolicy policy, List<AuditSink> sinks, MeterRegistry registry) {
    this.policy = policy;
    this.events = Counter.builder("apiserver_audit_event_total").description("Counter of audit events generated and "
        + "sent to the audit backend.").register(registry);
    this.sinks = List.copyOf(sinks);
    for (AuditPolicy.Level l : AuditPolicy.Level.values()) {
      levels.put(l, Counter.builder("apiserver_audit_level_total").description("Counter of policy levels for audit "
          + "events (1 per request).").tag("level", l.name()).register(registry));
    }
  }

  /** @return the step before authentication: received time, and the failed-authentication event */
  public Handler<RoutingContext> received() {
    return ctx -> {
      Instant now = Instant.now();
      ctx.put(RECEIVED, now);
      ctx.addHeadersEndHandler(v -> {
        if (ctx.get(EVALUATED) == null && ctx.response().getStatusCode() == 401) {
          failedAuthentication(ctx, now);
        }
      });
      ctx.next();
    };
  }

  private void failedAuthentication(RoutingContext ctx, Instant received) {
    RequestInfo info = info(ctx);
    AuditPolicy.Decision d = policy.evaluate(Attributes.of(info, null, null));
    levels.get(d.level()).increment();
    if (d.level() == AuditPolicy.Level.None || d.omitStages().contains(AuditPolicy.Stage.ResponseStarted)) {
      return;
    }
    AuditEvent ev = event(ctx, d, info, null, received);
    JsonObject status = new JsonObject().put("metadata", new JsonObject()).put("message", authMethods(ctx.request()))
        .put("code", 401);
    emit(ev.render(AuditPolicy.Stage.ResponseStarted, Instant.now(), status, null, null, null, Map.of()));
  }

  /** {@code getAuthMethods} of {@code authn_audit.go}. */
  static String authMethods(HttpServerRequest req) {
    List<String> m = new java.util.ArrayList<>();
    String auth = req.getHeader("Authorization");
    if (auth != null && auth.trim().regionMatches(true, 0, "basic ", 0, 6)) {
      m.add("basic");
    }
    if (auth != null) {
      String[] parts = auth.trim().split(" ");
      if (parts.length > 1 && parts[0].equalsIgnoreCase("bearer")) {
        m.add("bearer");
      }
    }
    String token;
    try {
      token = req.getParam("access_token");
    } catch (IllegalArgumentException e) {
      token = null;
    }
    if (token != null && !token.trim().isEmpty()) {
      m.add("access_token");
    }
    try {
      if (req.isSSL() && req.connection().peerCertificates() != null && !req.connection().peerCertificates().isEmpty()) {
        m.add("x509");
      }
    } catch (javax.net.ssl.SSLPeerUnverifiedException e) {
      // no client certificate
    }
    return m.isEmpty() ? "Authentication failed, no credentials provided"
        : "Authentication failed, attempted: " + String.join(", ", m);
  }

  @Override
  public void handle(RoutingContext ctx) {
    ctx.put(EVALUATED, Boolean.TRUE);
    RequestScope scope = RequestScope.of(ctx);
    RequestInfo info = info(ctx);
    UserInfo user = scope.user();
    AuditPolicy.Decision d = policy.evaluate(Attributes.of(info, user, null));
    levels.get(d.level()).increment();
    if (d.level() == AuditPolicy.Level.None) {
      ctx.next();
      return;
    }
    Instant received = ctx.get(RECEIVED);
    AuditEvent ev = event(ctx, d, info, user, received == null ? Instant.now() : received);
    scope.auditing(d.level() == AuditPolicy.Level.RequestResponse);
    if (scope.peerProxied()) {
      scope.annotate(PEER_PROXIED, "true");
    }
    stage(d, ev, AuditPolicy.Stage.RequestReceived, null, scope, ctx);
    boolean longRunning = LongRunning.is(ctx.request(), info);
    int[] code = {0};
    ctx.addHeadersEndHandler(v -> {
      code[0] = ctx.response().getStatusCode();
      if (longRunning) {
        stage(d, ev, AuditPolicy.Stage.ResponseStarted, AuditEvent.status(code[0], scope.auditStatus()), scope, ctx);
      }
    });
    ctx.addEndHandler(ar -> {
      Throwable panic = scope.auditPanic();
      if (panic != null) {
        stage(d, ev, AuditPolicy.Stage.Panic, new JsonObject().put("metadata", new JsonObject())
            .put("status", "Failure").put("message", "APIServer panic'd: " + panic).put("reason", "InternalError")
            .put("code", 500), scope, ctx);
        return;
      }
      JsonObject status = code[0] == 0
          ? new JsonObject().put("metadata", new JsonObject()).put("status", "Success")
              .put("message", "Connection closed early").put("code", 200)
          : AuditEvent.status(code[0], scope.auditStatus());
      if (code[0] == 0 && longRunning) {
        stage(d, ev, AuditPolicy.Stage.ResponseStarted, status, scope, ctx);
      }
      stage(d, ev, AuditPolicy.Stage.ResponseComplete, status, scope, ctx);
    });
    ctx.next();
  }

  /** The annotation a serving node puts on the event of a request a peer proxied to it. */
  public static final String PEER_PROXIED = "mvproxy.io/peer-proxied";
  /** The annotation a proxying node puts on the event of a request it proxied: the serving peer's server ID. */
  public static final String PROXIED_TO = "mvproxy.io/proxied-to";

  private void stage(AuditPolicy.Decision d, AuditEvent ev, AuditPolicy.Stage stage, JsonObject status,
                     RequestScope scope, RoutingContext ctx) {
    if (d.omitStages().contains(stage)) {
      return;
    }
    JsonObject request = null;
    JsonObject response = null;
    if (stage != AuditPolicy.Stage.RequestReceived) {
      if (!d.level().less(AuditPolicy.Level.Request)) {
        request = requestObject(ctx, d.omitManagedFields());
      }
      if (d.level() == AuditPolicy.Level.RequestResponse && scope.auditResponseObject() != null) {
        response = scope.auditResponseObject();
        if (d.omitManagedFields()) {
          AuditEvent.omitManagedFields(response);
        }
      }
    }
    UserInfo as = scope.user();
    UserInfo impersonated = as != null && as != ev.authenticated() ? as : null;
    emit(ev.render(stage, Instant.now(), status, impersonated, request, response, scope.auditAnnotations()));
  }

  private static JsonObject requestObject(RoutingContext ctx, boolean omitManagedFields) {
    if (ctx.body() == null || ctx.body().length() == 0) {
      return null;
    }
    try {
      JsonObject o = ctx.body().asJsonObject();
      return o == null ? null : omitManagedFields ? AuditEvent.omitManagedFields(o) : o;
    } catch (RuntimeException notJson) {
      return null;
    }
  }

  private AuditEvent event(RoutingContext ctx, AuditPolicy.Decision d, RequestInfo info, UserInfo user,
                           Instant received) {
    HttpServerRequest req = ctx.request();
    return new AuditEvent(d.level(), RequestScope.of(ctx).auditId(), req.uri(), info.verb(), user,
        AuditEvent.sourceIps(req.getHeader("X-Forwarded-For"), req.getHeader("X-Real-Ip"),
            req.remoteAddress() == null ? null : req.remoteAddress().hostAddress()),
        req.getHeader("User-Agent"), info, received);
  }

  private static RequestInfo info(RoutingContext ctx) {
    RequestScope scope = RequestScope.of(ctx);
    if (scope.info() != null) {
      return scope.info();
    }
    String watch;
    try {
      watch = ctx.request().getParam("watch");
    } catch (IllegalArgumentException e) {
      watch = null;
    }
    try {
      return RequestInfo.parse(ctx.request().method().name(), ctx.request().path(), watch);
    } catch (RuntimeException e) {
      return new RequestInfo(false, ctx.request().path(), ctx.request().method().name().toLowerCase(), "", "", "",
          "", "", "", "");
    }
  }

  private void emit(JsonObject event) {
    events.increment();
    for (AuditSink s : sinks) {
      s.process(event);
    }
  }

  /** Closes every backend (events queued are written first, a few seconds at most). */
  public void close() {
    sinks.forEach(AuditSink::close);
  }
}
