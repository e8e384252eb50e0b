package io.mvproxy.node.membership;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@link MembershipVerticle} publishes on {@code Addresses.MEMBERSHIP_CHANGED}: the live peers (members with a
 * published record) and every other member of this node's Hazelcast cluster, published or not, so the discovery
 * verticle knows whom it still waits for (README "Routing rules").
 *
 * @param peers   live peers with a record, by server ID
 * @param members every Hazelcast member except this node
 */
public record MembershipSnapshot(List<PeerInfo> peers, List<Member> members) {
  /** Copies the lists. */
  public MembershipSnapshot {
    peers = List.copyOf(peers);
    members = List.copyOf(members);
  }

  /**
   * A Hazelcast member.
   *
   * @param nodeId  its member UUID (the {@code nodeId} of its record)
   * @param address its cluster {@code ip:port}
   */
  public record Member(String nodeId, String address) {
  }

  /** @return the JSON form sent on the event bus */
  public JsonObject toJson() {
    JsonArray p = new JsonArray();
    peers.forEach(i -> p.add(i.toJson()));
    JsonArray m = new JsonArray();
    members.forEach(i -> m.add(new JsonObject().put("nodeId", i.nodeId()).put("address", i.address())));
    return new JsonObject().put("peers", p).put("members", m);
  }

  /** @param j JSON from {@link #toJson()} @return the snapshot */
  public static MembershipSnapshot fromJson(JsonObject j) {
    List<PeerInfo> p = new ArrayList<>();
    j.getJsonArray("peers", new JsonArray()).forEach(o -> p.add(PeerInfo.fromJson((JsonObject) o)));
    List<Member> m = new ArrayList<>();
    j.getJsonArray("members", new JsonArray()).forEach(o -> m.add(new Member(((JsonObject) o).getString("nodeId"),
        ((JsonObject) o).getString("address"))));
    return new MembershipSnapshot(p, m);
  }
}
