package io.mvproxy.storage;

/**
 * The answer of a backend compare-and-set txn.
 *
 * @param succeeded true when the comparison held and the write happened
 * @param revision  the txn's header revision (the write's revision when it succeeded)
 * @param current   when it failed: the key's current pair, null when absent; when a delete succeeded: the
 *                  deleted pair
 */
public record TxnResult(boolean succeeded, long revision, Kv current) {
}
