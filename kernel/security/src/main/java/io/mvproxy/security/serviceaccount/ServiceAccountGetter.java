package io.mvproxy.security.serviceaccount;

import io.vertx.core.Future;

/**
 * Finds a ServiceAccount for token validation, as kube-apiserver's {@code serviceaccount.ServiceAccountTokenGetter}
 * (an informer's cache, falling back to storage on a miss).
 */
public interface ServiceAccountGetter {
  /**
   * A stored ServiceAccount's identity.
   *
   * @param uid      {@code metadata.uid}
   * @param deleting true once {@code metadata.deletionTimestamp} is set
   */
  record Found(String uid, boolean deleting) {
  }

  /**
   * @param namespace the namespace
   * @param name      the name
   * @param fresh     true to read storage rather than a cache (the cached uid did not match the token's)
   * @return the account; fails with a message such as {@code serviceaccounts "x" not found} when it does not exist
   */
  Future<Found> get(String namespace, String name, boolean fresh);
}
