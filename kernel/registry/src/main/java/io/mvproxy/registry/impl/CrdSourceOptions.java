package io.mvproxy.registry.impl;

/**
 * Tunables of a CRD source. Defaults follow kube-apiserver where it has an equivalent.
 *
 * @param bookmarkIntervalMs   ms between BOOKMARK events on watches with {@code allowWatchBookmarks}; 60000 as
 *                             kube-apiserver's watch cache
 * @param defaultWatchTimeoutS watch length when {@code timeoutSeconds} is absent; 1800 ({@code --min-request-timeout})
 * @param maxBodyBytes         largest request body; 3 MiB as {@code apiserver/pkg/server/config.go MaxRequestBodyBytes}
 * @param maxListLimit         page size cap for {@code limit}; 0 = no cap
 */
public record CrdSourceOptions(long bookmarkIntervalMs,
                               long defaultWatchTimeoutS, long maxBodyBytes, int maxListLimit) {
  /** The defaults listed above. */
  public static final CrdSourceOptions DEFAULTS = new CrdSourceOptions(60_000, 1800, 3L * 1024 * 1024, 0);

  /** @return a copy with another bookmark interval in ms */
  public CrdSourceOptions withBookmarkIntervalMs(long ms) {
    return new CrdSourceOptions(ms, defaultWatchTimeoutS, maxBodyBytes,
        maxListLimit);
  }

}
