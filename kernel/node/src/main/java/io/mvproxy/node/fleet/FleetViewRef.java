package io.mvproxy.node.fleet;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The node's current {@link FleetView}: written only by {@link DiscoveryVerticle}, read lock-free by every request.
 */
public final class FleetViewRef {
  private final AtomicReference<FleetView> ref;

  /** @param initial the view before the first computation (everything 503) */
  public FleetViewRef(FleetView initial) {
    ref = new AtomicReference<>(initial);
  }

  /** @return the current view */
  public FleetView get() {
    return ref.get();
  }

  /** @param next the new view */
  void set(FleetView next) {
    ref.set(next);
  }
}
