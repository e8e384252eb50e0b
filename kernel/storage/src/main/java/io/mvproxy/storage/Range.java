package io.mvproxy.storage;

import java.util.List;

/**
 * The answer of a backend range read (etcd {@code RangeResponse}).
 *
 * @param kvs      pairs in key order, at most the limit asked
 * @param revision the revision the read was served at (etcd's header revision: the store's current one)
 * @param more     true when keys beyond the limit remain in the range
 * @param count    number of keys in the whole range (ignoring the limit)
 */
public record Range(List<Kv> kvs, long revision, boolean more, long count) {
}
