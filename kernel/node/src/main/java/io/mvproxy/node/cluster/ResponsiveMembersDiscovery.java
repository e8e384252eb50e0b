package io.mvproxy.node.cluster;

import com.hazelcast.cluster.Address;
import com.hazelcast.config.properties.PropertyDefinition;
import com.hazelcast.logging.ILogger;
import com.hazelcast.spi.discovery.AbstractDiscoveryStrategy;
import com.hazelcast.spi.discovery.DiscoveryNode;
import com.hazelcast.spi.discovery.DiscoveryStrategy;
import com.hazelcast.spi.discovery.DiscoveryStrategyFactory;
import com.hazelcast.spi.discovery.SimpleDiscoveryNode;

import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Hazelcast discovery of the {@code --cluster-members} that answer: the join and the split-brain merge search try only
 * members whose Hazelcast port completes the protocol exchange ({@link MemberProbe}) within
 * {@link #PROBE_TIMEOUT_MS}, in place of Hazelcast's TCP-IP joiner, which tries every configured address.
 *
 * <p>Why: a frozen member (SIGSTOP, a VM paused, a process stuck in swap) still accepts TCP connections in its
 * kernel but never answers. Hazelcast 5.3-5.5's outbound pipeline then spins at 100% CPU on the new connection's
 * queued handshake (its protocol encoder reports CLEAN while it waits for the peer's protocol bytes, and the pipeline
 * reschedules itself at once), which starves the other connections served by that IO thread: the survivors stop
 * receiving each other's heartbeats, split, and cannot merge again until the frozen member is resumed or killed.
 * The master's split-brain search reconnects to every configured non-member every
 * {@code hazelcast.merge.next.run.delay.seconds}, so without this filter each frozen member triggered it within
 * seconds. Members of the cluster are still watched by Hazelcast's heartbeats as before; this only decides whom
 * to contact to join or merge.
 *
 * <p>With the fleet secret, a probe first passes the {@link FleetHandshake} as any member connection does: a member
 * without the secret (or not a fleet member) does not answer it and is not contacted.
 */
public final class ResponsiveMembersDiscovery implements DiscoveryStrategyFactory {
  /** How long (ms) a member has to accept the connection and answer the protocol exchange. */
  static final int PROBE_TIMEOUT_MS = 1000;
  /**
   * With the fleet secret, how long (ms) a member has to answer the handshake: its answer comes from Hazelcast's
   * async executor, not its IO thread, after an HMAC, and a busy machine must not make a live member look frozen.
   */
  static final int HANDSHAKE_TIMEOUT_MS = 2000;
  /** Ports tried for a member given without one, as Hazelcast's TCP-IP join does (5701-5703). */
  static final int[] DEFAULT_PORTS = {5701, 5702, 5703};

  private final List<String> members;
  private final FleetHandshake handshake;
  private final String localHost;

  /**
   * @param members {@code host[:port]} addresses of {@code --cluster-members}, host names already resolved
   *     ({@link HazelcastConfigFactory#resolved}); may include this node's own address (Hazelcast skips it)
   */
  public ResponsiveMembersDiscovery(List<String> members) {
    this(members, null, null);
  }

  /**
   * @param members   as {@link #ResponsiveMembersDiscovery(List)}
   * @param handshake the fleet handshake the probes pass first (members refuse any other connection), or null
   * @param localHost with a handshake, the interface probes are sent from ({@code --cluster-host}: the members'
   *                  allowlists hold it), or null
   */
  public ResponsiveMembersDiscovery(List<String> members, FleetHandshake handshake, String localHost) {
    this.members = List.copyOf(members);
    this.handshake = handshake;
    this.localHost = localHost;
  }

  @Override
  public Class<? extends DiscoveryStrategy> getDiscoveryStrategyType() {
    return Strategy.class;
  }

  @Override
  public DiscoveryStrategy newDiscoveryStrategy(DiscoveryNode discoveryNode, ILogger logger,
                                                Map<String, Comparable> properties) {
    return new Strategy(logger, properties, members, handshake, localHost);
  }

  @Override
  public Collection<PropertyDefinition> getConfigurationProperties() {
    return List.of();
  }

  /**
   * @param member {@code host[:port]}
   * @return the socket addresses to try for it: the given port, or {@link #DEFAULT_PORTS}
   */
  static List<InetSocketAddress> candidates(String member) {
    int c = member.lastIndexOf(':');
    if (c > 0 && member.indexOf(':') == c) {
      return List.of(new InetSocketAddress(member.substring(0, c), Integer.parseInt(member.substring(c + 1))));
    }
    List<InetSocketAddress> out = new ArrayList<>();
    for (int p : DEFAULT_PORTS) {
      out.add(new InetSocketAddress(member, p));
    }
    return out;
  }

  /**
   * The strategy: on each call probes every candidate address in parallel (one daemon thread each, at most
   * {@link #PROBE_TIMEOUT_MS} twice, plus {@link #HANDSHAKE_TIMEOUT_MS} with the fleet secret), returns the ones that
   * answered.
   */
  static final class Strategy extends AbstractDiscoveryStrategy {
    private final List<String> members;
    private final FleetHandshake handshake;
    private final String localHost;
    private final ExecutorService probes = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "mvproxy-member-probe");
      t.setDaemon(true);
      return t;
    });

    Strategy(ILogger logger, Map<String, Comparable> properties, List<String> members, FleetHandshake handshake,
             String localHost) {
      super(logger, properties);
      this.members = members;
      this.handshake = handshake;
      this.localHost = localHost;
    }

    @Override
    public void destroy() {
      probes.shutdownNow();
    }

    @Override
    public Iterable<DiscoveryNode> discoverNodes() {
      List<CompletableFuture<DiscoveryNode>> pending = new ArrayList<>();
      for (String m : members) {
        for (InetSocketAddress a : candidates(m)) {
          pending.add(CompletableFuture.supplyAsync(() -> MemberProbe.answers(a, PROBE_TIMEOUT_MS, HANDSHAKE_TIMEOUT_MS, handshake,
              localHost)
              ? node(a) : null,
              probes));
        }
      }
      List<DiscoveryNode> out = new ArrayList<>();
      for (CompletableFuture<DiscoveryNode> p : pending) {
        DiscoveryNode n = p.join();
        if (n != null) {
          out.add(n);
        }
      }
      return out;
    }

    private DiscoveryNode node(InetSocketAddress a) {
      try {
        return new SimpleDiscoveryNode(new Address(a.getHostString(), a.getPort()));
      } catch (UnknownHostException e) {
        getLogger().fine("cluster member " + a + " cannot be resolved: " + e.getMessage());
        return null;
      }
    }
  }
}
