package io.mvproxy.api.storage;

/**
 * What {@link ResourceStorage#watch} watches. A revision older than the node's watch cache window ends the watch
 * with one 410 Expired error ({@code too old resource version: N (M)}).
 *
 * @param keyPrefix     relative key prefix ({@code ""} for all, {@code <ns>/} for one namespace, or one key)
 * @param fromRevision  deliver changes after this revision; with {@code initialEvents} the snapshot is at least this
 *                      revision (0: any), waited for up to 3 s, then 504 Too large resource version
 * @param initialEvents first deliver every current object as an ADDED event (a consistent snapshot at a revision at
 *                      least as new as the call), then {@link WatchListener#onInitialEventsEnd(long)}, then changes
 *                      after the snapshot
 */
public record WatchOptions(String keyPrefix, long fromRevision, boolean initialEvents) {
}
