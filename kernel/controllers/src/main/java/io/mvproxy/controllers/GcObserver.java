package io.mvproxy.controllers;

/** What the garbage collector reports (the node counts it in metrics; tests may record it). */
public interface GcObserver {
  /** Reports nothing. */
  GcObserver NONE = new GcObserver() {
  };

  /**
   * A dependent was kept because an owner could not be read (counted once per sweep and reference).
   *
   * @param owner  the reference
   * @param reason why it is unknown
   */
  default void ownerUnknown(OwnerReference owner, String reason) {
  }

  /**
   * A dependent was deleted.
   *
   * @param resource its resource
   * @param policy   the propagation policy used
   */
  default void deleted(ApiResource resource, String policy) {
  }

  /** A sweep finished (every dependent judged once). */
  default void swept() {
  }
}
