package io.mvproxy.api;

import io.vertx.ext.web.RoutingContext;

/**
 * The per-request state the handler chain builds up, read through one typed accessor instead of string-keyed
 * {@code RoutingContext} entries (kube-apiserver's {@code request.Context} values: {@code RequestInfoFrom},
 * {@code UserFrom}, the deadline). One instance per request, created on first use and confined to the request's
 * event loop (not thread-safe).
 */
public final class RequestScope {
  private static final String KEY = "mvproxy.requestScope";

  private RequestInfo info;
  private UserInfo user;
  private io.mvproxy.api.authz.Authorizer authorizer;
  private boolean peerHop;
  private boolean peerProxied;
  private long deadlineMillis;
  private String served = "none";
  private String auditId;
  private boolean failureLogged;
  private boolean auditing;
  private boolean auditResponse;
  private java.util.Map<String, String> auditAnnotations;
  private io.vertx.core.json.JsonObject auditStatus;
  private io.vertx.core.json.JsonObject auditResponseObject;
  private Throwable auditPanic;
  private Warnings warnings;
  private String contentEncoding;

  private RequestScope() {
  }

  /**
   * @param ctx a request
   * @return its scope, created empty on first use
   */
  public static RequestScope of(RoutingContext ctx) {
    RequestScope s = ctx.get(KEY);
    if (s == null) {
      s = new RequestScope();
      ctx.put(KEY, s);
    }
    return s;
  }

  /** @return the parsed request, or null before the request-info step ran */
  public RequestInfo info() {
    return info;
  }

  /** @param info the parsed request @return this */
  public RequestScope info(RequestInfo info) {
    this.info = info;
    return this;
  }

  /** @return the authenticated (or impersonated) caller, or null before authentication */
  public UserInfo user() {
    return user;
  }

  /** @param user the caller @return this */
  public RequestScope user(UserInfo user) {
    this.user = user;
    return this;
  }

  /**
   * @return the node's authorizer chain, set by the authorization step for the steps after it (a PUT or apply that
   *     creates its object authorizes {@code create} as well, {@code handlers/rest.go withAuthorization}); null when
   *     the chain has no authorization step
   */
  public io.mvproxy.api.authz.Authorizer authorizer() {
    return authorizer;
  }

  /** @param authorizer the node's authorizer chain @return this */
  public RequestScope authorizer(io.mvproxy.api.authz.Authorizer authorizer) {
    this.authorizer = authorizer;
    return this;
  }

  /** @return true when the connection authenticated as a peer hop (front-proxy client certificate) */
  public boolean peerHop() {
    return peerHop;
  }

  /** @param peerHop whether it is a peer hop @return this */
  public RequestScope peerHop(boolean peerHop) {
    this.peerHop = peerHop;
    return this;
  }

  /**
   * @return true when an authenticated peer hop marked the request {@code X-Kubernetes-Peer-Proxied} (the loop guard:
   *         served here, never proxied again)
   */
  public boolean peerProxied() {
    return peerProxied;
  }

  /** @param peerProxied whether the loop guard is set @return this */
  public RequestScope peerProxied(boolean peerProxied) {
    this.peerProxied = peerProxied;
    return this;
  }

  /**
   * @return when the request must be answered, epoch ms ({@code --request-timeout}, shortened by {@code ?timeout});
   *         0 when it has none (long-running requests)
   */
  public long deadlineMillis() {
    return deadlineMillis;
  }

  /** @param deadlineMillis epoch ms, 0 for none @return this */
  public RequestScope deadlineMillis(long deadlineMillis) {
    this.deadlineMillis = deadlineMillis;
    return this;
  }

  /** @return where the request was served, for metrics: {@code local}, {@code proxied} or {@code none} */
  public String served() {
    return served;
  }

  /** @param served {@code local} or {@code proxied} @return this */
  public RequestScope served(String served) {
    this.served = served;
    return this;
  }

