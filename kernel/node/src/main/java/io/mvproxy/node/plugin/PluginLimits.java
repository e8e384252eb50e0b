package io.mvproxy.node.plugin;

import java.time.Duration;

/**
 * Bounds on reading one plugin jar, so that no jar can exhaust the node or wedge the loader: the jar file at most
 * {@link #maxJarBytes}, each manifest entry at most {@link #maxManifestBytes} uncompressed (and at most
 * {@link #maxManifestsBytes} for all of a jar's manifests together; sizes are counted while reading, whatever the
 * zip headers claim), YAML read with the alias, depth and value bounds of {@code YamlDocuments}, and the whole load
 * (reading, parsing, creating the API sources) within {@link #budget}. A jar over a bound is FAILED with the reason
 * and the loader goes on with the next jar. kube-apiserver has no plugins; its nearest counterparts are the 3 MiB
 * request body (one CRD manifest is one request there) and etcd's 1.5 MiB object limit.
 *
 * @param maxJarBytes       largest jar file, bytes (default 64 MiB)
 * @param maxManifestBytes  largest manifest entry, bytes uncompressed (default 16 MiB)
 * @param maxManifestsBytes all manifests of one jar, bytes uncompressed (default 64 MiB)
 * @param maxAliases        YAML collection aliases per document (default 50, SnakeYAML's maxAliasesForCollections)
 * @param maxValues         YAML values after alias expansion per manifest (default 4 000 000)
 * @param budget            longest load of one jar (default 20 s)
 */
public record PluginLimits(long maxJarBytes, long maxManifestBytes, long maxManifestsBytes, int maxAliases,
                           long maxValues, Duration budget) {
  /** The defaults listed above. */
  public static final PluginLimits DEFAULTS = new PluginLimits(64L << 20, 16L << 20, 64L << 20, 50, 4_000_000,
      Duration.ofSeconds(20));
}
