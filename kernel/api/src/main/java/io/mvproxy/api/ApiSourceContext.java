package io.mvproxy.api;

import io.vertx.core.Vertx;
import io.vertx.core.net.PemKeyCertOptions;
import java.util.Optional;

/** Node services offered to {@link ApiSourceFactory} and {@link ApiSource} implementations. */
public interface ApiSourceContext {

  /** @return the node's Vert.x instance (clustered) */
  Vertx vertx();

  /**
   * @return the node's storage ({@code --storage-backend}: etcd3 or memory), through which every API source keeps
   *     its objects (one fleet-wide revision; storage.md)
   */
  io.mvproxy.api.storage.Storage storage();

  /** @return this node's server ID */
  String serverId();

  /**
   * Resolves a Kubernetes service reference (an APIService's {@code spec.service}) to a backend base URL through the
   * node's {@code serviceResolution} configuration (mvproxy has no Services/Endpoints to read).
   *
   * @param namespace service namespace
   * @param name      service name
   * @param port      service port (443 when the manifest omits it)
   * @return e.g. {@code https://127.0.0.1:8443}, or empty when not configured
   */
  default Optional<String> serviceUrl(String namespace, String name, int port) {
    return Optional.empty();
  }

  /**
   * @return the node's proxy client key pair ({@code --proxy-client-cert-file} / {@code --proxy-client-key-file}),
   *     presented to aggregated API backends, or null when not configured
   */
  default PemKeyCertOptions proxyClientKeyCert() {
    return null;
  }

  /**
   * @return the node's authorization ({@code --authorization-mode} chain, RBAC rules, escalation checks), for
   *     access reviews and RBAC writes; null when the node offers none (tests)
   */
  default io.mvproxy.api.authz.AccessControl accessControl() {
    return null;
  }

  /**
   * Authenticates a bearer token as the node's token authenticator does ({@code --token-auth-file}), for
   * TokenReviews.
   *
   * @param token the bearer token
   * @return the user (with {@code system:authenticated}), or empty when the token is unknown
   */
  default Optional<UserInfo> authenticateToken(String token) {
    return Optional.empty();
  }

  /**
   * @return the NamespaceLifecycle admission check for creates of namespaced objects, or null when the node has
   *     no namespaces (tests)
   */
  default NamespaceLifecycle namespaceLifecycle() {
    return null;
  }

  /**
   * @return the node's dynamic admission (webhooks) every stored kind runs on writes, or null when the node has
   *     none (tests)
   */
  default io.mvproxy.api.admission.Admission admission() {
    return null;
  }

  /**
   * A typed node service, for the built-in API set and plugins that need more than this interface offers (the
   * kernel's authorization, service account tokens, authenticator). Services are looked up by the exact type the
   * node registered.
   *
   * @param type the service's type, e.g. {@code io.mvproxy.authorization.NodeAuthorization}
   * @param <T>  the type
   * @return the service, or empty when the node has none (tests, a node without that feature)
   */
  default <T> Optional<T> service(Class<T> type) {
    return Optional.empty();
  }
}
