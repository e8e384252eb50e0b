package io.mvproxy.node.membership;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import io.mvproxy.api.Addresses;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.servicediscovery.Record;
import io.vertx.servicediscovery.ServiceDiscovery;
import io.vertx.servicediscovery.ServiceDiscoveryOptions;
import io.vertx.servicediscovery.types.HttpEndpoint;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.logging.Logger;

/**
 * Fleet membership: publishes this node's service-discovery record (server ID, peer address, version, discovery
 * ETag) and keeps the set of live peers. It is deployed only once the node's own API set is known (plugins loaded,
 * aggregated backends' discovery attempted), so no peer ever learns a partial API set from it. A peer is live when
 * its record exists AND its Hazelcast member is in the cluster; records of members that left are removed by the
 * survivors (a killed node cannot remove its own). After a split heals (or this member was suspected and came
 * back, possibly with a new member UUID) its record may be gone or stale: every rescan republishes it then.
 * Publishes {@link Addresses#MEMBERSHIP_CHANGED} locally with a {@link MembershipSnapshot} (peers, and every
 * Hazelcast member, published or not) on every change.
 * The architecture's "one writer per state": only this verticle touches the record and the peer set.
 */
public final class MembershipVerticle extends VerticleBase {
  /** Service-discovery record name shared by every mvproxy node. */
  public static final String RECORD_NAME = "mvproxy-apiserver";
  /** Rescan interval (ms): a backstop for missed announcements; Hazelcast events make joins/leaves faster. */
  static final long RESCAN_MS = 1000;
  private static final Logger LOG = Logger.getLogger(MembershipVerticle.class.getName());

  private final String serverId;
  private final String host;
  private final int port;
  private final String version;
  private final java.util.function.Supplier<List<String>> plugins;
  private final java.util.function.Supplier<String> etag;
  private ServiceDiscovery discovery;
  private boolean publishing;
  private boolean stopping;
  private MembershipSnapshot last;
  private long rescans;
  private long applied;
  private Record record;
  private String listenerId;
  private long timer;

  /**
   * @param serverId this node's server ID
   * @param host     advertised peer IP
   * @param port     advertised peer port
   * @param version  mvproxy version
   * @param plugins  this node's plugins as {@code name@version:STATE}, published in the record
   * @param etag     this node's current local discovery ETag, published in the record
   */
  public MembershipVerticle(String serverId, String host, int port, String version,
                            java.util.function.Supplier<List<String>> plugins, java.util.function.Supplier<String> etag) {
    this.plugins = plugins;
    this.etag = etag;
    this.serverId = serverId;
    this.host = host;
    this.port = port;
    this.version = version;
  }

  @Override
  public Future<?> start() {
    discovery = ServiceDiscovery.create(vertx, new ServiceDiscoveryOptions());
    HazelcastClusterManager mgr = clusterManager();
    String nodeId = localNodeId();
    if (mgr.getHazelcastInstance() != null) {
      listenerId = mgr.getHazelcastInstance().getCluster().addMembershipListener(new MembershipListener() {
        @Override
        public void memberAdded(MembershipEvent e) {
          context.runOnContext(v -> rescan());
        }

        @Override
        public void memberRemoved(MembershipEvent e) {
          context.runOnContext(v -> removeDeparted(e.getMember().getUuid().toString()));
        }
      }).toString();
    }
    record = HttpEndpoint.createRecord(RECORD_NAME, true, host, port, "/",
        new JsonObject().put("serverId", serverId).put("nodeId", nodeId).put("etag", etag.get()).put("version", version)
            .put("plugins", new JsonArray(plugins.get())));
    vertx.eventBus().<JsonObject>consumer(Addresses.DISCOVERY_CHANGED, m -> rescan());
    vertx.eventBus().<String>localConsumer(Addresses.LOCAL_ETAG_CHANGED, m -> updateEtag(m.body()));
    vertx.eventBus().consumer(Addresses.SERVICE_DISCOVERY_ANNOUNCE, m -> rescan());
    vertx.eventBus().localConsumer(Addresses.LOCAL_APIS_CHANGED, m -> updatePlugins());
    publishing = true;
    return removeStaleSelf(nodeId).compose(v -> discovery.publish(record)).onSuccess(r -> {
      record = r;
      publishing = false;
      LOG.info("membership record of " + serverId + " published (member " + nodeId + ")");
      timer = vertx.setPeriodic(RESCAN_MS, t -> rescan());
      rescan();
    });
  }

  /**
   * Publishes the record again after it was lost (removed by the other side of a split, or this member came back
   * from suspicion under a new member UUID).
   */
  private void republish(String nodeId) {
    publishing = true;
    Record next = new Record(record);
    next.setRegistration(null);
    next.getMetadata().put("nodeId", nodeId).put("etag", etag.get()).put("plugins", new JsonArray(plugins.get()));
    LOG.warning("membership record of " + serverId + " missing from the cluster (split healed or member rejoined):"
        + " publishing it again as member " + nodeId);
    discovery.getRecords(r -> RECORD_NAME.equals(r.getName()) && serverId.equals(r.getMetadata().getString("serverId")), true)
        .compose(old -> Future.all(old.stream().map(r -> discovery.unpublish(r.getRegistration())).toList()))
        .compose(v -> discovery.publish(next)).onComplete(ar -> {
      publishing = false;
      if (ar.succeeded()) {
        record = ar.result();
        rescan();
      } else {
        LOG.warning("republishing the membership record failed: " + ar.cause());
      }
    });
  }

