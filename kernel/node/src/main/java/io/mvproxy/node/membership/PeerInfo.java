package io.mvproxy.node.membership;

/**
 * A live member of the fleet as published in its service-discovery record.
 *
 * @param serverId the peer's server ID
 * @param host     advertised peer IP
 * @param port     advertised peer HTTPS port
 * @param nodeId   the Vert.x/Hazelcast member ID (records of departed members are removed by it)
 * @param etag     the peer's current local (nopeer) discovery ETag, {@code ""} when not yet known
 * @param version  the peer's mvproxy version
 * @param plugins  the peer's plugins as {@code name@version:STATE}
 */
public record PeerInfo(String serverId, String host, int port, String nodeId, String etag, String version,
                       java.util.List<String> plugins) {
  /** Copies the list. */
  public PeerInfo {
    plugins = java.util.List.copyOf(plugins);
  }


  /** @return {@code https://host:port} */
  public String baseUrl() {
    return "https://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }

  /** @param a a JSON array or null @return its elements as strings */
  static java.util.List<String> strings(io.vertx.core.json.JsonArray a) {
    java.util.List<String> out = new java.util.ArrayList<>();
    if (a != null) {
      a.forEach(o -> out.add(String.valueOf(o)));
    }
    return out;
  }
}
