package io.mvproxy.storage;

import io.vertx.core.Future;

/**
 * A key-value store with one revision counter, compare-and-set txns and watches: the part of etcd v3 the storage
 * layer needs. Keys are full keys; {@code resource} names the resource key prefix an operation belongs to (the
 * memory backend keeps one event log per resource; etcd ignores it). Every call has a deadline: an unreachable
 * store fails with a {@link io.mvproxy.api.storage.StorageException} 503/504, never hangs. Futures complete on the
 * caller's context.
 */
public interface Backend {

  /** @return {@code etcd3} or {@code memory} */
  String name();

  /** @return the pair at {@code key}, or null when absent (a quorum read) */
  Future<Kv> get(String resource, String key);

  /**
   * Reads {@code [from, end)} in key order.
   *
   * @param revision 0 for the latest revision, else that revision (410 Expired when compacted / not held, 504
   *                 TooLargeResourceVersion when in the future)
   * @param limit    at most this many pairs, 0 for all
   */
  Future<Range> range(String resource, String from, String end, long revision, long limit);

  /** @return the number of keys in {@code [from, end)} and the read's revision as {@code [count, revision]} */
  Future<long[]> count(String resource, String from, String end);

  /** Puts {@code value} at {@code key} if absent (mod revision 0). */
  Future<TxnResult> create(String resource, String key, String value);

  /** Puts {@code value} at {@code key} if its mod revision is still {@code modRevision}. */
  Future<TxnResult> update(String resource, String key, long modRevision, String value);

  /** Deletes {@code key} if its mod revision is still {@code modRevision}. */
  Future<TxnResult> delete(String resource, String key, long modRevision);

  /** @return the current revision (a quorum read) */
  Future<Long> currentRevision();

  /**
   * Watches {@code [from, end)} for changes after {@code afterRevision}; 410 Expired through the listener when
   * that revision is no longer held.
   */
  BackendWatch watch(String resource, String from, String end, long afterRevision, BackendWatch.Listener listener);

  /** @return the result of the last health probe (never blocks) */
  boolean healthy();

  /** @return true when the backend answers within the readiness deadline ({@code /readyz}); default {@link #healthy()} */
  default boolean ready() {
    return healthy();
  }

  /** Releases connections and timers. @return completes when closed */
  Future<Void> close();
}
