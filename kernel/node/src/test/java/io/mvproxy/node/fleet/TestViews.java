package io.mvproxy.node.fleet;

/** Lets tests outside this package swap a fleet view, as only the discovery verticle does in a node. */
public final class TestViews {
  private TestViews() {
  }

  /**
   * @param ref  a view reference
   * @param next the view to publish (listeners run, as after a membership change)
   */
  public static void swap(FleetViewRef ref, FleetView next) {
    ref.set(next);
  }
}
