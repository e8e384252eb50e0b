package io.mvproxy.node;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Shutdown state shared by the ingress and health checks: once {@link #beginShutdown()} is called {@code /readyz}
 * fails, and the ingress counts the requests still in flight (watches apart, which are ended by closing the API
 * sources) so shutdown can wait for them.
 */
public final class NodeLifecycle {
  private final AtomicBoolean shuttingDown = new AtomicBoolean();
  private final AtomicInteger inFlight = new AtomicInteger();

  /** Marks the node as shutting down: readiness turns false. @return false when it already was */
  public boolean beginShutdown() {
    return shuttingDown.compareAndSet(false, true);
  }

  /** @return true once shutdown began */
  public boolean shuttingDown() {
    return shuttingDown.get();
  }

  /** A non-watch request started. */
  public void requestStarted() {
    inFlight.incrementAndGet();
  }

  /** A non-watch request ended (response written, failed or connection closed). */
  public void requestEnded() {
    inFlight.decrementAndGet();
  }

  /** @return non-watch requests in flight */
  public int inFlight() {
    return inFlight.get();
  }
}
