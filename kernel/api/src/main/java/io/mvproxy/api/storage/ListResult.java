package io.mvproxy.api.storage;

import java.util.List;

/**
 * One page of a list.
 *
 * @param items              objects in key order
 * @param resourceVersion    the revision the list was served at; at least every item's resourceVersion
 * @param continueToken      the token of the next page (kube-apiserver's format), or null when none remain
 * @param remainingItemCount objects after this page, or null when unknown (filtered lists, or no more pages)
 */
public record ListResult(List<StoredObject> items, long resourceVersion, String continueToken,
                         Long remainingItemCount) {
}
