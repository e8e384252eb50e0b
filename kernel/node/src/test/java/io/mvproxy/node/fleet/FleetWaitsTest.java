package io.mvproxy.node.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mvproxy.node.membership.MembershipSnapshot.Member;
import io.mvproxy.node.routing.Awaited;
import io.mvproxy.node.routing.Awaited.Kind;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link FleetWaits}, table-driven: from what the discovery verticle knows (membership, configured members, members
 * and peers with the time each was first seen) to what a node still waits for before it may answer 404 and when the
 * earliest wait runs out. The node started at 0 with {@code --member-wait-seconds=10}; this node is
 * {@code 127.0.0.1:5701}.
 */
@Tag("unit")
class FleetWaitsTest {
  static final long WAIT = 10_000;
  static final long NONE = Long.MAX_VALUE;
  static final FleetWaits WAITS = new FleetWaits(List.of("127.0.0.1:5701", "127.0.0.1:5702"), "127.0.0.1:5701",
      WAIT);

  /** One row: inputs, then the expected waits and expiry. */
  record Row(String name, long now, boolean membershipKnown, boolean peersEnabled, List<Member> members,
             Map<String, Long> seen, List<FleetWaits.Peer> peers, List<Awaited> expected, long nextExpiry) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Arguments> rows() {
    Member two = new Member("m2", "127.0.0.1:5702");
    Member three = new Member("m3", "127.0.0.1:5703");
    Member four = new Member("m4", "127.0.0.1:5704");
    return Stream.of(
        new Row("no membership snapshot yet: only that", 0, false, true, List.of(two), Map.of(), List.of(),
            List.of(new Awaited(Kind.MEMBERSHIP, "")), NONE),
        new Row("peers disabled: nothing once membership is known", 0, true, false, List.of(), Map.of(), List.of(),
            List.of(), NONE),
        new Row("configured member not joined yet, self ignored", 1000, true, true, List.of(), Map.of(),
            List.of(), List.of(new Awaited(Kind.MEMBER_JOIN, "127.0.0.1:5702")), WAIT),
        new Row("configured member wait over", WAIT, true, true, List.of(), Map.of(), List.of(), List.of(), NONE),
        new Row("joined member without a record, seen at 2 s", 3000, true, true, List.of(two), Map.of("m2", 2000L),
            List.of(), List.of(new Awaited(Kind.MEMBER_RECORD, "127.0.0.1:5702")), 12_000),
        new Row("published peer not fetched, seen at 5 s", 6000, true, true, List.of(two), Map.of("m2", 0L),
            List.of(new FleetWaits.Peer("node-b", "m2", false, 5000)),
            List.of(new Awaited(Kind.PEER_DISCOVERY, "node-b")), 15_000),
        new Row("fetched peer: nothing held back", 6000, true, true, List.of(two), Map.of("m2", 0L),
            List.of(new FleetWaits.Peer("node-b", "m2", true, 5000)), List.of(), NONE),
        new Row("all kinds at once, earliest expiry wins", 4000, true, true, List.of(three, four),
            Map.of("m3", 3000L, "m4", 0L), List.of(new FleetWaits.Peer("node-a", "m4", false, 1000)),
            List.of(new Awaited(Kind.MEMBER_JOIN, "127.0.0.1:5702"), new Awaited(Kind.MEMBER_RECORD,
                "127.0.0.1:5703"), new Awaited(Kind.PEER_DISCOVERY, "node-a")), WAIT),
        new Row("member never recorded as seen counts from now", 20_000, true, true, List.of(three), Map.of(),
            List.of(), List.of(new Awaited(Kind.MEMBER_RECORD, "127.0.0.1:5703")), 30_000),
        new Row("every wait over: nothing held back", 20_000, true, true, List.of(three, four),
            Map.of("m3", 0L, "m4", 0L), List.of(new FleetWaits.Peer("node-b", "m4", false, 0)), List.of(), NONE)
    ).map(Arguments::of);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void waits(Row r) {
    FleetWaits.Waits w = WAITS.at(r.now(), r.membershipKnown(), r.peersEnabled(), 0, r.members(), r.seen(),
        r.peers());
    assertEquals(r.expected(), w.awaiting(), "awaiting");
    assertEquals(r.nextExpiry(), w.nextExpiry(), "next expiry");
  }
}
