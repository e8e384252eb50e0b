package io.mvproxy.crd.store;

/** Thrown when a watch asks for a resourceVersion older than the event window keeps (answered as 410 Expired). */
public final class TooOldException extends Exception {
  private final long requested;
  private final long oldest;

  /**
   * @param requested the resourceVersion asked for
   * @param oldest    the oldest resourceVersion a watch may start after
   */
  public TooOldException(long requested, long oldest) {
    super("too old resource version: " + requested + " (" + oldest + ")", null, false, false);
    this.requested = requested;
    this.oldest = oldest;
  }

  /** @return the resourceVersion asked for */
  public long requested() {
    return requested;
  }

  /** @return the oldest resourceVersion a watch may start after */
  public long oldest() {
    return oldest;
  }
}
