package io.mvproxy.api.storage;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.function.Consumer;

/**
 * The storage of one resource (kube-apiserver's {@code storage.Interface} behind its cacher,
 * {@code apiserver/pkg/storage/interfaces.go}, {@code etcd3/store.go}, {@code cacher/cacher.go}). Keys are relative to
 * {@link #prefix()} ({@code <ns>/<name>} or {@code <name>}); they must be path-clean (no empty, {@code .} or
 * {@code ..} segments, else 400). Values are objects as JSON; {@code metadata.resourceVersion} is never stored and
 * is filled from the revision of the object's last write on every read. Every future fails with a
 * {@link StorageException} (codes per method); unreachable backends give 503/504 within the storage's request
 * timeout, never a hang. Callbacks and futures complete on the caller's Vert.x context.
 */
public interface ResourceStorage {

  /** @return the resource's key prefix, as given to {@link Storage#resource(String)} */
  String prefix();

  /**
   * Reads one object (a quorum read).
   *
   * @param key relative key
   * @return the object; fails {@link StorageException.Code#NOT_FOUND} (404)
   */
  Future<StoredObject> get(String key);

  /**
   * Lists objects under a key prefix, with kube-apiserver's resourceVersion, limit and continue semantics
   * (storage.md sections 4 and 5).
   *
   * @param options what to list
   * @return the page; fails 400 (bad continue token or resourceVersion), 410 Expired (compacted), 504 Timeout
   *     (resourceVersion ahead of the store)
   */
  Future<ListResult> list(ListOptions options);

  /**
   * Creates an object if its key is absent (one compare-and-set txn).
   *
   * @param key    relative key
   * @param object the object without {@code metadata.resourceVersion} (refused with 400 when set)
   * @return the stored object carrying the write's revision; fails {@link StorageException.Code#KEY_EXISTS} (409)
   */
  Future<StoredObject> create(String key, JsonObject object);

  /**
   * Read, transform, compare-and-set, retried on lost races with the state the race revealed
   * ({@code etcd3/store.go GuaranteedUpdate}). When the transformed object equals the stored one nothing is written
   * and the stored object (same resourceVersion) is returned.
   *
   * @param key           relative key
   * @param preconditions checked on every attempt (409 when they fail)
   * @param tryUpdate     current object (do not change it) to the next object; may throw any exception (for
   *                      example a {@code StatusException}), which fails the update unchanged
   * @return the stored object after the update; fails 404, 409 (preconditions), or what {@code tryUpdate} threw
   */
  Future<StoredObject> guaranteedUpdate(String key, Preconditions preconditions, UpdateFunction tryUpdate);

  /**
   * Deletes an object: txn "if unchanged since read then delete", retried on lost races.
   *
   * @param key           relative key
   * @param preconditions uid / resourceVersion to match (409 when they fail)
   * @param validate      called with the current object before each attempt; may throw to refuse
   * @return the last state, its resourceVersion being the delete's revision; fails 404, 409
   */
  Future<StoredObject> delete(String key, Preconditions preconditions, Consumer<StoredObject> validate);

  /**
   * Watches changes under a key prefix. Every node opens one storage watch per resource and fans it out to all
   * its watches (the watch cache); a watch from a revision that neither the cache nor the backend still holds fails
   * 410 Expired.
   *
   * @param options  where and from which revision
   * @param listener receives events in revision order on the caller's context
   * @return the running watch; fails 410 Expired (too old), 504 (revision ahead of the store), 503
   */
  Future<Watch> watch(WatchOptions options, WatchListener listener);

  /** @return the store's current revision (a quorum read) */
  Future<Long> currentRevision();

  /**
   * @param keyPrefix relative key prefix ({@code ""} for all, {@code ns1/} for one namespace)
   * @return the number of objects under it
   */
  Future<Long> count(String keyPrefix);

  /** The transform of {@link #guaranteedUpdate}. */
  @FunctionalInterface
  interface UpdateFunction {
    /**
     * @param current the stored object (do not change it)
     * @return the next object (its {@code metadata.resourceVersion} is ignored)
     * @throws RuntimeException to abort the update with that exception
     */
    JsonObject update(StoredObject current);
  }
}
