/**
 * The aggregated-API (APIService) source: mvproxy's kube-aggregator part (discovery.md section 8).
 *
 * <ul>
 *   <li>{@link io.mvproxy.aggregated.ApiServiceSourceFactory}: the {@code ApiSourceFactory} for
 *       {@code apiregistration.k8s.io/v1 APIService} manifests, validated by
 *       {@link io.mvproxy.aggregated.ApiServiceValidation} ({@code validation.go}).</li>
 *   <li>{@link io.mvproxy.aggregated.ApiServiceSource}: one group-version served by a backend resolved through the
 *       node's {@code serviceResolution}; resources learned by {@link io.mvproxy.aggregated.BackendDiscovery}
 *       ({@code handler_discovery.go}), requests forwarded by {@link io.mvproxy.aggregated.BackendProxy}
 *       ({@code handler_proxy.go}), availability as an {@link io.mvproxy.aggregated.AvailableCondition}
 *       ({@code available_controller.go}); {@code onChange} listeners hear about resource/freshness changes.</li>
 * </ul>
 */
package io.mvproxy.aggregated;
