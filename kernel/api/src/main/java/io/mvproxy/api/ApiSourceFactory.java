package io.mvproxy.api;

import io.vertx.core.json.JsonObject;

/**
 * Turns a Kubernetes manifest found in a plugin jar (a CRD or APIService) into an {@link ApiSource}.
 * Implementations are found with {@link java.util.ServiceLoader} on the node's class path
 * ({@code META-INF/services/io.mvproxy.api.ApiSourceFactory}).
 */
public interface ApiSourceFactory {

  /**
   * @param apiVersion the manifest's {@code apiVersion}, e.g. {@code apiextensions.k8s.io/v1}
   * @param kind       the manifest's {@code kind}, e.g. {@code CustomResourceDefinition}
   * @return true when this factory handles such manifests
   */
  boolean supports(String apiVersion, String kind);

  /**
   * Validates a manifest without building anything (used by {@code mvproxy plugin pack}).
   *
   * @param manifest the manifest as JSON
   * @throws StatusException (422 Invalid) when the manifest is not valid as Kubernetes would judge it
   */
  default void validate(JsonObject manifest) {
  }

  /**
   * Validates a manifest and builds its source.
   *
   * @param manifest the manifest as JSON (YAML already converted)
   * @param context  node services
   * @return the source, not yet serving
   * @throws StatusException (422 Invalid) when the manifest is not valid as Kubernetes would judge it
   */
  ApiSource create(JsonObject manifest, ApiSourceContext context);
}
