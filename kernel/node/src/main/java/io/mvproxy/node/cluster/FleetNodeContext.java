package io.mvproxy.node.cluster;

import com.hazelcast.instance.EndpointQualifier;
import com.hazelcast.instance.impl.DefaultNodeContext;
import com.hazelcast.instance.impl.DefaultNodeExtension;
import com.hazelcast.instance.impl.Node;
import com.hazelcast.instance.impl.NodeExtension;
import com.hazelcast.nio.MemberSocketInterceptor;

/**
 * Hazelcast's default node context with one change: its node extension returns the {@link FleetHandshake} as the
 * member socket interceptor. Hazelcast open source has the interceptor calls on every member connection
 * ({@code TcpServerContext.interceptSocket}, run when {@code NetworkConfig.getSocketInterceptorConfig()} is enabled)
 * but its {@code DefaultNodeExtension.getSocketInterceptor} only logs "SocketInterceptor feature is only available on
 * Hazelcast Enterprise!" and returns null; the extension is chosen by the node context, which
 * {@code HazelcastInstanceFactory.newHazelcastInstance(Config, String, NodeContext)} takes.
 */
final class FleetNodeContext extends DefaultNodeContext {
  private final FleetHandshake handshake;

  /** @param handshake the interceptor every member connection passes */
  FleetNodeContext(FleetHandshake handshake) {
    this.handshake = handshake;
  }

  /**
   * @param node the starting Hazelcast node
   * @return Hazelcast's default extension, with {@link FleetHandshake} as its member socket interceptor
   */
  @Override
  public NodeExtension createNodeExtension(Node node) {
    return new DefaultNodeExtension(node) {
      @Override
      public MemberSocketInterceptor getSocketInterceptor(EndpointQualifier endpointQualifier) {
        return handshake;
      }
    };
  }
}
