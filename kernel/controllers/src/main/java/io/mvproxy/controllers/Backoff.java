package io.mvproxy.controllers;

import java.time.Duration;

/**
 * client-go's {@code ItemExponentialFailureRateLimiter}: {@code base * 2^failures}, at most {@code max}.
 *
 * @param base first delay
 * @param max  longest delay
 */
public record Backoff(Duration base, Duration max) {
  /** @param failures failures so far (0 for the first) @return the delay, ms */
  public long delayMs(int failures) {
    double d = base.toMillis() * Math.pow(2, Math.min(failures, 40));
    return (long) Math.max(1, Math.min(d, max.toMillis()));
  }
}
