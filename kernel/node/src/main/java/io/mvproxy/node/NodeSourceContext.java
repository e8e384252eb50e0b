package io.mvproxy.node;

import io.mvproxy.api.ApiSourceContext;
import io.mvproxy.api.storage.Storage;
import io.vertx.core.Vertx;
import io.vertx.core.net.PemKeyCertOptions;
import java.util.Map;
import java.util.Optional;

/**
 * The node services handed to API sources.
 *
 * @param vertx             the clustered Vert.x
 * @param storage           the node's storage ({@code --storage-backend})
 * @param serverId          this node's server ID
 * @param serviceResolution {@code namespace/name:port} to backend URL ({@code serviceResolution} config)
 * @param proxyClientKeyCert the proxy client key pair, or null
 * @param accessControl     the node's authorization (access reviews, escalation checks)
 * @param tokens            the node's token authenticator (TokenReviews)
 * @param namespaces        the NamespaceLifecycle of the built-in namespaces (set once they exist)
 * @param services          typed node services by their registered type ({@link #service(Class)})
 * @param admissionRef      the node's dynamic admission (set once the built-in APIs exist)
 */
record NodeSourceContext(Vertx vertx, Storage storage, String serverId,
                         Map<String, String> serviceResolution, PemKeyCertOptions proxyClientKeyCert,
                         io.mvproxy.api.authz.AccessControl accessControl,
                         java.util.function.Function<String, Optional<io.mvproxy.api.UserInfo>> tokens,
                         java.util.concurrent.atomic.AtomicReference<io.mvproxy.api.NamespaceLifecycle> namespaces,
                         Map<Class<?>, Object> services,
                         java.util.concurrent.atomic.AtomicReference<io.mvproxy.api.admission.Admission> admissionRef)
    implements ApiSourceContext {

  /** Copies the map. */
  NodeSourceContext {
    services = Map.copyOf(services);
  }

  @Override
  public <T> Optional<T> service(Class<T> type) {
    return Optional.ofNullable(type.cast(services.get(type)));
  }

  @Override
  public io.mvproxy.api.NamespaceLifecycle namespaceLifecycle() {
    return namespaces.get();
  }

  @Override
  public io.mvproxy.api.admission.Admission admission() {
    return admissionRef.get();
  }

  @Override
  public Optional<io.mvproxy.api.UserInfo> authenticateToken(String token) {
    return tokens.apply(token);
  }

  @Override
  public Optional<String> serviceUrl(String namespace, String name, int port) {
    return Optional.ofNullable(serviceResolution.get(namespace + "/" + name + ":" + port));
  }
}
