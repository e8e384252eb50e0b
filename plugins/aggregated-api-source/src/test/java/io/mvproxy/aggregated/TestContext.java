package io.mvproxy.aggregated;

import io.mvproxy.testkit.TestSourceContext;
import io.vertx.core.Vertx;
import io.vertx.core.net.PemKeyCertOptions;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Node services for tests: a service-resolution map and the proxy client key pair from a DevPki folder (no storage:
 * APIService sources store nothing).
 */
final class TestContext extends TestSourceContext {
  final Map<String, String> services = new ConcurrentHashMap<>();
  final PemKeyCertOptions keyCert;

  TestContext(Vertx vertx, Path pki) {
    super(vertx, null, "test-node");
    this.keyCert = pki == null ? null : new PemKeyCertOptions()
        .setCertPath(pki.resolve("backend-proxy-client.crt").toString())
        .setKeyPath(pki.resolve("backend-proxy-client.key").toString());
  }

  @Override
  public Optional<String> serviceUrl(String namespace, String name, int port) {
    return Optional.ofNullable(services.get(namespace + "/" + name + ":" + port));
  }

  @Override
  public PemKeyCertOptions proxyClientKeyCert() {
    return keyCert;
  }
}
