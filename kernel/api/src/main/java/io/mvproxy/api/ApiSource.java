package io.mvproxy.api;

import io.mvproxy.api.discovery.ServedGroupVersion;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.List;

/**
 * A source of APIs served by this node: a CRD, an aggregated APIService, or code. The node routes every resource
 * request whose (group, version, resource) the source lists in {@link #groupVersions()} to
 * {@link #handle(RoutingContext, RequestInfo, UserInfo)}. Implementations must be non-blocking.
 */
public interface ApiSource {

  /** @return a stable name for logs and plugin state, e.g. {@code crd/widgets.example.com} */
  String name();

  /** @return the group-versions and resources served; the list must not change without a plugin reload */
  List<ServedGroupVersion> groupVersions();

  /**
   * Serves one resource request. The source writes the full response (or a {@code Status} error) itself;
   * it may also fail the routing context with a {@link StatusException}.
   *
   * @param ctx  the request, body not yet read (use {@code ctx.request().body()} or pipe it)
   * @param info the parsed request (its GVR is one this source serves)
   * @param user the authenticated caller
   */
  void handle(RoutingContext ctx, RequestInfo info, UserInfo user);

  /**
   * OpenAPI v3 fragments for one served group-version: an object with {@code paths} and
   * {@code components.schemas} (merged by the node into {@code /openapi/v3/apis/<g>/<v>}).
   *
   * @param gv one of {@link #groupVersions()}
   * @return the fragment, or null when the source has none
   */
  default JsonObject openApiV3(GroupVersion gv) {
    return null;
  }

  /**
   * OpenAPI v2 fragment for one served group-version: an object with {@code paths} and {@code definitions}
   * (merged by the node into {@code /openapi/v2}).
   *
   * @param gv one of {@link #groupVersions()}
   * @return the fragment, or null
   */
  default JsonObject openApiV2(GroupVersion gv) {
    return null;
  }

  /**
   * @return true when the source answers for its whole group-version, whatever the resource (an aggregated API:
   *     kube-aggregator proxies every path under {@code /apis/<g>/<v>}), so requests reach it even before its
   *     resource list is known; false (the default) routes by resource
   */
  default boolean servesWholeGroupVersion() {
    return false;
  }

  /**
   * Registers a listener to call, on the node's Vert.x context, whenever {@link #groupVersions()} changes (for
   * example an aggregated API whose backend's discovery changed or became Stale). Sources whose API set is fixed
   * may ignore it.
   *
   * @param listener called after each change
   */
  default void onChange(Runnable listener) {
  }

  /**
   * @return a Kubernetes-style status of this source for operators (e.g. an APIService's {@code conditions}), or
   *     null when it has none; shown in the node's {@code plugins} API
   */
  default JsonObject status() {
    return null;
  }

  /**
   * Completes once the source's API set is known: at once for fixed sources; after the first discovery check of
   * its backend (successful or not) for an aggregated API. The node publishes its membership record only after
   * every source's future completed (or a bounded wait), so peers never learn a partial API set from it.
   *
   * @return completes (never fails) when {@link #groupVersions()} is as good as it gets for now
   */
  default Future<Void> ready() {
    return Future.succeededFuture();
  }

  /** Releases resources (listeners, timers). @return completes when stopped */
  default Future<Void> close() {
    return Future.succeededFuture();
  }

  /**
   * The capability of a source that serves a CustomResourceDefinition: the node publishes it as an
   * {@code apiextensions.k8s.io/v1} object ({@link BuiltinApiSet#publishDefinitions}).
   *
   * @return the CRD manifest this source serves, or empty (the default) for any other source
   */
  default java.util.Optional<JsonObject> customResourceDefinition() {
    return java.util.Optional.empty();
  }

  /**
   * The capability of a source that serves an APIService: the node publishes it as an
   * {@code apiregistration.k8s.io/v1} object ({@link BuiltinApiSet#publishDefinitions}).
   *
   * @return the APIService manifest this source serves, or empty (the default) for any other source
   */
  default java.util.Optional<JsonObject> apiService() {
    return java.util.Optional.empty();
  }

  /**
   * Re-checks the source's backend now (an aggregated APIService: its discovery and {@code Available} condition).
   *
   * @return completes when checked; fails when the backend did not answer (see {@link #status()}); the default
   *     does nothing and succeeds
   */
  default Future<Void> refresh() {
    return Future.succeededFuture();
  }
}
