package io.mvproxy.node.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.mvproxy.api.Gvr;
import java.time.Duration;

/**
 * The node's Prometheus metrics, with the upstream peer-proxy names and labels (peer-proxy.md section 1:
 * {@code staging/src/k8s.io/apiserver/pkg/util/peerproxy/metrics/metrics.go}) plus a proxied-request latency
 * histogram. One registry per node (no static state).
 */
public final class NodeMetrics {
  /** Cached per-label-set meters of the per-request proxy metrics (built once, as {@link RequestMetrics}). */
  private final java.util.concurrent.ConcurrentHashMap<Rerouted, Counter> rerouted =
      new java.util.concurrent.ConcurrentHashMap<>();
  private final java.util.concurrent.ConcurrentHashMap<Gvr, Timer> hopTimers =
      new java.util.concurrent.ConcurrentHashMap<>();
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final RequestMetrics requests = new RequestMetrics(registry);

  /** Registers the JVM metrics (memory, GC, threads, class loading, CPU, uptime). */
  public NodeMetrics() {
    new io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics().bindTo(registry);
    new io.micrometer.core.instrument.binder.jvm.JvmGcMetrics().bindTo(registry);
    new io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics().bindTo(registry);
    new io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics().bindTo(registry);
    new io.micrometer.core.instrument.binder.system.ProcessorMetrics().bindTo(registry);
    new io.micrometer.core.instrument.binder.system.UptimeMetrics().bindTo(registry);
  }

  /** @return per-request counters and latency histograms */
  public RequestMetrics requests() {
    return requests;
  }

  /**
   * Registers a gauge, e.g. {@code mvproxy_peers{state="live"}} or {@code mvproxy_plugins{state="FAILED"}}.
   *
   * @param name  metric name
   * @param help  description
   * @param tag   label name
   * @param value label value
   * @param f     the current value
   */
  public void gauge(String name, String help, String tag, String value, java.util.function.Supplier<Number> f) {
    io.micrometer.core.instrument.Gauge.builder(name, f).description(help).tag(tag, value).register(registry);
  }

  /** @return the registry (for more meters) */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /**
   * Counts one proxied request: {@code apiserver_rerouted_request_total{code,group,version,resource}}.
   *
   * @param gvr     the resource
   * @param code    HTTP status returned to the client
   * @param elapsed time from the routing decision to the response head, for
   *                {@code mvproxy_peer_proxy_request_duration_seconds}
   */
  public void rerouted(Gvr gvr, int code, Duration elapsed) {
    Counter c = rerouted.get(new Rerouted(gvr, code));
    if (c == null) {
      c = Counter.builder("apiserver_rerouted_request")
          .description("Total number of requests that were proxied to a peer kube apiserver because the local apiserver was not capable of serving it")
          .tag("code", String.valueOf(code)).tag("group", gvr.group()).tag("version", gvr.version())
          .tag("resource", gvr.resource()).register(registry);
      if (rerouted.size() < RequestMetrics.MAX_CACHED) {
        rerouted.put(new Rerouted(gvr, code), c);
      }
    }
    c.increment();
    Timer t = hopTimers.get(gvr);
    if (t == null) {
      t = Timer.builder("mvproxy_peer_proxy_request_duration")
          .description("Time from routing decision to the peer's response head, seconds")
          .tag("group", gvr.group()).tag("version", gvr.version()).tag("resource", gvr.resource())
          .publishPercentileHistogram().register(registry);
      if (hopTimers.size() < RequestMetrics.MAX_CACHED) {
        hopTimers.put(gvr, t);
      }
    }
    t.record(elapsed);
  }

  /** Label set of {@code apiserver_rerouted_request_total}. */
  private record Rerouted(Gvr gvr, int code) {
  }

  /**
   * Counts a failed proxy attempt: {@code apiserver_peer_proxy_errors_total{type,group,version,resource}}.
   *
   * @param type what failed
   * @param gvr  the resource
   */
  public void proxyError(io.mvproxy.node.proxy.ProxyErrorType type, Gvr gvr) {
    Counter.builder("apiserver_peer_proxy_errors")
        .description("Number of errors encountered when proxying a request to a peer")
        .tag("type", type.label()).tag("group", gvr.group()).tag("version", gvr.version()).tag("resource", gvr.resource())
        .register(registry).increment();
  }

  /**
   * Counts an idempotent request retried on the next capable peer after its peer's connection failed before the
   * response head: {@code apiserver_peer_proxy_retries_total{group,version,resource}}.
   *
   * @param gvr the resource
   */
  public void proxyRetried(Gvr gvr) {
    Counter.builder("apiserver_peer_proxy_retries")
        .description("Number of idempotent proxied requests retried on the next capable peer")
        .tag("group", gvr.group()).tag("version", gvr.version()).tag("resource", gvr.resource())
        .register(registry).increment();
  }

  /**
   * Counts a resource request answered 503 by the routing decision:
   * {@code apiserver_peer_proxy_unavailable_total{cause,awaiting}}; {@code cause} is {@code departed} (only departed
   * peers served it) or {@code fleet_unknown} (404 held back), {@code awaiting} the first awaited kind
   * ({@code membership}, {@code member_join}, {@code member_record}, {@code peer_discovery}) or {@code none}.
   *
   * @param cause    the decision's cause label
   * @param awaiting the awaited kind label, or {@code none}
   */
  public void routingUnavailable(String cause, String awaiting) {
    Counter.builder("apiserver_peer_proxy_unavailable")
        .description("Number of resource requests answered 503 because only departed peers served them or the fleet's API set was not fully known")
        .tag("cause", cause).tag("awaiting", awaiting).register(registry).increment();
  }

  /**
   * Counts a failed peer discovery sync: {@code apiserver_peer_discovery_sync_errors_total{type}}.
   *
   * @param type {@code fetch_discovery} or {@code hostport_resolution}
   */
  public void discoverySyncError(String type) {
    Counter.builder("apiserver_peer_discovery_sync_errors").description("Number of errors syncing peer discovery")
        .tag("type", type).register(registry).increment();
  }

  /**
   * Counts aggregated discovery answers like upstream: {@code aggregator_discovery_nopeer_requests_total} for the
   * local view, {@code aggregator_discovery_peer_aggregated_cache_hits_total} for the merged view (always served
   * from the precomputed document).
   *
   * @param nopeer true for a {@code profile=nopeer} answer
   */
  public void discoveryServed(boolean nopeer) {
    Counter.builder(nopeer ? "aggregator_discovery_nopeer_requests" : "aggregator_discovery_peer_aggregated_cache_hits")
        .description(nopeer ? "Number of requests for the local (nopeer) discovery view"
            : "Number of peer-aggregated discovery requests served from the cached merged document")
        .register(registry).increment();
  }

  /** Counts a recomputation of the merged discovery: {@code aggregator_discovery_peer_aggregated_cache_misses_total}. */
  public void discoveryMerged() {
    Counter.builder("aggregator_discovery_peer_aggregated_cache_misses")
        .description("Number of times the peer-aggregated discovery document had to be recomputed")
        .register(registry).increment();
  }

  /** @return the Prometheus text exposition */
  public String scrape() {
    return registry.scrape();
  }
}
