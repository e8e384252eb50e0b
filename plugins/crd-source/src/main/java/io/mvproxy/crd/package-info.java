/**
 * The CRD source plugin: {@link io.mvproxy.crd.CrdApiSourceFactory} turns {@code apiextensions.k8s.io/v1}
 * CustomResourceDefinition manifests found in plugin jars into sources of the kernel's generic registry
 * ({@link io.mvproxy.registry.impl.Kinds}), whose objects live in the fleet's storage.
 */
package io.mvproxy.crd;
