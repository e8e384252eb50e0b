/**
 * CRD source plugin: {@link io.mvproxy.crd.CrdApiSourceFactory} turns {@code apiextensions.k8s.io/v1}
 * CustomResourceDefinition manifests into {@link io.mvproxy.crd.CrdApiSource}s whose objects live in the
 * cluster-wide Hazelcast store; {@link io.mvproxy.crd.CrdManifests} reads multi-document YAML.
 */
package io.mvproxy.crd;
