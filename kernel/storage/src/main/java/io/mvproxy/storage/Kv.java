package io.mvproxy.storage;

/**
 * One key-value pair as a backend holds it (etcd {@code mvccpb.KeyValue}).
 *
 * @param key            full key ({@code /registry/<resource>/<ns>/<name>})
 * @param value          the stored JSON text (UTF-8)
 * @param modRevision    revision of the last write
 * @param createRevision revision of the write that created it
 */
public record Kv(String key, String value, long modRevision, long createRevision) {
}
