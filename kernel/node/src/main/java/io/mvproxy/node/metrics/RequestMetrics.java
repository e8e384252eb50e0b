package io.mvproxy.node.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.mvproxy.api.RequestInfo;
import java.time.Duration;

/**
 * Per-request metrics, kube-apiserver style: {@code apiserver_request_total{verb,group,version,resource,
 * subresource,code,served}} and {@code apiserver_request_duration_seconds} (histogram, same labels minus code),
 * where {@code served} is {@code local}, {@code proxied} or {@code none} (answered by the node itself: 404, 503,
 * discovery, health).
 */
public final class RequestMetrics {
  private final MeterRegistry registry;

  /** @param registry the node's registry */
  public RequestMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /**
   * @param info    the request
   * @param code    HTTP status sent
   * @param served  local, proxied or none
   * @param elapsed time to the end of the response (watches: their whole life)
   */
  public void record(RequestInfo info, int code, String served, Duration elapsed) {
    String verb = info.resourceRequest() ? info.verb().toUpperCase() : info.verb().toUpperCase();
    Counter.builder("apiserver_request").description("Requests by verb, resource, HTTP code and where they were served")
        .tag("verb", verb).tag("group", info.group()).tag("version", info.version())
        .tag("resource", info.resource()).tag("subresource", info.subresource()).tag("code", String.valueOf(code))
        .tag("served", served).register(registry).increment();
    if (!"watch".equals(info.verb())) {
      Timer.builder("apiserver_request_duration").description("Request latency, seconds")
          .tag("verb", verb).tag("group", info.group()).tag("version", info.version())
          .tag("resource", info.resource()).tag("served", served)
          .publishPercentileHistogram().register(registry).record(elapsed);
    }
  }
}
