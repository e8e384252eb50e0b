package io.mvproxy.aggregated;

import io.mvproxy.api.ApiSourceContext;
import io.vertx.core.Vertx;
import io.vertx.core.net.PemKeyCertOptions;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** Node services for tests: a service-resolution map and the proxy client key pair from a DevPki folder. */
final class TestContext implements ApiSourceContext {
  final Vertx vertx;
  final Map<String, String> services = new ConcurrentHashMap<>();
  final PemKeyCertOptions keyCert;

  TestContext(Vertx vertx, Path pki) {
    this.vertx = vertx;
    this.keyCert = pki == null ? null : new PemKeyCertOptions()
        .setCertPath(pki.resolve("backend-proxy-client.crt").toString())
        .setKeyPath(pki.resolve("backend-proxy-client.key").toString());
  }

  @Override
  public Vertx vertx() {
    return vertx;
  }

  /** @return null: APIService sources store nothing */
  @Override
  public io.mvproxy.api.storage.Storage storage() {
    return null;
  }


  @Override
  public String serverId() {
    return "test-node";
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
