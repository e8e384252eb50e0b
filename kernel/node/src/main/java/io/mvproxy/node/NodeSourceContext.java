package io.mvproxy.node;

import com.hazelcast.core.HazelcastInstance;
import io.mvproxy.api.ApiSourceContext;
import io.vertx.core.Vertx;

/**
 * The node services handed to API sources.
 *
 * @param vertx     the clustered Vert.x
 * @param hazelcast the embedded Hazelcast member
 * @param serverId  this node's server ID
 */
record NodeSourceContext(Vertx vertx, HazelcastInstance hazelcast, String serverId) implements ApiSourceContext {
}
