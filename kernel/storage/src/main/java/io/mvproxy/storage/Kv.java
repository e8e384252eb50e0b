package io.mvproxy.storage;

/**
 * One key-value pair as a backend holds it (etcd {@code mvccpb.KeyValue}).
 *
 * @param key            full key ({@code /registry/<resource>/<ns>/<name>})
 * @param value          the stored bytes as a byte string, one char per byte (ISO-8859-1): the object's UTF-8 JSON,
 *                       or its ciphertext under encryption at rest ({@code k8s:enc:...})
 * @param modRevision    revision of the last write
 * @param createRevision revision of the write that created it
 */
public record Kv(String key, String value, long modRevision, long createRevision) {
}
