package io.mvproxy.api.storage;

/** A running watch. */
public interface Watch {

  /**
   * @return a revision this watch has caught up to: every event up to it was delivered, so it is a valid
   *     BOOKMARK resourceVersion to resume from
   */
  long progressRevision();

  /** Stops the watch; no more listener calls follow. Idempotent. */
  void cancel();
}
