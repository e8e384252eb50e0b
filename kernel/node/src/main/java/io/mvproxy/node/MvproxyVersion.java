package io.mvproxy.node;

/** The mvproxy release this node runs, published to peers and in {@code /version}. */
public final class MvproxyVersion {
  /** The version string. */
  public static final String VERSION = "0.1.0";

  private MvproxyVersion() {
  }
}
