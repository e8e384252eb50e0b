package io.mvproxy.storage;

/**
 * One change seen by a backend watch (etcd {@code mvccpb.Event}).
 *
 * @param delete   true for a delete
 * @param kv       the pair after a put; for a delete the key with an empty value
 * @param previous the pair before the change, or null
 * @param revision the change's revision
 */
public record BackendEvent(boolean delete, Kv kv, Kv previous, long revision) {
}
