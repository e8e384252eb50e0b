package io.mvproxy.api.storage;

/**
 * What {@link ResourceStorage#watch} watches.
 *
 * @param keyPrefix     relative key prefix ({@code ""} for all, {@code <ns>/} for one namespace, or one key)
 * @param fromRevision  deliver changes after this revision; ignored when {@code initialEvents}
 * @param initialEvents first deliver every current object as an ADDED event (a consistent snapshot at a revision at
 *                      least as new as the call), then {@link WatchListener#onInitialEventsEnd(long)}, then changes
 *                      after the snapshot
 */
public record WatchOptions(String keyPrefix, long fromRevision, boolean initialEvents) {
}
