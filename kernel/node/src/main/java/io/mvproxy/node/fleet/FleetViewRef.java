package io.mvproxy.node.fleet;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The node's current {@link FleetView}: written only by {@link DiscoveryVerticle}, read lock-free by every request;
 * listeners ({@link #onChange}) are told of each new view.
 */
public final class FleetViewRef {
  private static final Logger LOG = Logger.getLogger(FleetViewRef.class.getName());
  private final AtomicReference<FleetView> ref;
  private final List<Consumer<FleetView>> listeners = new CopyOnWriteArrayList<>();
  private volatile java.util.function.Function<io.mvproxy.api.Gvr, String> pending = g -> null;

  /** @param initial the view before the first computation (everything 503) */
  public FleetViewRef(FleetView initial) {
    ref = new AtomicReference<>(initial);
  }

  /** @return the current view */
  public FleetView get() {
    return ref.get();
  }

  /**
   * Registers a listener called with every new view, after it became current, on the writer's thread (the
   * discovery verticle's context): it must be quick and hop to its own context for anything else. A listener
   * that throws is logged and does not stop the others.
   *
   * @param listener told of each new view
   */
  public void onChange(Consumer<FleetView> listener) {
    listeners.add(listener);
  }

  /**
   * Sets what tells a resource this node will serve shortly (a CustomResourceDefinition created through the API,
   * stored, whose source is being built here): such a resource is answered 503, never 404, while no node serves it.
   *
   * @param pending GVR to the reason it is pending (for the 503's message), or null when it is not
   */
  public void pending(java.util.function.Function<io.mvproxy.api.Gvr, String> pending) {
    this.pending = pending;
  }

  /**
   * @param gvr a resource no known server serves
   * @return why it is about to be served (answer 503), or null (404 is true)
   */
  public String pending(io.mvproxy.api.Gvr gvr) {
    return pending.apply(gvr);
  }

  /** @param next the new view */
  void set(FleetView next) {
    ref.set(next);
    for (Consumer<FleetView> l : listeners) {
      try {
        l.accept(next);
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "fleet view listener failed", e);
      }
    }
  }
}
