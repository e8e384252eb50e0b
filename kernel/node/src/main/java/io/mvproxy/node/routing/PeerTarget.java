package io.mvproxy.node.routing;

/**
 * Where a proxied request can go.
 *
 * @param serverId the peer's server ID
 * @param host     its advertised peer IP
 * @param port     its advertised peer port
 */
public record PeerTarget(String serverId, String host, int port) {
}