  /** @return this member's current Hazelcast UUID (changes when it rejoins after a split) */
  private String localNodeId() {
    HazelcastClusterManager mgr = clusterManager();
    try {
      return mgr.getHazelcastInstance() != null
          ? mgr.getHazelcastInstance().getCluster().getLocalMember().getUuid().toString() : mgr.getNodeId();
    } catch (RuntimeException e) {
      return mgr.getNodeId();
    }
  }

  @Override
  public Future<?> stop() {
    stopping = true;
    vertx.cancelTimer(timer);
    if (listenerId != null && clusterManager().getHazelcastInstance() != null) {
      try {
        clusterManager().getHazelcastInstance().getCluster().removeMembershipListener(UUID.fromString(listenerId));
      } catch (RuntimeException e) {
        LOG.fine("membership listener already gone: " + e);
      }
    }
    Future<Void> f = record != null && record.getRegistration() != null
        ? discovery.unpublish(record.getRegistration()) : Future.succeededFuture();
    return f.eventually(() -> {
      discovery.close();
      return Future.succeededFuture();
    });
  }

  private HazelcastClusterManager clusterManager() {
    return (HazelcastClusterManager) ((VertxInternal) vertx).clusterManager();
  }

  private Future<Void> removeStaleSelf(String nodeId) {
    // a restarted node (same server ID) may find its old record if nobody removed it yet
    return discovery.getRecords(r -> RECORD_NAME.equals(r.getName())
            && serverId.equals(r.getMetadata().getString("serverId"))
            && !nodeId.equals(r.getMetadata().getString("nodeId")), true)
        .compose(old -> Future.all(old.stream().map(r -> discovery.unpublish(r.getRegistration())).toList()))
        .mapEmpty();
  }

  private void updateEtag(String etag) {
    if (record == null || etag.equals(record.getMetadata().getString("etag"))) {
      return;
    }
    record.getMetadata().put("etag", etag);
    if (record.getRegistration() != null) {
      discovery.update(record).onFailure(e -> LOG.warning("record update failed: " + e));
    }
    vertx.eventBus().publish(Addresses.DISCOVERY_CHANGED,
        new io.mvproxy.node.bus.Announcements.DiscoveryChanged(serverId, etag).toJson());
    io.mvproxy.node.fleet.Convergence.stage("announced", serverId, etag);
  }

  private void updatePlugins() {
    JsonArray now = new JsonArray(plugins.get());
    if (record == null || now.equals(record.getMetadata().getJsonArray("plugins"))) {
      return;
    }
    record.getMetadata().put("plugins", now);
    if (record.getRegistration() != null) {
      discovery.update(record).onFailure(e -> LOG.warning("record update failed: " + e));
    }
  }

  private void removeDeparted(String departedNodeId) {
    discovery.getRecords(r -> RECORD_NAME.equals(r.getName())
            && departedNodeId.equals(r.getMetadata().getString("nodeId")), true)
        .onSuccess(list -> list.forEach(r -> discovery.unpublish(r.getRegistration())));
    rescan();
  }

  private void rescan() {
    long seq = ++rescans;
    discovery.getRecords(r -> RECORD_NAME.equals(r.getName()), true).onSuccess(records -> {
      if (seq < applied) {
        return; // an older scan finishing late must not undo a newer one
      }
      applied = seq;
      // the members are read after the records, so a member removed meanwhile is never reported live again
      Map<String, String> members = new HashMap<>();
      String self;
      try {
        self = localNodeId();
        if (clusterManager().getHazelcastInstance() != null) {
          for (com.hazelcast.cluster.Member m : clusterManager().getHazelcastInstance().getCluster().getMembers()) {
            if (!m.localMember()) {
              members.put(m.getUuid().toString(), m.getAddress().getHost() + ":" + m.getAddress().getPort());
            }
          }
        } else {
          clusterManager().getNodes().forEach(n -> members.put(n, n));
          members.remove(self);
        }
      } catch (RuntimeException e) {
        LOG.fine("cluster not available for a rescan: " + e);
        return;
      }
      List<PeerInfo> next = new ArrayList<>();
      Set<String> seen = new HashSet<>();
      boolean mine = false;
      for (Record r : records) {
        JsonObject md = r.getMetadata();
        String id = md.getString("serverId");
        if (serverId.equals(id)) {
          mine |= self.equals(md.getString("nodeId")) && record != null
              && Objects.equals(record.getRegistration(), r.getRegistration());
          continue;
        }
        if (id == null || !members.containsKey(md.getString("nodeId")) || !seen.add(id)) {
          continue;
        }
        JsonObject loc = r.getLocation();
        next.add(new PeerInfo(id, loc.getString("host"), loc.getInteger("port"), md.getString("nodeId"),
            md.getString("etag", ""), md.getString("version", ""), PeerInfo.strings(md.getJsonArray("plugins"))));
      }
      if (!mine && !publishing && !stopping && record != null) {
        republish(self);
      }
      next.sort(Comparator.comparing(PeerInfo::serverId));
      List<MembershipSnapshot.Member> all = new ArrayList<>();
      members.forEach((id, addr) -> all.add(new MembershipSnapshot.Member(id, addr)));
      all.sort(Comparator.comparing(MembershipSnapshot.Member::nodeId));
      MembershipSnapshot snap = new MembershipSnapshot(next, all);
      if (!snap.equals(last)) {
        last = snap;
        vertx.eventBus().publish(Addresses.MEMBERSHIP_CHANGED, snap);
      }
    });
  }
}
