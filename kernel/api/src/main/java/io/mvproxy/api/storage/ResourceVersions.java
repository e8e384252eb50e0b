package io.mvproxy.api.storage;

import java.math.BigInteger;

/**
 * Reading a {@code resourceVersion} as kube-apiserver's versioner does ({@code storage/api_object_versioner.go
 * ParseResourceVersion}): {@code ""} and {@code "0"} are 0, anything else an unsigned decimal integer
 * ({@code strconv.ParseUint}); the error text is its field error,
 * {@code resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax}, which a list
 * answers as {@code 400 invalid resource version: <it>} ({@code storage.ValidateListOptions}) and a get or watch as a
 * {@code 500} without reason (the cacher returns it as it is).
 */
public final class ResourceVersions {
  private static final BigInteger UINT64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  private ResourceVersions() {
  }

  /**
   * @param rv a {@code resourceVersion} parameter (null or empty: 0)
   * @return its value; one above {@link Long#MAX_VALUE} (a valid uint64) is {@link Long#MAX_VALUE}, ahead of any store
   * @throws IllegalArgumentException with the versioner's field error text when it is not an unsigned integer
   */
  public static long parse(String rv) {
    if (rv == null || rv.isEmpty() || "0".equals(rv)) {
      return 0;
    }
    if (!rv.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw new IllegalArgumentException(error(rv, "invalid syntax"));
    }
    BigInteger v = new BigInteger(rv);
    if (v.compareTo(UINT64_MAX) > 0) {
      throw new IllegalArgumentException(error(rv, "value out of range"));
    }
    return v.bitLength() > 63 ? Long.MAX_VALUE : v.longValue();
  }

  /** How long a not-older-than read waits for the store to reach its revision, ms (the cacher's 3 s). */
  public static final long FRESH_WAIT_MS = 3000;

  /**
   * Waits until the store's revision reaches {@code rv} ({@code watch_cache.go waitUntilFreshAndBlock}), asking
   * {@code current} every 100 ms for at most {@link #FRESH_WAIT_MS}.
   *
   * @param vertx   runs the retries
   * @param current the store's current revision
   * @param rv      the revision wanted
   * @return completes once the store is at {@code rv}; fails with 504 {@code Too large resource version} past the
   *     wait, or with {@code current}'s failure
   */
  public static io.vertx.core.Future<Void> awaitRevision(io.vertx.core.Vertx vertx,
                                                         java.util.function.Supplier<io.vertx.core.Future<Long>> current,
                                                         long rv) {
    io.vertx.core.Promise<Void> p = io.vertx.core.Promise.promise();
    check(vertx, current, rv, System.currentTimeMillis() + FRESH_WAIT_MS, p);
    return p.future();
  }

  private static void check(io.vertx.core.Vertx vertx, java.util.function.Supplier<io.vertx.core.Future<Long>> current,
                            long rv, long deadline, io.vertx.core.Promise<Void> p) {
    current.get().onFailure(p::fail).onSuccess(cur -> {
      if (cur >= rv) {
        p.complete();
      } else if (System.currentTimeMillis() >= deadline) {
        p.fail(StorageException.tooLargeResourceVersion(rv, cur));
      } else {
        vertx.setTimer(100, t -> check(vertx, current, rv, deadline, p));
      }
    });
  }

  private static String error(String rv, String why) {
    String q = io.mvproxy.api.GoStrings.quote(rv);
    return "resourceVersion: Invalid value: " + q + ": strconv.ParseUint: parsing " + q + ": " + why;
  }
}
