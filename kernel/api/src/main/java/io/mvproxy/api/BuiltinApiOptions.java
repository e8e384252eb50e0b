package io.mvproxy.api;

import java.time.Duration;
import java.util.Objects;

/**
 * The node's settings of its built-in APIs, offered to the {@link BuiltinApiProvider} as a typed service
 * ({@link ApiSourceContext#service(Class)}); a node that offers none gets {@link #DEFAULTS}.
 *
 * @param eventTtl kube-apiserver's {@code --event-ttl}: how long an Event is kept after its last write (core
 *                 {@code v1} and {@code events.k8s.io/v1} alike); {@link Duration#ZERO}: kept until deleted
 */
public record BuiltinApiOptions(Duration eventTtl) {
  /** kube-apiserver's default: events are kept for 1h0m0s. */
  public static final BuiltinApiOptions DEFAULTS = new BuiltinApiOptions(Duration.ofHours(1));

  /** @throws IllegalArgumentException when the TTL is negative */
  public BuiltinApiOptions {
    Objects.requireNonNull(eventTtl, "eventTtl");
    if (eventTtl.isNegative()) {
      throw new IllegalArgumentException("event TTL must not be negative");
    }
  }
}
