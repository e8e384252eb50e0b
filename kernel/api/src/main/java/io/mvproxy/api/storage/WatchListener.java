package io.mvproxy.api.storage;

/** Receives a {@link Watch}'s events, in revision order, on the context that started the watch. */
public interface WatchListener {

  /** @param event the next change */
  void onEvent(WatchEvent event);

  /**
   * Called once after the initial ADDED events of a watch with {@link WatchOptions#initialEvents()}.
   *
   * @param revision the snapshot's revision (what the {@code k8s.io/initial-events-end} bookmark carries)
   */
  default void onInitialEventsEnd(long revision) {
  }

  /**
   * The watch ended on the storage side (e.g. 410 Expired when it fell behind the cache, 503 when the backend
   * watch broke); no further calls follow. The client re-watches.
   *
   * @param error what ended it
   */
  void onError(StorageException error);
}
