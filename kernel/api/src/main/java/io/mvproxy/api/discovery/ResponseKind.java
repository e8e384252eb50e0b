package io.mvproxy.api.discovery;

/**
 * The group/version/kind a resource or subresource returns ({@code responseKind} in apidiscovery v2).
 *
 * @param group   API group ({@code ""} for core)
 * @param version API version
 * @param kind    kind, e.g. {@code Widget}
 */
public record ResponseKind(String group, String version, String kind) {
}
