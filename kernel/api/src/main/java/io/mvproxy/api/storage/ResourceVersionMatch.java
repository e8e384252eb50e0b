package io.mvproxy.api.storage;

/** The {@code resourceVersionMatch} list parameter (apimachinery {@code metav1.ResourceVersionMatch}). */
public enum ResourceVersionMatch {
  /** Parameter absent: legacy semantics (storage.md section 4 table). */
  UNSET(""),
  /** {@code NotOlderThan}: data at least as new as the given resourceVersion. */
  NOT_OLDER_THAN("NotOlderThan"),
  /** {@code Exact}: data at exactly the given resourceVersion (410 when compacted). */
  EXACT("Exact");

  private final String wire;

  ResourceVersionMatch(String wire) {
    this.wire = wire;
  }

  /** @return the parameter value as sent on the wire */
  public String wire() {
    return wire;
  }
}
