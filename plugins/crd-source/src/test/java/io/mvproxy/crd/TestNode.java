package io.mvproxy.crd;

import io.mvproxy.registry.impl.CrdApiSource;
import io.mvproxy.registry.impl.CrdSourceOptions;
import com.hazelcast.core.HazelcastInstance;
import io.mvproxy.api.ApiSource;
import io.mvproxy.api.RequestInfo;
import io.mvproxy.api.StatusException;
import io.mvproxy.api.UserInfo;
import io.mvproxy.api.discovery.DiscoveryResource;
import io.mvproxy.api.discovery.ServedGroupVersion;
import io.mvproxy.storage.TestHazelcast;
import io.mvproxy.testkit.TestSourceContext;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A minimal node for tests: Vert.x, a storage (memory over a Hazelcast member, or etcd3), CRD sources and an HTTP server on 127.0.0.1:0 routing
 * resource requests to the source that serves their GVR (what kernel/node does, without proxying).
 */
final class TestNode implements AutoCloseable {
  final Vertx vertx;
  final HazelcastInstance hz;
  final List<CrdApiSource> sources = new java.util.concurrent.CopyOnWriteArrayList<>();
  final CrdApiSourceFactory factory;
  final HttpServer server;
  final int port;
  final io.mvproxy.storage.NodeStorage storage;

  TestNode(HazelcastInstance hz, CrdSourceOptions options) throws Exception {
    this(hz, options, io.mvproxy.storage.StorageConfig.memory());
  }

  /**
   * A node over a Hazelcast member of its own (memory backend, a unique cluster on loopback), which {@link #close()}
   * shuts down after the node.
   *
   * @param options CRD source tunables
   */
  static TestNode withOwnMember(CrdSourceOptions options) throws Exception {
    return withOwnMember(options, io.mvproxy.storage.StorageConfig.memory());
  }

  /**
   * @param options CRD source tunables
   * @param storage the memory storage settings
   * @return a node over a Hazelcast member of its own, shut down by {@link #close()}
   */
  static TestNode withOwnMember(CrdSourceOptions options, io.mvproxy.storage.StorageConfig storage) throws Exception {
    int port = TestHazelcast.freePorts(1)[0];
    HazelcastInstance member = TestHazelcast.start(TestHazelcast.clusterName(), port, port);
    try {
      TestNode node = new TestNode(member, options, storage);
      node.ownMember = member;
      return node;
    } catch (Exception e) {
      member.shutdown();
      throw e;
    }
  }

  /**
   * @param hz      the Hazelcast member (memory backend), or null for etcd3
   * @param options CRD source tunables
   * @param storage the storage settings (memory over {@code hz}, or etcd3)
   */
  TestNode(HazelcastInstance hz, CrdSourceOptions options, io.mvproxy.storage.StorageConfig storage)
      throws Exception {
    this.vertx = Vertx.vertx();
    this.hz = hz;
    this.storage = io.mvproxy.storage.NodeStorage.create(vertx, hz, storage);
    this.factory = new CrdApiSourceFactory(options);
    Router router = Router.router(vertx);
    router.route().handler(ctx -> {
      if (Boolean.getBoolean("crd.test.trace")) {
        System.err.println("TRACE " + ctx.request().method() + " " + ctx.request().uri() + " "
            + ctx.request().headers().entries());
        ctx.addEndHandler(v -> System.err.println("TRACE -> " + ctx.response().getStatusCode()));
      }
      JsonObject disc = LegacyDiscoveryForTests.document(ctx.request().path(), sources);
      if (disc != null) {
        ctx.response().putHeader("Content-Type", "application/json").end(disc.encode());
        return;
      }
      RequestInfo info = RequestInfo.parse(ctx.request().method().name(), ctx.request().path(),
          ctx.request().getParam("watch"));
      UserInfo user = new UserInfo("tester", "", List.of("system:masters"), Map.of());
      io.mvproxy.api.RequestScope.of(ctx).user(user);
      for (ApiSource s : sources) {
        for (ServedGroupVersion gv : s.groupVersions()) {
          for (DiscoveryResource r : gv.resources()) {
            if (info.resourceRequest() && gv.groupVersion().equals(info.groupVersion())
                && r.resource().equals(info.resource())) {
              s.handle(ctx, info, user);
              return;
            }
          }
        }
      }
      ctx.response().setStatusCode(404).putHeader("Content-Type", "application/json")
          .end(StatusException.resourceNotFound().toStatus().encode());
    });
    this.server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1")
        .await(10, TimeUnit.SECONDS);
    this.port = server.actualPort();
  }

  /** Adds a source for {@code manifest} and waits until its store is ready. */
  CrdApiSource add(JsonObject manifest) throws Exception {
    CrdApiSource s = factory.create(manifest, new TestSourceContext(vertx, storage, "test-" + port));
    s.ready().await(20, TimeUnit.SECONDS);
    sources.add(s);
    return s;
  }

  /** Adds a source for each manifest, in order (see {@link #add}). */
  void addAll(List<JsonObject> manifests) throws Exception {
    for (JsonObject m : manifests) {
      add(m);
    }
  }

  /** @return the base URL */
  String base() {
    return "http://127.0.0.1:" + port;
  }

  private boolean closed;
  /** The member {@link #withOwnMember} started, or null. */
  private HazelcastInstance ownMember;

  @Override
  public void close() throws Exception {
    if (closed) {
      return;
    }
    closed = true;
    for (CrdApiSource s : sources) {
      s.close().await(10, TimeUnit.SECONDS);
    }
    storage.close().await(10, TimeUnit.SECONDS);
    vertx.close().await(10, TimeUnit.SECONDS);
    if (ownMember != null) {
      ownMember.shutdown();
    }
  }
}
