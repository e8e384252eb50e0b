package io.mvproxy.aggregated;

import io.mvproxy.api.ApiSourceContext;
import io.mvproxy.api.ApiSourceFactory;
import io.vertx.core.json.JsonObject;

/**
 * Builds {@link ApiServiceSource}s from {@code apiregistration.k8s.io/v1 APIService} manifests (registered in
 * {@code META-INF/services/io.mvproxy.api.ApiSourceFactory}); the kube-aggregator part of mvproxy.
 */
public final class ApiServiceSourceFactory implements ApiSourceFactory {
  private final AggregatedOptions options;

  /** A factory with {@link AggregatedOptions#DEFAULTS} (the ServiceLoader constructor). */
  public ApiServiceSourceFactory() {
    this(AggregatedOptions.DEFAULTS);
  }

  /** @param options tunables of every source built */
  public ApiServiceSourceFactory(AggregatedOptions options) {
    this.options = options;
  }

  /** @return true for {@code apiregistration.k8s.io/v1} {@code APIService} */
  /** Validates the APIService as kube-aggregator would (422 with causes when invalid). */
  @Override
  public void validate(JsonObject manifest) {
    ApiServiceValidation.parse(manifest);
  }

  @Override
  public boolean supports(String apiVersion, String kind) {
    return "apiregistration.k8s.io/v1".equals(apiVersion) && "APIService".equals(kind);
  }

  /**
   * Validates the manifest ({@link ApiServiceValidation}) and builds its source, which starts its first discovery
   * check asynchronously ({@link ApiServiceSource#start()}). Does not block. A service missing from the node's
   * {@code serviceResolution} does not fail: the source loads with its group-version Stale and answers 503.
   *
   * @throws io.mvproxy.api.StatusException 422 Invalid with causes when the APIService is not valid
   */
  @Override
  public ApiServiceSource create(JsonObject manifest, ApiSourceContext context) {
    ApiServiceSource source = new ApiServiceSource(ApiServiceValidation.parse(manifest), context, options);
    source.start();
    return source;
  }
}
