/**
 * mvproxy's storage layer (storage.md): {@link io.mvproxy.storage.NodeStorage} implements the plugin-facing
 * {@link io.mvproxy.api.storage.Storage} over one {@link io.mvproxy.storage.Backend} ({@code etcd3} through jetcd,
 * or {@code memory} in Hazelcast); {@link io.mvproxy.storage.ObjectStore} adds kube-apiserver's object semantics
 * (resourceVersion, preconditions, guaranteed update, paging with continue tokens) and
 * {@link io.mvproxy.storage.WatchCache} fans one storage watch per resource out to every client watch.
 */
package io.mvproxy.storage;
