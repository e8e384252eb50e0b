package io.mvproxy.aggregated;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * Where an APIService's backend listens, parsed from a {@code serviceResolution} URL such as
 * {@code https://127.0.0.1:8443} (the stand-in for kube-aggregator's {@code ResolveEndpoint} of a Service).
 *
 * @param ssl      true for {@code https}
 * @param host     host name or IP
 * @param port     port (443 / 80 by default)
 * @param basePath path prefix without trailing slash, usually {@code ""}
 */
public record BackendEndpoint(boolean ssl, String host, int port, String basePath) {

  /**
   * @param url an absolute {@code http} or {@code https} URL
   * @return the endpoint
   * @throws IllegalArgumentException when the URL is not absolute http(s) with a host
   */
  public static BackendEndpoint parse(String url) {
    URI u;
    try {
      u = new URI(url.trim());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("invalid backend URL '" + url + "': " + e.getMessage(), e);
    }
    String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase();
    if (!scheme.equals("https") && !scheme.equals("http") || u.getHost() == null) {
      throw new IllegalArgumentException("invalid backend URL '" + url + "': must be http(s)://host[:port]");
    }
    boolean ssl = scheme.equals("https");
    String host = u.getHost().startsWith("[") ? u.getHost().substring(1, u.getHost().length() - 1) : u.getHost();
    String path = u.getRawPath() == null ? "" : u.getRawPath();
    while (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    return new BackendEndpoint(ssl, host, u.getPort() > 0 ? u.getPort() : ssl ? 443 : 80, path);
  }

  /** @return {@code scheme://host:port} plus the base path, for messages */
  public String url() {
    String h = host.contains(":") ? "[" + host + "]" : host;
    return (ssl ? "https" : "http") + "://" + h + ":" + port + basePath;
  }

  /** @return {@code host:port} as sent in the {@code Host} header */
  public String authority() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }
}
