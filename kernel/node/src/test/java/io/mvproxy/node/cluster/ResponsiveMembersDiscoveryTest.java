package io.mvproxy.node.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.spi.discovery.DiscoveryNode;
import io.mvproxy.storage.TestHazelcast;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link ResponsiveMembersDiscovery} and {@link MemberProbe} against a real Hazelcast member, a closed port, and a
 * listener that accepts connections in the kernel but never reads or answers (what a frozen member's port does).
 */
@Tag("fleet")
class ResponsiveMembersDiscoveryTest {

  @Test
  void onlyMembersThatAnswerAreDiscovered() throws Exception {
    int[] ports = TestHazelcast.freePorts(2);
    int live = ports[0];
    int closed = ports[1];
    HazelcastInstance hz = TestHazelcast.start(TestHazelcast.clusterName(), live, live);
    // backlog 50: the kernel completes the TCP handshake of a connection nobody accepts or reads, as for a
    // SIGSTOPped process
    try (ServerSocket frozen = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      InetSocketAddress frozenAddress = new InetSocketAddress("127.0.0.1", frozen.getLocalPort());
      assertTrue(MemberProbe.answers(new InetSocketAddress("127.0.0.1", live), 1000), "a live member answers");
      assertFalse(MemberProbe.answers(new InetSocketAddress("127.0.0.1", closed), 1000), "a closed port");
      long t0 = System.nanoTime();
      assertFalse(MemberProbe.answers(frozenAddress, 1000), "a port that accepts but never answers");
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ms < 5_000, "the probe of a silent port ends at its deadline, took " + ms + " ms");

      ResponsiveMembersDiscovery d = new ResponsiveMembersDiscovery(
          List.of("127.0.0.1:" + live, "127.0.0.1:" + closed, "127.0.0.1:" + frozen.getLocalPort()));
      var strategy = d.newDiscoveryStrategy(null, com.hazelcast.logging.Logger.getLogger(getClass()), Map.of());
      try {
        List<Integer> found = new ArrayList<>();
        for (DiscoveryNode n : strategy.discoverNodes()) {
          found.add(n.getPrivateAddress().getPort());
        }
        assertEquals(List.of(live), found);
      } finally {
        strategy.destroy();
      }
    } finally {
      hz.shutdown();
    }
  }

  @Test
  void aMemberWithoutPortIsTriedOnHazelcastsDefaultPorts() {
    assertEquals(List.of(5701, 5702, 5703),
        ResponsiveMembersDiscovery.candidates("10.0.0.1").stream().map(InetSocketAddress::getPort).toList());
    assertEquals(List.of(7000),
        ResponsiveMembersDiscovery.candidates("10.0.0.1:7000").stream().map(InetSocketAddress::getPort).toList());
  }
}
