package io.mvproxy.discovery;

/**
 * A discovery representation a client can be served (discovery.md section 2), with the exact {@code Content-Type}
 * naming it.
 */
public enum DiscoveryFormat {
  /** Aggregated {@code apidiscovery.k8s.io/v2} {@code APIGroupDiscoveryList}. */
  V2("v2"),
  /** Aggregated {@code apidiscovery.k8s.io/v2beta1} {@code APIGroupDiscoveryList} (same shape as v2). */
  V2BETA1("v2beta1"),
  /** Legacy {@code APIVersions} / {@code APIGroupList} / {@code APIGroup} / {@code APIResourceList}. */
  LEGACY(null);

  /** The aggregated discovery API group. */
  public static final String GROUP = "apidiscovery.k8s.io";
  /** The aggregated discovery list kind. */
  public static final String LIST_KIND = "APIGroupDiscoveryList";

  private final String version;

  DiscoveryFormat(String version) {
    this.version = version;
  }

  /** @return true for V2 and V2BETA1 */
  public boolean aggregated() {
    return version != null;
  }

  /** @return {@code v2} or {@code v2beta1}; null for LEGACY */
  public String version() {
    return version;
  }

  /** @return {@code apidiscovery.k8s.io/v2} or {@code .../v2beta1}; null for LEGACY */
  public String apiVersion() {
    return version == null ? null : GROUP + "/" + version;
  }

  /**
   * @return e.g. {@code application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList}, or
   *     {@code application/json} for LEGACY
   */
  public String contentType() {
    return version == null ? "application/json"
        : "application/json;g=" + GROUP + ";v=" + version + ";as=" + LIST_KIND;
  }

  /**
   * @param version {@code v2} or {@code v2beta1}
   * @return the aggregated format of that version, or null when not supported
   */
  public static DiscoveryFormat ofVersion(String version) {
    for (DiscoveryFormat f : values()) {
      if (f.version != null && f.version.equals(version)) {
        return f;
      }
    }
    return null;
  }
}
