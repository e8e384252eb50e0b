/**
 * The storage interface API sources store their objects through, modelled on kube-apiserver's
 * {@code staging/src/k8s.io/apiserver/pkg/storage/interfaces.go}: {@link io.mvproxy.api.storage.Storage} (one per
 * node, one fleet-wide revision) hands out {@link io.mvproxy.api.storage.ResourceStorage} (one resource's keys, with
 * get / list / create / guaranteedUpdate / delete / watch). Failures are {@link io.mvproxy.api.storage.StorageException}s
 * carrying the Kubernetes Status code (404, 409, 410, 400, 503, 504). Backends live in {@code kernel/storage}.
 */
package io.mvproxy.api.storage;
