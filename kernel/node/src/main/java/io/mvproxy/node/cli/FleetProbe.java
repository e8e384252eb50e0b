package io.mvproxy.node.cli;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Asks nodes, as a client with a certificate, whether the fleet has converged: every node's
 * {@code mvproxy.io/v1alpha1} {@code apiservernodes} lists the expected number of members, all Ready.
 */
final class FleetProbe implements AutoCloseable {
  private final Vertx vertx = Vertx.vertx();
  private final WebClient client;

  /**
   * @param ca   CA of the nodes' serving certificates
   * @param cert client certificate
   * @param key  client key
   */
  FleetProbe(Path ca, Path cert, Path key) {
    client = WebClient.create(vertx, new WebClientOptions().setSsl(true).setConnectTimeout(2000)
        .setTrustOptions(new PemTrustOptions().addCertPath(ca.toString()))
        .setKeyCertOptions(new PemKeyCertOptions().setCertPath(cert.toString()).setKeyPath(key.toString())));
  }

  /**
   * @param urls    base URLs of the nodes
   * @param members expected number of Ready members
   * @return true when every node sees {@code members} Ready members
   */
  boolean converged(List<String> urls, int members) {
    for (String url : urls) {
      try {
        JsonObject list = client.getAbs(url + "/apis/mvproxy.io/v1alpha1/apiservernodes").timeout(3000).send()
            .toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS).bodyAsJsonObject();
        long ready = list.getJsonArray("items").stream()
            .filter(o -> "Ready".equals(((JsonObject) o).getJsonObject("status").getString("state"))).count();
        if (ready != members) {
          return false;
        }
      } catch (Exception e) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() {
    vertx.close();
  }
}
