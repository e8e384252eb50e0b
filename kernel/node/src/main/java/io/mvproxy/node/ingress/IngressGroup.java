package io.mvproxy.node.ingress;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The node's HTTPS ingress as several {@link IngressVerticle} instances, each deployed on its own event loop with
 * its own router and peer clients, all listening on one port (Vert.x server sharing spreads the accepted
 * connections over them), so TLS and request handling use every core ({@code --ingress-instances}). The first
 * instance binds the configured port (0: any free one); the others then share the port it got.
 */
public final class IngressGroup {
  private final List<IngressVerticle> instances;

  private IngressGroup(List<IngressVerticle> instances) {
    this.instances = List.copyOf(instances);
  }

  /**
   * Deploys the instances.
   *
   * @param vertx   the node's Vert.x
   * @param count   how many (at least 1)
   * @param options the HTTPS server options (host, configured port, TLS)
   * @param factory builds one instance for the given server options
   * @return the group once every instance listens; fails when the first cannot bind
   */
  public static Future<IngressGroup> deploy(Vertx vertx, int count, HttpServerOptions options,
                                            Function<HttpServerOptions, IngressVerticle> factory) {
    HttpServerOptions bind = firstBind(options, count);
    IngressVerticle first = factory.apply(bind);
    return vertx.deployVerticle(first).compose(id -> {
      HttpServerOptions shared = bind.getPort() < 0 ? bind : new HttpServerOptions(options).setPort(first.actualPort());
      List<IngressVerticle> all = new ArrayList<>(List.of(first));
      List<Future<String>> rest = new ArrayList<>();
      for (int i = 1; i < count; i++) {
        IngressVerticle v = factory.apply(shared);
        all.add(v);
        rest.add(vertx.deployVerticle(v));
      }
      return Future.all(rest).map(x -> new IngressGroup(all));
    });
  }

  /**
   * The options the first instance binds with. Vert.x shares a listening socket between servers by the port they
   * ask for, and never one asked for with port 0 (breakit: {@code --secure-port=0} with two or more instances failed
   * {@code Address already in use}, the second instance binding the first one's port again); a negative port is
   * Vert.x's "any free port, shared by the servers asking for this same negative port", so that is what every
   * instance asks for then.
   *
   * @param options the configured server options
   * @param count   how many instances will listen
   * @return {@code options} itself, or a copy with a sharing key of its own instead of port 0
   */
  static HttpServerOptions firstBind(HttpServerOptions options, int count) {
    if (options.getPort() != 0 || count < 2) {
      return options;
    }
    return new HttpServerOptions(options).setPort(-SHARING_KEYS.incrementAndGet());
  }

  /** Negative ports handed out for port-0 groups (one per group in this JVM, never reused). */
  private static final java.util.concurrent.atomic.AtomicInteger SHARING_KEYS = new java.util.concurrent.atomic.AtomicInteger();

  /** @return the port every instance listens on */
  public int actualPort() {
    return instances.get(0).actualPort();
  }

  /** @return the number of instances */
  public int size() {
    return instances.size();
  }

  /**
   * Graceful stop of every instance's server: no new connections; requests in flight may finish within
   * {@code grace}.
   *
   * @param grace the longest wait
   * @return completes when every server is closed
   */
  public Future<Void> shutdown(Duration grace) {
    return Future.join(instances.stream().map(i -> i.shutdown(grace)).toList()).mapEmpty();
  }
}
