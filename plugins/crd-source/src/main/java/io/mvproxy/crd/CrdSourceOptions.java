package io.mvproxy.crd;

/**
 * Tunables of a CRD source. Defaults follow kube-apiserver where it has an equivalent.
 *
 * @param eventWindowSize      watch events kept per resource to resume watches (older -> 410 Expired); 1000
 * @param reorderHoldbackMs    ms an event waits so events from concurrent writers are released in resourceVersion
 *                             order (the counter is taken before the write lands); 50
 * @param bookmarkIntervalMs   ms between BOOKMARK events on watches with {@code allowWatchBookmarks}; 60000 as
 *                             kube-apiserver's watch cache
 * @param defaultWatchTimeoutS watch length when {@code timeoutSeconds} is absent; 1800 ({@code --min-request-timeout})
 * @param maxBodyBytes         largest request body; 3 MiB as {@code apiserver/pkg/server/config.go MaxRequestBodyBytes}
 * @param maxListLimit         page size cap for {@code limit}; 0 = no cap
 */
public record CrdSourceOptions(int eventWindowSize, long reorderHoldbackMs, long bookmarkIntervalMs,
                               long defaultWatchTimeoutS, long maxBodyBytes, int maxListLimit) {
  /** The defaults listed above. */
  public static final CrdSourceOptions DEFAULTS = new CrdSourceOptions(1000, 50, 60_000, 1800, 3L * 1024 * 1024, 0);

  /** @return a copy with another bookmark interval in ms */
  public CrdSourceOptions withBookmarkIntervalMs(long ms) {
    return new CrdSourceOptions(eventWindowSize, reorderHoldbackMs, ms, defaultWatchTimeoutS, maxBodyBytes,
        maxListLimit);
  }

  /** @return a copy with another event window size */
  public CrdSourceOptions withEventWindowSize(int size) {
    return new CrdSourceOptions(size, reorderHoldbackMs, bookmarkIntervalMs, defaultWatchTimeoutS, maxBodyBytes,
        maxListLimit);
  }
}
