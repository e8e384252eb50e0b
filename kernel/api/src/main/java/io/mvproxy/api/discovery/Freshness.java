package io.mvproxy.api.discovery;

/** apidiscovery v2 {@code freshness}: client-go silently drops {@code Stale} group-versions. */
public enum Freshness {
  /** The data is current. */
  Current,
  /** The data could not be refreshed (e.g. its only server died); shown with the last known resources. */
  Stale
}
