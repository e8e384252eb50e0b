package io.mvproxy.api.storage;

/**
 * One change of one object (apiserver {@code watch.Event} as produced by {@code etcd3/watcher.go}).
 *
 * @param type     ADDED, MODIFIED or DELETED
 * @param object   the state after the change; for DELETED the last state carrying the delete's revision
 * @param previous the state before the change, or null for ADDED (and for synthetic initial events)
 */
public record WatchEvent(Type type, StoredObject object, StoredObject previous) {

  /** Event types. */
  public enum Type {
    /** The object was created (or is part of the initial state). */
    ADDED,
    /** The object was changed. */
    MODIFIED,
    /** The object was deleted. */
    DELETED
  }

  /** @return the event's revision */
  public long revision() {
    return object.resourceVersion();
  }
}
