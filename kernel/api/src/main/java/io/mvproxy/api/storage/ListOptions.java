package io.mvproxy.api.storage;

import io.vertx.core.json.JsonObject;
import java.util.function.Predicate;

/**
 * What {@link ResourceStorage#list} reads (apiserver {@code storage.ListOptions}).
 *
 * @param keyPrefix       relative key prefix: {@code ""} for every object, {@code <ns>/} for one namespace
 * @param resourceVersion the request's {@code resourceVersion}: null / {@code ""} (most recent, quorum read),
 *                        {@code "0"} (any), or a decimal revision
 * @param match           the request's {@code resourceVersionMatch}
 * @param limit           page size, 0 for no limit
 * @param continueToken   the request's {@code continue} token, or null
 * @param filter          keeps an object (label/field selectors); {@code null} keeps all. With a filter, short
 *                        pages are re-read until {@code limit} objects match and {@code remainingItemCount} is not
 *                        reported
 */
public record ListOptions(String keyPrefix, String resourceVersion, ResourceVersionMatch match, long limit,
                          String continueToken, Predicate<JsonObject> filter) {

  /** @return a list of every object under {@code keyPrefix} at the most recent revision */
  public static ListOptions all(String keyPrefix) {
    return new ListOptions(keyPrefix, null, ResourceVersionMatch.UNSET, 0, null, null);
  }
}
