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
  private boolean peerHop;
  private boolean peerProxied;
  private long deadlineMillis;
  private String served = "none";
  private String auditId;
  private boolean failureLogged;

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
}