  /** @return the request's audit ID ({@code Audit-ID}), or null before it was assigned */
  public String auditId() {
    return auditId;
  }

  /** @param auditId the audit ID @return this */
  public RequestScope auditId(String auditId) {
    this.auditId = auditId;
    return this;
  }

  /** @return true once a failure of this request was logged (it is logged once) */
  public boolean failureLogged() {
    return failureLogged;
  }

  /** Marks the request's failure as logged. @return this */
  public RequestScope failureLogged(boolean logged) {
    this.failureLogged = logged;
    return this;
  }

  /**
   * Turns audit recording on for this request (the audit step does, when the policy gives it a level above None):
   * until then {@link #annotate}, {@link #auditStatus(io.vertx.core.json.JsonObject)} and
   * {@link #auditResponseObject(io.vertx.core.json.JsonObject)} do nothing, so there is no cost without a policy.
   *
   * @param response true to also keep the response body (level RequestResponse)
   * @return this
   */
  public RequestScope auditing(boolean response) {
    this.auditing = true;
    this.auditResponse = response;
    return this;
  }

  /** @return true when this request's audit event is being recorded */
  public boolean auditing() {
    return auditing;
  }

  /**
   * Adds an annotation to the request's audit event ({@code audit.AddAuditAnnotation}), e.g.
   * {@code authorization.k8s.io/decision}; a later value for the same key replaces the earlier one.
   *
   * @param key   annotation key
   * @param value its value
   */
  public void annotate(String key, String value) {
    if (auditing) {
      if (auditAnnotations == null) {
        auditAnnotations = new java.util.LinkedHashMap<>();
      }
      auditAnnotations.put(key, value == null ? "" : value);
    }
  }

  /** @return the audit annotations added so far (key to value, in order), empty when none */
  public java.util.Map<String, String> auditAnnotations() {
    return auditAnnotations == null ? java.util.Map.of() : auditAnnotations;
  }

  /**
   * Records the {@code metav1.Status} the request was answered with (its audit event's {@code responseStatus}).
   *
   * @param status the Status object (not changed afterwards)
   */
  public void auditStatus(io.vertx.core.json.JsonObject status) {
    if (auditing) {
      this.auditStatus = status;
    }
  }

  /** @return the Status the request was answered with, or null (success, or not recorded) */
  public io.vertx.core.json.JsonObject auditStatus() {
    return auditStatus;
  }

  /**
   * Records the object the request was answered with (the audit event's {@code responseObject} at level
   * RequestResponse); a copy is kept.
   *
   * @param body the response object
   */
  public void auditResponseObject(io.vertx.core.json.JsonObject body) {
    if (auditResponse) {
      this.auditResponseObject = body.copy();
    }
  }

  /** @return the response object recorded for the audit event, or null */
  public io.vertx.core.json.JsonObject auditResponseObject() {
    return auditResponseObject;
  }

  /** @param t the unexpected failure that ended the request (its audit event gets stage Panic) */
  public void auditPanic(Throwable t) {
    if (auditing) {
      this.auditPanic = t;
    }
  }

  /** @return the unexpected failure that ended the request, or null */
  public Throwable auditPanic() {
    return auditPanic;
  }

  /** @return the request's warning recorder ({@link Warnings#add} writes through it), created on first use */
  public Warnings warnings() {
    if (warnings == null) {
      warnings = new Warnings();
    }
    return warnings;
  }

  /**
   * @return the encoding the answer may be compressed with ({@code "gzip"}: the client offered it and
   *     {@code APIResponseCompression} is on), or null; set by the ingress, read by {@link ResponseCompression#end}
   */
  public String contentEncoding() {
    return contentEncoding;
  }

  /** @param encoding {@code "gzip"} or null @return this */
  public RequestScope contentEncoding(String encoding) {
    this.contentEncoding = encoding;
    return this;
  }
}
