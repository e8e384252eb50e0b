package io.mvproxy.api;

import io.mvproxy.api.discovery.ServedGroupVersion;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Optional;

/**
 * An {@link ApiSource} that forwards every method, the default ones included, to another source (as Guava's
 * {@code ForwardingObject}): a wrapper extends it and overrides only what it changes, so a capability it does not
 * mean to change (readiness, change notifications, status, refresh, ...) is never lost to an interface default.
 * A wrapper that deliberately hides a capability overrides it and says why. {@code ForwardingApiSourceTest} checks
 * that this class declares every method of {@link ApiSource}, so a method added to the interface must be added here.
 */
public abstract class ForwardingApiSource implements ApiSource {
  private final ApiSource delegate;

  /** @param delegate the source every method goes to unless overridden (not null) */
  protected ForwardingApiSource(ApiSource delegate) {
    this.delegate = java.util.Objects.requireNonNull(delegate, "delegate");
  }

  /** @return the wrapped source */
  protected ApiSource delegate() {
    return delegate;
  }

  /** @return the delegate's name */
  @Override
  public String name() {
    return delegate.name();
  }

  /** @return the delegate's group-versions */
  @Override
  public List<ServedGroupVersion> groupVersions() {
    return delegate.groupVersions();
  }

  /** Hands the request to the delegate. */
  @Override
  public void handle(RoutingContext ctx, RequestInfo info, UserInfo user) {
    delegate.handle(ctx, info, user);
  }

  /** @return the delegate's OpenAPI v3 fragment of {@code gv}, or null */
  @Override
  public JsonObject openApiV3(GroupVersion gv) {
    return delegate.openApiV3(gv);
  }

  /** @return the delegate's OpenAPI v2 fragment of {@code gv}, or null */
  @Override
  public JsonObject openApiV2(GroupVersion gv) {
    return delegate.openApiV2(gv);
  }

  /** @return the delegate's answer */
  @Override
  public boolean servesWholeGroupVersion() {
    return delegate.servesWholeGroupVersion();
  }

  /** Registers the listener with the delegate (it is called with no argument, so no wrapping is needed). */
  @Override
  public void onChange(Runnable listener) {
    delegate.onChange(listener);
  }

  /** @return the delegate's status, or null */
  @Override
  public JsonObject status() {
    return delegate.status();
  }

  /** @return the delegate's readiness */
  @Override
  public Future<Void> ready() {
    return delegate.ready();
  }

  /** @return the delegate's close */
  @Override
  public Future<Void> close() {
    return delegate.close();
  }

  /** @return the delegate's CRD manifest, or empty */
  @Override
  public Optional<JsonObject> customResourceDefinition() {
    return delegate.customResourceDefinition();
  }

  /** @return the delegate's APIService manifest, or empty */
  @Override
  public Optional<JsonObject> apiService() {
    return delegate.apiService();
  }

  /** @return the delegate's refresh */
  @Override
  public Future<Void> refresh() {
    return delegate.refresh();
  }
}
