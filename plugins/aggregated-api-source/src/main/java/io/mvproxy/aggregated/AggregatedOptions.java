package io.mvproxy.aggregated;

/**
 * Tunables of {@link ApiServiceSource}; {@link #DEFAULTS} follow kube-aggregator and discovery.md section 8.
 *
 * @param discoveryTimeoutMs  deadline of one backend discovery fetch, in milliseconds (kube-aggregator
 *                            {@code handler_discovery.go}: 5 s)
 * @param refreshIntervalMs   period of the discovery refresh, in milliseconds (60 s: "every minute")
 * @param connectTimeoutMs    TCP connect timeout towards the backend, and longest wait for a pooled connection, in
 *                            milliseconds
 * @param poolSize            maximum HTTP/1.1 connections to the backend
 * @param maxWaitQueue        maximum requests waiting for a pooled connection (beyond: fail at once, 503)
 * @param retryAfterSeconds   {@code Retry-After} of the 503 answers sent when the backend is unavailable
 */
public record AggregatedOptions(long discoveryTimeoutMs, long refreshIntervalMs, int connectTimeoutMs, int poolSize,
                                int maxWaitQueue, int retryAfterSeconds) {
  /**
   * 5 s discovery deadline, 60 s refresh, 5 s connect (also the longest wait for a pooled connection), 128
   * connections (each open watch holds one), 1024 waiting, Retry-After 1 s.
   */
  public static final AggregatedOptions DEFAULTS = new AggregatedOptions(5_000, 60_000, 5_000, 128, 1024, 1);

  /** @throws IllegalArgumentException when a value is not positive */
  public AggregatedOptions {
    if (discoveryTimeoutMs <= 0 || refreshIntervalMs <= 0 || connectTimeoutMs <= 0 || poolSize <= 0
        || maxWaitQueue <= 0 || retryAfterSeconds <= 0) {
      throw new IllegalArgumentException("aggregated options must be positive");
    }
  }
}
