package io.mvproxy.registry.impl.model;

/**
 * The {@code subresources.scale} of a CRD version (apiextensions v1 {@code CustomResourceSubresourceScale}).
 *
 * @param specReplicasPath   JSON path (dotted, e.g. {@code .spec.replicas}) of the desired replicas
 * @param statusReplicasPath JSON path of the observed replicas
 * @param labelSelectorPath  JSON path of the label selector string, or null
 */
public record ScaleSpec(String specReplicasPath, String statusReplicasPath, String labelSelectorPath) {
}
