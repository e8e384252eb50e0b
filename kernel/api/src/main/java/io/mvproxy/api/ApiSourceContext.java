package io.mvproxy.api;

import com.hazelcast.core.HazelcastInstance;
import io.vertx.core.Vertx;

/** Node services offered to {@link ApiSourceFactory} and {@link ApiSource} implementations. */
public interface ApiSourceContext {

  /** @return the node's Vert.x instance (clustered) */
  Vertx vertx();

  /** @return the embedded Hazelcast member backing cluster-wide storage (maps with backup count >= 1) */
  HazelcastInstance hazelcast();

  /** @return this node's server ID */
  String serverId();
}
