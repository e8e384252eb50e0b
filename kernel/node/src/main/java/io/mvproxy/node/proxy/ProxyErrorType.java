package io.mvproxy.node.proxy;

/**
 * The {@code type} label of {@code apiserver_peer_proxy_errors_total} (upstream
 * {@code staging/src/k8s.io/apiserver/pkg/util/peerproxy/metrics/metrics.go} has the first two).
 */
public enum ProxyErrorType {
  /** No capable peer could be reached: the client got 503. */
  ENDPOINT_RESOLUTION("endpoint_resolution"),
  /** A connection to one peer could not be opened (refused, TLS failure, connect timeout); the next was tried. */
  PROXY_CONNECTION("proxy_connection"),
  /** The request was sent but the peer's connection failed (reset, closed, idle timeout) before the head arrived. */
  CONNECTION_LOST("connection_lost"),
  /** The peer's connection failed after the head was relayed: a watch ended, another response was cut. */
  STREAM_LOST("stream_lost"),
  /**
   * The peer answered 503 {@link PeerProxy#NOT_SERVED_HERE}: it no longer serves the resource (a plugin withdrawn
   * after this node's view was built); the next capable peer was tried.
   */
  NOT_SERVED("not_served");

  private final String label;

  ProxyErrorType(String label) {
    this.label = label;
  }

  /** @return the metric label value */
  public String label() {
    return label;
  }
}
